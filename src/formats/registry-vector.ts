/** Print and vector formats (eps, ps, ai, emf, wmf), rendered through Ghostscript or LibreOffice. Conventions: registry.ts. */
import type { FormatDefinition } from './types.js';

export const VECTOR_FORMATS: readonly FormatDefinition[] = [
  {
    // Vector pictures from Windows (RFC 7903). Read by LibreOffice Draw: to pdf, png, svg.
    name: 'emf',
    family: 'image',
    label: 'Windows Enhanced Metafile',
    aliases: [],
    extensions: ['emf'],
    mimeTypes: ['image/emf', 'image/x-emf', 'application/x-emf', 'application/emf'],
    detectable: true,
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
  },
];
