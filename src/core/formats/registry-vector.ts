/**
 * Print and vector formats (eps, ps, svgz; emf and wmf), rendered through Ghostscript and librsvg
 * (the metafiles through LibreOffice Draw). Conventions: registry.ts. All sit in the image family: EPS is a picture placed in other documents,
 * PostScript pages render to images and PDF, and svgz is SVG. Adobe Illustrator (.ai) is not
 * here: a modern .ai is a PDF with Illustrator's private data (it would convert as the PDF it
 * is), and no sample with a clear licence from Illustrator itself was found to test against.
 */
import type { FormatDefinition } from './types.js';

export const VECTOR_FORMATS: readonly FormatDefinition[] = [
  {
    name: 'eps',
    family: 'image',
    label: 'Encapsulated PostScript',
    // .epsf and .epsi are the same format (EPSI adds a bitmap preview inside comments).
    aliases: ['epsf', 'epsi'],
    extensions: ['eps', 'epsf', 'epsi'],
    // No registered type of its own (application/postscript is PostScript's, below): application/eps
    // is what file-type and most servers say; the others are seen in the wild.
    mimeTypes: ['application/eps', 'application/x-eps', 'image/eps', 'image/x-eps'],
    detectable: true,
    vector: true,
  },
  {
    name: 'ps',
    family: 'image',
    label: 'PostScript document',
    aliases: ['postscript'],
    extensions: ['ps'],
    mimeTypes: ['application/postscript'],
    detectable: true,
    vector: true,
  },
  {
    name: 'svgz',
    family: 'image',
    label: 'Compressed SVG image',
    aliases: [],
    extensions: ['svgz'],
    // SVG's own MIME type, sent with Content-Encoding: gzip, is the registered way; this one is what
    // servers configured by extension send.
    mimeTypes: ['image/svg+xml-compressed'],
    detectable: true,
    vector: true,
  },
  {
    // Vector pictures from Windows (RFC 7903). Read by LibreOffice Draw: to pdf, png, svg.
    name: 'emf',
    family: 'image',
    label: 'Windows Enhanced Metafile',
    aliases: [],
    extensions: ['emf'],
    mimeTypes: ['image/emf', 'image/x-emf', 'application/x-emf', 'application/emf'],
    detectable: true,
    vector: true,
  },
  {
    // The 16-bit predecessor of EMF (RFC 7903), usually behind a placeable header (D7 CD C6 9A).
    name: 'wmf',
    family: 'image',
    label: 'Windows Metafile',
    aliases: [],
    extensions: ['wmf'],
    mimeTypes: [
      'image/wmf',
      'image/x-wmf',
      'application/x-wmf',
      'application/x-msmetafile',
      'image/x-win-metafile',
    ],
    detectable: true,
    vector: true,
  },
];
