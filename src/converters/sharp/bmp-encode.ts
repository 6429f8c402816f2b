/**
 * BMP encoding from RGBA: uncompressed, bottom-up, 24-bit when every pixel is opaque and 32-bit
 * otherwise. The 32-bit form uses a v4 header with BI_BITFIELDS and an explicit alpha mask, which
 * is what browsers, GIMP, ImageMagick and Windows read as transparency (a 40-byte header's 32-bit
 * BI_RGB leaves the fourth byte "unused", and many readers then drop the alpha).
 */
import { FileconvError } from '../../core/errors.js';
import { rowStride } from './bmp-header.js';

const FILE_HEADER_SIZE = 14;
const INFO_HEADER_SIZE = 40;
const V4_HEADER_SIZE = 108;
const BI_RGB = 0;
const BI_BITFIELDS = 3;
/** 'sRGB' as a little-endian u32: the v4 header's colour space field. */
const LCS_SRGB = 0x73524742;
/** 72 dpi in pixels per metre, the customary default. */
const PIXELS_PER_METRE = 2835;

/** Whether any pixel of an RGBA buffer is not fully opaque. */
export function hasTransparency(rgba: Uint8Array): boolean {
  for (let at = 3; at < rgba.length; at += 4) if (rgba[at] !== 255) return true;
  return false;
}

/** Encodes `rgba` (width x height, 4 channels, top row first) as a BMP file. */
export function encodeBmp(width: number, height: number, rgba: Uint8Array): Buffer {
  const alpha = hasTransparency(rgba);
  const bitsPerPixel = alpha ? 32 : 24;
  const headerSize = alpha ? V4_HEADER_SIZE : INFO_HEADER_SIZE;
  const stride = rowStride(width, bitsPerPixel);
  const pixelOffset = FILE_HEADER_SIZE + headerSize;
  const fileSize = pixelOffset + stride * height;
  // The size fields are 32-bit; the pixel limit keeps real outputs far below this.
  if (fileSize > 0xffffffff) {
    throw new FileconvError('INPUT_LIMIT_EXCEEDED', `A ${width}x${height} image is too large for BMP`);
  }
  const out = Buffer.alloc(fileSize); // zero-filled: row padding stays zero

  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(fileSize, 2);
  out.writeUInt32LE(pixelOffset, 10);
  out.writeUInt32LE(headerSize, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22); // positive: bottom-up, the form every reader knows
  out.writeUInt16LE(1, 26); // planes
  out.writeUInt16LE(bitsPerPixel, 28);
  out.writeUInt32LE(alpha ? BI_BITFIELDS : BI_RGB, 30);
  out.writeUInt32LE(stride * height, 34);
  out.writeInt32LE(PIXELS_PER_METRE, 38);
  out.writeInt32LE(PIXELS_PER_METRE, 42);
  if (alpha) {
    out.writeUInt32LE(0x00ff0000, 54);
    out.writeUInt32LE(0x0000ff00, 58);
    out.writeUInt32LE(0x000000ff, 62);
    out.writeUInt32LE(0xff000000, 66);
    out.writeUInt32LE(LCS_SRGB, 70);
  }

  for (let y = 0; y < height; y++) {
    let at = pixelOffset + (height - 1 - y) * stride;
    let from = y * width * 4;
    for (let x = 0; x < width; x++, from += 4) {
      out[at++] = rgba[from + 2]!;
      out[at++] = rgba[from + 1]!;
      out[at++] = rgba[from]!;
      if (alpha) out[at++] = rgba[from + 3]!;
    }
  }
  return out;
}
