/**
 * The format registry: every format fileconv knows, as plain data.
 *
 * Conventions every entry follows (test/formats.test.ts checks them):
 * - `name` is lowercase and extension-like, and is also the preferred extension (`extensions[0]`).
 * - `aliases` holds every other extension plus any other name people type ('jpeg', 'matroska');
 *   no alias is another format's name, and no alias, extension or MIME type belongs to two formats.
 * - `mimeTypes[0]` is what we send; the rest are variants seen in the wild that we accept.
 * Lookups over this data live in lookup.ts; detection from bytes in detect.ts.
 */
import { ARCHIVE_FORMATS } from './registry-archive.js';
import { DATA_FORMATS, SUBTITLE_FORMATS } from './registry-data.js';
import { EBOOK_FORMATS } from './registry-ebook.js';
import { FONT_FORMATS } from './registry-font.js';
import { RASTER_FORMATS } from './registry-image-more.js';
import { AUDIO_FORMATS, VIDEO_FORMATS } from './registry-media.js';
import { DOCUMENT_FORMATS, PRESENTATION_FORMATS, SPREADSHEET_FORMATS } from './registry-office.js';
import { VECTOR_FORMATS } from './registry-vector.js';
import type { FormatDefinition } from './types.js';

const IMAGE_FORMATS: readonly FormatDefinition[] = [
  {
    name: 'jpg',
    family: 'image',
    label: 'JPEG image',
    aliases: ['jpeg', 'jpe', 'jfif'],
    extensions: ['jpg', 'jpeg', 'jpe', 'jfif'],
    // image/pjpeg is what old Internet Explorer sent for progressive JPEGs.
    mimeTypes: ['image/jpeg', 'image/pjpeg'],
    detectable: true,
  },
  {
    name: 'png',
    family: 'image',
    label: 'PNG image',
    // An animated PNG is still a PNG; engines that do not speak APNG read its first frame. Not
    // marked `animated` because no converter here writes APNG.
    aliases: ['apng'],
    extensions: ['png', 'apng'],
    mimeTypes: ['image/png', 'image/apng', 'image/x-png'],
    detectable: true,
  },
  {
    name: 'webp',
    family: 'image',
    label: 'WebP image',
    aliases: [],
    extensions: ['webp'],
    mimeTypes: ['image/webp'],
    detectable: true,
    animated: true,
  },
  {
    name: 'avif',
    family: 'image',
    label: 'AVIF image',
    aliases: [],
    extensions: ['avif'],
    mimeTypes: ['image/avif'],
    detectable: true,
  },
  {
    name: 'gif',
    family: 'image',
    label: 'GIF image',
    aliases: [],
    extensions: ['gif'],
    mimeTypes: ['image/gif'],
    detectable: true,
    animated: true,
  },
  {
    name: 'tiff',
    family: 'image',
    label: 'TIFF image',
    aliases: ['tif'],
    extensions: ['tiff', 'tif'],
    mimeTypes: ['image/tiff', 'image/x-tiff'],
    detectable: true,
  },
  {
    // HEVC-coded HEIF, what phones write. Kept apart from heif for its own extension and MIME type;
    // the two are content-compatible both ways (see detect.ts).
    name: 'heic',
    family: 'image',
    label: 'HEIC image',
    aliases: [],
    extensions: ['heic'],
    mimeTypes: ['image/heic', 'image/heic-sequence'],
    detectable: true,
  },
  {
    name: 'heif',
    family: 'image',
    label: 'HEIF image',
    // .hif is what Canon and Fujifilm cameras name their HEIF files.
    aliases: ['hif'],
    extensions: ['heif', 'hif'],
    mimeTypes: ['image/heif', 'image/heif-sequence'],
    detectable: true,
  },
  {
    name: 'svg',
    family: 'image',
    label: 'SVG image',
    // .svgz (gzipped SVG) is a format of its own (registry-vector.ts): its bytes are gzip, not SVG.
    aliases: [],
    extensions: ['svg'],
    mimeTypes: ['image/svg+xml'],
    detectable: true,
    vector: true,
  },
  {
    name: 'bmp',
    family: 'image',
    label: 'BMP image',
    aliases: ['dib'],
    extensions: ['bmp', 'dib'],
    mimeTypes: ['image/bmp', 'image/x-bmp', 'image/x-ms-bmp'],
    detectable: true,
  },
  {
    name: 'ico',
    family: 'image',
    label: 'Windows icon',
    aliases: [],
    extensions: ['ico'],
    // The IANA registration first; image/x-icon is what browsers and most servers use.
    mimeTypes: ['image/vnd.microsoft.icon', 'image/x-icon'],
    detectable: true,
  },
];

function deepFreeze(format: FormatDefinition): FormatDefinition {
  Object.freeze(format.aliases);
  Object.freeze(format.extensions);
  Object.freeze(format.mimeTypes);
  return Object.freeze(format);
}

/** Every registered format, grouped by family in FORMAT_FAMILIES order. Frozen: share it freely. */
export const FORMATS: readonly FormatDefinition[] = Object.freeze(
  [
    ...IMAGE_FORMATS,
    ...RASTER_FORMATS,
    ...VECTOR_FORMATS,
    ...VIDEO_FORMATS,
    ...AUDIO_FORMATS,
    ...DOCUMENT_FORMATS,
    ...SPREADSHEET_FORMATS,
    ...PRESENTATION_FORMATS,
    ...EBOOK_FORMATS,
    ...SUBTITLE_FORMATS,
    ...DATA_FORMATS,
    ...FONT_FORMATS,
    ...ARCHIVE_FORMATS,
  ].map(deepFreeze),
);
