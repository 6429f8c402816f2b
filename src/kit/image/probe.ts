/**
 * Looks at an input image BEFORE any pixel is decoded and refuses what must not be decoded:
 * empty files, SVG that reaches outside itself, formats outside the supported set, and images
 * above the pixel limit. Dimensions come from sharp's metadata(), which reads headers only, so a
 * PNG claiming 50000x50000 is refused in milliseconds without allocating its pixels.
 */
import { open, readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { FileconvError } from '../../core/errors.js';
import { assertNotEmpty } from '../../core/file-size.js';
import type { FormatName } from '../../core/formats/types.js';
import type { SharpFactory } from '../libraries/sharp.js';
import { mapSharpError } from './sharp-errors.js';
import { assertSafeSvg } from './svg-safety.js';

const gunzipAsync = promisify(gunzip);

/** Largest SVG (after gzip decompression) the probe reads into memory. */
const MAX_SVG_BYTES = 64 * 1024 * 1024;
/** sharp metadata().format values this converter decodes; anything else libvips knows is refused. */
const READABLE_FORMATS = new Set(['jpeg', 'png', 'webp', 'heif', 'gif', 'tiff', 'svg']);
/** XML encodings whose bytes keep ASCII as ASCII, so the SVG scan sees every reference. */
const ASCII_COMPATIBLE = /^(?:utf-?8|us-ascii|ascii|iso-8859-\d+|latin-?1|windows-125\d)$/i;

export interface ProbedImage {
  /** What to hand sharp: the file path, or the vetted SVG bytes. */
  input: string | Buffer;
  /** sharp's name for the container: 'jpeg', 'png', 'webp', 'heif', 'gif', 'tiff', 'svg'. */
  format: string;
  width: number;
  /** Height of one frame. */
  height: number;
  /** Frames (animated GIF/WebP) or pages; 1 for a still image. */
  pages: number;
  /** HEVC-coded HEIF: libvips cannot decode it, heic-decode must. */
  hevc: boolean;
  /** EXIF orientation, 1..8 (5..8 swap width and height once applied). */
  orientation: number;
  /** The resolution the file records, pixels per inch (a scan's 300), when it records one. */
  density?: number | undefined;
}

export function corrupt(message: string, cause?: unknown): FileconvError {
  return new FileconvError('CORRUPT_INPUT', message, cause === undefined ? {} : { cause });
}

/** INPUT_LIMIT_EXCEEDED for an image (or, with `subject`, an output) above the pixel limit. */
export function pixelLimitError(
  width: number,
  height: number,
  frames: number,
  maxPixels: number,
  subject = 'The image is',
): FileconvError {
  const size = frames > 1 ? `${frames} frames of ${width}x${height}` : `${width}x${height}`;
  return new FileconvError(
    'INPUT_LIMIT_EXCEEDED',
    `${subject} ${size} pixels; the limit is ${maxPixels} pixels`,
    {
      details: { width, height, frames, maxPixels },
    },
  );
}

async function readHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(bytes), 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function isGzip(head: Buffer): boolean {
  return head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * Whether the bytes start with the signature of a raster format libvips decodes. Such files are
 * picked by their own loader, never by the SVG one; everything else (text, gzip, unknown bytes)
 * goes through the SVG scan first, because libvips sniffs "<svg" anywhere near the start and
 * inflates gzip to look for it, and librsvg would resolve entities while merely reading a header.
 */
function hasRasterSignature(head: Buffer): boolean {
  const ascii = head.toString('latin1', 0, 12);
  return (
    head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) || // PNG
    (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) || // JPEG
    ascii.startsWith('GIF87a') ||
    ascii.startsWith('GIF89a') ||
    (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') ||
    ascii.startsWith('II*\0') ||
    ascii.startsWith('MM\0*') ||
    ascii.startsWith('II+\0') || // BigTIFF
    ascii.startsWith('MM\0+') ||
    ascii.slice(4, 8) === 'ftyp' // ISO-BMFF: HEIF, HEIC, AVIF
  );
}

/** Reads, inflates (svgz) and vets an SVG, returning the bytes that are safe to render. */
async function readSafeSvg(path: string, size: number): Promise<Buffer> {
  if (size > MAX_SVG_BYTES)
    throw new FileconvError('INPUT_LIMIT_EXCEEDED', `The SVG is larger than ${MAX_SVG_BYTES} bytes`);
  let bytes = await readFile(path);
  if (isGzip(bytes)) {
    bytes = await gunzipAsync(bytes, { maxOutputLength: MAX_SVG_BYTES }).catch((error: unknown) => {
      if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new FileconvError(
          'INPUT_LIMIT_EXCEEDED',
          `The SVG inflates to more than ${MAX_SVG_BYTES} bytes`,
          {
            cause: error,
          },
        );
      }
      throw corrupt('The compressed SVG could not be inflated', error);
    });
  }
  // NUL bytes mean UTF-16/32 or binary data (garbage lands here too): neither is a usable SVG.
  if (bytes.includes(0)) throw corrupt('The input is neither a supported image nor SVG text');
  // latin1 maps every byte to one character, so the scan sees all ASCII and the bytes round-trip.
  const text = bytes.toString('latin1');
  const encoding = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']/i.exec(text)?.[1];
  if (encoding !== undefined && !ASCII_COMPATIBLE.test(encoding)) {
    throw new FileconvError(
      'UNSAFE_INPUT',
      `SVG input refused: unsupported encoding ${encoding.slice(0, 40)}`,
    );
  }
  return Buffer.from(assertSafeSvg(text), 'latin1');
}

/** Probes the input at `path`, declared as `from`. Throws a FileconvError for anything refused. */
export async function probeImage(
  sharp: SharpFactory,
  path: string,
  from: FormatName,
  maxPixels: number,
): Promise<ProbedImage> {
  const info = await stat(path).catch((error: unknown) => {
    throw new FileconvError('INTERNAL', 'The conversion input file is missing', { cause: error });
  });
  assertNotEmpty(info.size);

  const head = await readHead(path, 4096);
  const vetted = from === 'svg' || !hasRasterSignature(head) ? await readSafeSvg(path, info.size) : undefined;
  const input = vetted ?? path;

  // No pixel limit here: metadata() reads headers only, and the check below reports the size.
  const meta = await sharp(input, { limitInputPixels: false })
    .metadata()
    .catch((error: unknown) => {
      const mapped = mapSharpError(error);
      // Whatever stops the header from being read is a problem of the input.
      throw mapped.code === 'CONVERSION_FAILED' ? corrupt(mapped.message, error) : mapped;
    });

  const format = meta.format ?? 'unknown';
  if (format === 'svg' && vetted === undefined) {
    // Unreachable while raster signatures exclude SVG; kept as the last line of defence.
    throw new FileconvError('UNSAFE_INPUT', 'SVG input refused: it was not vetted');
  }
  if (!READABLE_FORMATS.has(format)) throw corrupt(`Unsupported image data (${format})`);
  let { width, height } = meta;
  if (!width || !height) throw corrupt('The image header has no dimensions');
  if (format === 'gif' && head.length >= 10) {
    // A GIF's frames are painted onto its logical screen: that is the picture a viewer shows
    // and what converting every frame works through. libvips reports the frame size, which a
    // frame bomb keeps at one pixel under a 4000x4000 screen; the limits go by the larger.
    // (libvips's GIF decoder, libnsgif, takes a screen over 2048 px, or exactly a common
    // display size such as 1024x768, for an authoring mistake and renders at the frames'
    // extent instead, as NetSurf does: such a GIF within the limits converts at that size.)
    width = Math.max(width, head.readUInt16LE(6));
    height = Math.max(height, head.readUInt16LE(8));
  }
  if (width * height > maxPixels) throw pixelLimitError(width, height, 1, maxPixels);

  return {
    input,
    format,
    width,
    height,
    pages: meta.pages ?? 1,
    hevc: format === 'heif' && meta.compression === 'hevc',
    orientation: meta.orientation ?? 1,
    density: meta.density,
  };
}
