/**
 * BMP (and the DIB inside ICO entries) decoding to RGBA, written here because no maintained npm
 * decoder got the common variants right: measured against ImageMagick on the same files, bmp-ts
 * 1.0.9 garbles RLE8/RLE4, stops after the first row of odd-width 4-bit images and ignores the
 * pixel-data offset, @cwasm/nsbmp fails on RLE, fast-bmp has no RLE, 4/16-bit or top-down.
 *
 * Covers header versions core (OS/2 1.x), 3, 4, 5 and OS/2 2.x without its own compressions;
 * 1/4/8-bit palettes, 16/24/32-bit, BI_BITFIELDS and BI_ALPHABITFIELDS masks, RLE8 and RLE4,
 * bottom-up and top-down rows. The header is read and checked (pixel limit, data length) before
 * any pixel buffer is allocated, and every read is bounds-checked: a lying file is CORRUPT_INPUT.
 */

import { corrupt, pixelLimitError } from '../../kit/image/probe.js';
import { BI_RGB, BI_RLE4, BI_RLE8, type BmpLayout, rowStride } from './bmp-header.js';

export interface RawImage {
  width: number;
  height: number;
  /** 4 channels, 8 bits each, row-major, top row first. */
  data: Buffer;
}

/** Extracts a channel under `mask` and scales it to 8 bits. */
function channelReader(mask: number): (pixel: number) => number {
  if (mask === 0) return () => 0;
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  const max = mask >>> shift; // not necessarily contiguous; then this is merely a scale
  if (max === 255) return (pixel) => (pixel >>> shift) & 255;
  return (pixel) => Math.round((((pixel & mask) >>> 0) >>> shift) * (255 / max));
}

/**
 * Decodes the pixels of `layout` to RGBA. Refuses images above `maxPixels` before allocating, and
 * pixel data shorter than the size demands (an uncompressed file cut short, an RLE stream that
 * ends before its last row).
 */
export function decodeDib(bytes: Buffer, layout: BmpLayout, maxPixels: number): RawImage {
  const { width, height, bitsPerPixel, compression } = layout;
  if (width * height > maxPixels) throw pixelLimitError(width, height, 1, maxPixels);
  const rle = compression === BI_RLE8 || compression === BI_RLE4;
  const stride = rowStride(width, bitsPerPixel);
  if (
    !rle &&
    layout.pixelOffset + stride * (height - 1) + Math.ceil((width * bitsPerPixel) / 8) > bytes.length
  ) {
    throw corrupt('The BMP pixel data is truncated');
  }
  const data = Buffer.alloc(width * height * 4);
  if (rle) decodeRle(bytes, layout, data);
  else if (bitsPerPixel <= 8) decodeIndexed(bytes, layout, data, stride);
  else decodeDirect(bytes, layout, data, stride);
  if (layout.iconDib) applyAndMask(bytes, layout, data, stride);
  return { width, height, data };
}

/** Writes palette entry `index` (black when the index is past the palette, as browsers do). */
function putIndexed(data: Buffer, at: number, layout: BmpLayout, index: number): void {
  const entry = index * layout.paletteEntrySize;
  if (entry + 3 <= layout.palette.length) {
    data[at] = layout.palette[entry + 2]!;
    data[at + 1] = layout.palette[entry + 1]!;
    data[at + 2] = layout.palette[entry]!;
  }
  data[at + 3] = 255;
}

const destinationRow = (layout: BmpLayout, fileRow: number) =>
  layout.topDown ? fileRow : layout.height - 1 - fileRow;

function decodeIndexed(bytes: Buffer, layout: BmpLayout, data: Buffer, stride: number): void {
  const { width, bitsPerPixel: bits } = layout;
  const perByte = 8 / bits;
  const mask = (1 << bits) - 1;
  for (let row = 0; row < layout.height; row++) {
    const source = layout.pixelOffset + row * stride;
    let at = destinationRow(layout, row) * width * 4;
    for (let x = 0; x < width; x++, at += 4) {
      const byte = bytes[source + Math.floor(x / perByte)]!;
      const index = (byte >> (8 - bits * ((x % perByte) + 1))) & mask;
      putIndexed(data, at, layout, index);
    }
  }
}

