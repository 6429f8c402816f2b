/**
 * BMP and ICO in the sharp converter. libvips (as prebuilt for sharp) reads and writes neither,
 * so inputs are decoded here to RGBA (or, for PNG-compressed icon entries, handed to sharp as the
 * PNG they are) and outputs are rendered by sharp to RGBA and packed here.
 *
 * Inputs are recognised by their bytes, not their declared format, like every other input of the
 * converter. Sizes are checked from the headers before any pixel buffer exists.
 */
import { open, readFile, writeFile } from 'node:fs/promises';
import type { Sharp, SharpOptions } from 'sharp';
import { corrupt, pixelLimitError } from '../../kit/image/probe.js';
import type { SharpFactory } from '../../kit/libraries/sharp.js';
import { decodeDib } from './bmp-decode.js';
import { encodeBmp } from './bmp-encode.js';
import { parseBmp } from './bmp-header.js';
import { isIco, largestEntry, readIcoEntries, writeIco } from './ico.js';
import type { ImageOptions } from './image-options.js';

/** What to pass to sharp() for a decoded bitmap. */
export interface SharpSource {
  input: Buffer;
  /** Set for decoded pixels (4 channels); absent for encoded data sharp reads itself (icon PNG). */
  raw?: NonNullable<SharpOptions['raw']>;
}

export interface BitmapInput {
  format: 'bmp' | 'ico';
  width: number;
  height: number;
  /** Decodes the pixels; call only once the output size has been checked too. */
  decode(): SharpSource;
}

/** Icon sizes written when the caller names none (each kept only up to the source's size). */
export const DEFAULT_ICO_SIZES = [16, 32, 48, 256] as const;

async function readSignature(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(6), 0, 6, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Opens a BMP or ICO input and checks its size against `maxPixels`; undefined when the file is
 * neither (the general probe takes it from there).
 */
export async function probeBitmap(path: string, maxPixels: number): Promise<BitmapInput | undefined> {
  const head = await readSignature(path);
  const bmp = head.toString('latin1', 0, 2) === 'BM';
  if (!bmp && !isIco(head)) return undefined;
  const bytes = await readFile(path);

  if (bmp) {
    const layout = parseBmp(bytes);
    if (layout.width * layout.height > maxPixels)
      throw pixelLimitError(layout.width, layout.height, 1, maxPixels);
    return {
      format: 'bmp',
      width: layout.width,
      height: layout.height,
      decode: () => raw(decodeDib(bytes, layout, maxPixels)),
    };
  }

  const entry = largestEntry(readIcoEntries(bytes));
  if (entry.width === 0 || entry.height === 0) throw corrupt('An icon entry has no size');
  if (entry.width * entry.height > maxPixels) throw pixelLimitError(entry.width, entry.height, 1, maxPixels);
  return {
    format: 'ico',
    width: entry.width,
    height: entry.height,
    decode: () =>
      entry.kind === 'png' ? { input: entry.bytes } : raw(decodeDib(entry.bytes, entry.layout, maxPixels)),
  };
}

function raw(image: { width: number; height: number; data: Buffer }): SharpSource {
  return { input: image.data, raw: { width: image.width, height: image.height, channels: 4 } };
}

/** The final pixels of a pipeline as 8-bit sRGB with alpha, whatever the source's space and depth. */
async function renderRgba(pipeline: Sharp) {
  const { data, info } = await pipeline
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw corrupt(`Unexpected ${info.channels}-channel output from the image engine`);
  return { data, width: info.width, height: info.height };
}

/**
 * Which icon sizes to write: the caller's list as given, or the default sizes that do not exceed
 * the image's longer side (upscaling adds no detail), keeping at least the smallest.
 */
export function iconSizes(requested: readonly number[] | undefined, width: number, height: number): number[] {
  if (requested) return [...requested].sort((a, b) => a - b);
  const fitting = DEFAULT_ICO_SIZES.filter((size) => size <= Math.max(width, height));
  return fitting.length > 0 ? fitting : [DEFAULT_ICO_SIZES[0]];
}

/** Renders `pipeline` and writes it to `path` as BMP or ICO. */
export async function writeBitmap(
  sharp: SharpFactory,
  pipeline: Sharp,
  to: 'bmp' | 'ico',
  options: ImageOptions,
  path: string,
): Promise<void> {
  const image = await renderRgba(pipeline);
  if (to === 'bmp') {
    await writeFile(path, encodeBmp(image.width, image.height, image.data));
    return;
  }
  const source = { raw: { width: image.width, height: image.height, channels: 4 as const } };
  const background = options.background ?? { r: 0, g: 0, b: 0, alpha: 0 };
  const entries = await Promise.all(
    iconSizes(options.sizes, image.width, image.height).map(async (size) => ({
      size,
      // Square, the whole picture visible: the form every icon consumer expects.
      png: await sharp(image.data, source)
        .resize(size, size, { fit: 'contain', background })
        .png()
        .toBuffer(),
    })),
  );
  await writeFile(path, writeIco(entries));
}
