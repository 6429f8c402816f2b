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
import { corrupt, pixelLimitError } from './probe.js';

export interface RawImage {
  width: number;
  height: number;
  /** 4 channels, 8 bits each, row-major, top row first. */
  data: Buffer;
}

/** What the headers say; `pixelOffset` is where the pixel data starts in the buffer. */
export interface BmpLayout {
  width: number;
  height: number;
  topDown: boolean;
  bitsPerPixel: number;
  compression: number;
  /** r, g, b, a channel masks (16/32-bit only). */
  masks: [number, number, number, number];
  /** BGR(x) entries, `paletteEntrySize` bytes each (1..8-bit only). */
  palette: Buffer;
  paletteEntrySize: number;
  pixelOffset: number;
  /** Whether a 32-bit BI_RGB image's fourth byte is alpha (ICO), or only maybe (BMP, see decode). */
  iconDib: boolean;
}

const BI_RGB = 0;
const BI_RLE8 = 1;
const BI_RLE4 = 2;
const BI_BITFIELDS = 3;
const BI_ALPHABITFIELDS = 6;
/** DIB header sizes: OS/2 1.x core, Windows 3 (40), the two Adobe extensions, OS/2 2.x, v4, v5. */
const HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);
const FILE_HEADER_SIZE = 14;

function u16(bytes: Buffer, at: number): number {
  if (at + 2 > bytes.length) throw corrupt('The BMP header is truncated');
  return bytes.readUInt16LE(at);
}
function u32(bytes: Buffer, at: number): number {
  if (at + 4 > bytes.length) throw corrupt('The BMP header is truncated');
  return bytes.readUInt32LE(at);
}
function i32(bytes: Buffer, at: number): number {
  if (at + 4 > bytes.length) throw corrupt('The BMP header is truncated');
  return bytes.readInt32LE(at);
}

/**
 * Parses the DIB header at `at`. `pixelOffset` is given for files (bfOffBits); inside an icon the
 * pixels follow the palette, and the height counts the XOR image and the AND mask together.
 */
export function parseDib(bytes: Buffer, at: number, pixelOffset: number | undefined): BmpLayout {
  const iconDib = pixelOffset === undefined;
  const headerSize = u32(bytes, at);
  if (!HEADER_SIZES.has(headerSize)) throw corrupt(`Unsupported BMP header size ${headerSize}`);
  const core = headerSize === 12;
  const width = core ? u16(bytes, at + 4) : i32(bytes, at + 4);
  let height = core ? u16(bytes, at + 6) : i32(bytes, at + 8);
  const bitsPerPixel = u16(bytes, at + (core ? 10 : 14));
  const compression = core ? BI_RGB : u32(bytes, at + 16);
  const topDown = height < 0;
  height = Math.abs(height);
  if (iconDib) height = Math.floor(height / 2);
  if (width <= 0 || height <= 0) throw corrupt(`The BMP header has no valid size (${width}x${height})`);
  if (![1, 4, 8, 16, 24, 32].includes(bitsPerPixel)) throw corrupt(`Unsupported BMP depth ${bitsPerPixel}`);
  const valid =
    compression === BI_RGB ||
    (compression === BI_RLE8 && bitsPerPixel === 8) ||
    (compression === BI_RLE4 && bitsPerPixel === 4) ||
    ((compression === BI_BITFIELDS || compression === BI_ALPHABITFIELDS) &&
      (bitsPerPixel === 16 || bitsPerPixel === 32) &&
      headerSize !== 64); // OS/2 2.x uses 3 and 6 for Huffman and RLE24, which nobody writes
  if (!valid) throw corrupt(`Unsupported BMP compression ${compression} at ${bitsPerPixel} bits`);
  if (topDown && (compression === BI_RLE8 || compression === BI_RLE4 || iconDib)) {
    throw corrupt('A compressed BMP cannot be top-down');
  }

  let cursor = at + headerSize;
  let masks: [number, number, number, number] =
    bitsPerPixel === 16 ? [0x7c00, 0x03e0, 0x001f, 0] : [0xff0000, 0xff00, 0xff, 0];
  if (compression === BI_BITFIELDS || compression === BI_ALPHABITFIELDS) {
    // v2+ headers hold the masks; a v3 (40-byte) header is followed by them.
    const inHeader = headerSize >= 52;
    const base = inHeader ? at + 40 : cursor;
    const hasAlpha = compression === BI_ALPHABITFIELDS || headerSize >= 56;
    masks = [
      u32(bytes, base),
      u32(bytes, base + 4),
      u32(bytes, base + 8),
      hasAlpha ? u32(bytes, base + 12) : 0,
    ];
    if (!inHeader) cursor += hasAlpha ? 16 : 12;
  } else if (bitsPerPixel === 32 && headerSize >= 56) {
    // BI_RGB: the header's masks do not apply, but a v4/v5 alpha mask is honoured by browsers.
    masks[3] = u32(bytes, at + 52) === 0xff000000 ? 0xff000000 : 0;
  }

  const paletteEntrySize = core ? 3 : 4;
  let colours = 0;
  if (bitsPerPixel <= 8) {
    const used = core ? 0 : u32(bytes, at + 32);
    colours = used === 0 || used > 1 << bitsPerPixel ? 1 << bitsPerPixel : used;
  }
  const paletteEnd = cursor + colours * paletteEntrySize;
  if (paletteEnd > bytes.length) throw corrupt('The BMP palette is truncated');
  const palette = bytes.subarray(cursor, paletteEnd);
  const offset = pixelOffset ?? paletteEnd;
  if (offset < at + headerSize || offset > bytes.length)
    throw corrupt('The BMP pixel data offset is invalid');
  return {
    width,
    height,
    topDown,
    bitsPerPixel,
    compression,
    masks,
    palette,
    paletteEntrySize,
    pixelOffset: offset,
    iconDib,
  };
}

/** Parses a BMP file's headers ('BM', then the DIB header). */
export function parseBmp(bytes: Buffer): BmpLayout {
  if (bytes.length < FILE_HEADER_SIZE || bytes.toString('latin1', 0, 2) !== 'BM') {
    throw corrupt('The input is not a BMP file');
  }
  return parseDib(bytes, FILE_HEADER_SIZE, u32(bytes, 10));
}

/** Bytes per stored row: rows are padded to 4 bytes. */
export const rowStride = (width: number, bitsPerPixel: number) => Math.ceil((width * bitsPerPixel) / 32) * 4;

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