function decodeDirect(bytes: Buffer, layout: BmpLayout, data: Buffer, stride: number): void {
  const { width, bitsPerPixel } = layout;
  const [r, g, b, a] = layout.masks.map(channelReader) as [
    (p: number) => number,
    (p: number) => number,
    (p: number) => number,
    (p: number) => number,
  ];
  const hasAlphaMask = layout.masks[3] !== 0;
  // 32-bit BI_RGB: the fourth byte is officially unused, yet many writers (and every ICO) store
  // alpha there. As browsers do: use it, unless it is zero everywhere (then the image is opaque).
  const maybeAlpha = bitsPerPixel === 32 && layout.compression === BI_RGB && !hasAlphaMask;
  let anyAlpha = false;
  for (let row = 0; row < layout.height; row++) {
    let source = layout.pixelOffset + row * stride;
    let at = destinationRow(layout, row) * width * 4;
    for (let x = 0; x < width; x++, at += 4) {
      if (bitsPerPixel === 24) {
        data[at] = bytes[source + 2]!;
        data[at + 1] = bytes[source + 1]!;
        data[at + 2] = bytes[source]!;
        data[at + 3] = 255;
        source += 3;
        continue;
      }
      const pixel = bitsPerPixel === 16 ? bytes.readUInt16LE(source) : bytes.readUInt32LE(source);
      source += bitsPerPixel / 8;
      data[at] = r(pixel);
      data[at + 1] = g(pixel);
      data[at + 2] = b(pixel);
      if (maybeAlpha) {
        data[at + 3] = pixel >>> 24;
        anyAlpha ||= pixel >>> 24 !== 0;
      } else data[at + 3] = hasAlphaMask ? a(pixel) : 255;
    }
  }
  if (maybeAlpha && !anyAlpha) for (let at = 3; at < data.length; at += 4) data[at] = 255;
}

/**
 * RLE8/RLE4: runs, absolute blocks, end-of-line, delta and end-of-bitmap codes, always bottom-up.
 * Each step consumes at least two input bytes and writes at most 255 pixels, so the work is linear
 * in the input; pixels a delta skips stay transparent (as in browsers). Runs past the row's end are
 * clipped; a stream that ends before the last row is truncated.
 */
function decodeRle(bytes: Buffer, layout: BmpLayout, data: Buffer): void {
  const { width, height } = layout;
  const four = layout.compression === BI_RLE4;
  let pos = layout.pixelOffset;
  let x = 0;
  let y = 0; // rows from the bottom
  const put = (index: number) => {
    if (x < width && y < height) putIndexed(data, ((height - 1 - y) * width + x) * 4, layout, index);
    x++;
  };
  while (y < height) {
    if (pos + 2 > bytes.length) throw corrupt('The BMP RLE data is truncated');
    const count = bytes[pos]!;
    const value = bytes[pos + 1]!;
    pos += 2;
    if (count > 0) {
      for (let i = 0; i < count; i++) put(four ? (i % 2 === 0 ? value >> 4 : value & 15) : value);
    } else if (value === 0) {
      x = 0;
      y++;
    } else if (value === 1) {
      return;
    } else if (value === 2) {
      if (pos + 2 > bytes.length) throw corrupt('The BMP RLE data is truncated');
      x += bytes[pos]!;
      y += bytes[pos + 1]!;
      pos += 2;
    } else {
      const length = four ? Math.ceil(value / 2) : value;
      if (pos + length > bytes.length) throw corrupt('The BMP RLE data is truncated');
      for (let i = 0; i < value; i++) {
        const byte = bytes[pos + (four ? i >> 1 : i)]!;
        put(four ? (i % 2 === 0 ? byte >> 4 : byte & 15) : byte);
      }
      pos += length + (length % 2); // absolute blocks are padded to 16 bits
    }
  }
}

/**
 * An icon's AND mask (1 bit a pixel, after the colour data) marks transparent pixels. 32-bit
 * entries carry alpha already; the mask only matters when their alpha is zero everywhere.
 */
function applyAndMask(bytes: Buffer, layout: BmpLayout, data: Buffer, stride: number): void {
  const { width, height } = layout;
  const maskStride = rowStride(width, 1);
  const start = layout.pixelOffset + stride * height;
  if (layout.bitsPerPixel === 32) {
    let anyAlpha = false;
    for (let at = 3; at < data.length && !anyAlpha; at += 4) anyAlpha = data[at] !== 255;
    if (anyAlpha || start + maskStride * height > bytes.length) return;
  } else if (start + maskStride * height > bytes.length) {
    throw corrupt('The icon mask is truncated');
  }
  for (let row = 0; row < height; row++) {
    const source = start + row * maskStride;
    const rowStart = (height - 1 - row) * width * 4;
    for (let x = 0; x < width; x++) {
      if ((bytes[source + (x >> 3)]! >> (7 - (x & 7))) & 1) data[rowStart + x * 4 + 3] = 0;
    }
  }
}
