/**
 * BMP and DIB headers: what the pixel decoder (bmp-decode.ts) and the icon reader (ico.ts) need
 * to know before touching a pixel. Every field read is bounds-checked, and every combination the
 * decoder does not handle is refused here, so a layout that parses is one that can be decoded.
 */
import { corrupt } from '../../kit/image/probe.js';

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

export const BI_RGB = 0;
export const BI_RLE8 = 1;
export const BI_RLE4 = 2;
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
