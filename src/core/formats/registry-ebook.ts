/**
 * E-book formats: EPUB (a zip of XHTML), the Kindle formats (MOBI and its KF8 successor AZW3,
 * both Palm database files told apart by the MOBI header's version: detect-ebook.ts) and
 * FictionBook (one XML file, images inline). Conventions: registry.ts.
 */
import type { FormatDefinition } from './types.js';

export const EBOOK_FORMATS: readonly FormatDefinition[] = [
  {
    name: 'epub',
    family: 'ebook',
    label: 'EPUB e-book',
    aliases: [],
    extensions: ['epub'],
    mimeTypes: ['application/epub+zip'],
    detectable: true,
  },
  {
    // .prc is the Palm-era name of the same file, .azw Amazon's (MOBI 6, often DRM-locked).
    name: 'mobi',
    family: 'ebook',
    label: 'Mobipocket e-book (Kindle MOBI)',
    aliases: ['prc', 'azw', 'mobipocket'],
    extensions: ['mobi', 'prc', 'azw'],
    mimeTypes: ['application/x-mobipocket-ebook', 'application/vnd.amazon.ebook'],
    detectable: true,
  },
  {
    name: 'azw3',
    family: 'ebook',
    label: 'Kindle KF8 e-book (AZW3)',
    aliases: ['kf8'],
    extensions: ['azw3'],
    mimeTypes: ['application/vnd.amazon.mobi8-ebook', 'application/x-mobi8-ebook'],
    detectable: true,
  },
  {
    name: 'fb2',
    family: 'ebook',
    label: 'FictionBook 2 e-book',
    aliases: ['fictionbook'],
    extensions: ['fb2'],
    mimeTypes: ['application/x-fictionbook+xml', 'application/x-fictionbook', 'text/fb2+xml'],
    detectable: true,
  },
];
