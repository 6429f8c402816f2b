/**
 * Font formats (ttf, otf, woff, woff2). Conventions: registry.ts.
 *
 * ttf and otf are the two outline flavours of one container (sfnt): TrueType quadratic outlines
 * ('glyf') and PostScript cubic outlines ('CFF '). woff and woff2 wrap either flavour for the web
 * (zlib per table, Brotli over all tables). EOT (Internet Explorer's embedding format) is left
 * out: no browser in use needs it and no engine here writes it.
 */
import type { FormatDefinition } from './types.js';

export const FONT_FORMATS: readonly FormatDefinition[] = [
  {
    name: 'ttf',
    family: 'font',
    label: 'TrueType font',
    aliases: ['truetype'],
    extensions: ['ttf'],
    // application/x-font-ttf and font/sfnt are what older servers and browsers sent.
    mimeTypes: ['font/ttf', 'application/x-font-ttf', 'application/x-font-truetype', 'font/sfnt'],
    detectable: true,
  },
  {
    name: 'otf',
    family: 'font',
    label: 'OpenType font (CFF outlines)',
    aliases: ['opentype'],
    extensions: ['otf'],
    mimeTypes: ['font/otf', 'application/x-font-otf', 'application/x-font-opentype'],
    detectable: true,
  },
  {
    name: 'woff',
    family: 'font',
    label: 'WOFF web font',
    aliases: [],
    extensions: ['woff'],
    mimeTypes: ['font/woff', 'application/font-woff', 'application/x-font-woff'],
    detectable: true,
  },
  {
    name: 'woff2',
    family: 'font',
    label: 'WOFF 2.0 web font',
    aliases: [],
    extensions: ['woff2'],
    mimeTypes: ['font/woff2', 'application/font-woff2'],
    detectable: true,
  },
];
