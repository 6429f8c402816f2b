/**
 * Recognises the raster formats file-type does not know (used by detect.ts): QOI, OpenEXR, DDS and
 * SGI by their magic numbers; netpbm (PAM too), XPM and Radiance HDR by their text headers (checked before the text
 * sniff, which would call them text); PCX and TGA, which have no magic number, by a strict check of
 * their fixed header fields, the way `file` and every reader of them decide.
 */
import type { FormatName } from './types.js';

const ascii = (head: Uint8Array, start: number, end: number) =>
  String.fromCharCode(...head.subarray(start, Math.min(end, head.length)));

/** A netpbm header: magic, then width and height, with comments and any whitespace between. */
const NETPBM_HEADER = /^P([1-6])(?:\s+|#[^\n]*\n)+\d+(?:\s+|#[^\n]*\n)+\d+\s/;
const NETPBM_KIND: Readonly<Record<string, FormatName>> = {
  '1': 'pbm',
  '4': 'pbm',
  '2': 'pgm',
  '5': 'pgm',
  '3': 'ppm',
  '6': 'ppm',
};

/** Formats whose header is (partly) text: to be checked before the text sniff. */
export function sniffRasterText(head: Uint8Array): FormatName | undefined {
  const start = ascii(head, 0, 512);
  const netpbm = NETPBM_HEADER.exec(start);
  if (netpbm) {
    // The plain (ASCII) variants hold only digits and whitespace after the header.
    const plain = netpbm[1] === '1' || netpbm[1] === '2' || netpbm[1] === '3';
    if (!plain || /^[\d\s]*$/.test(start.slice(netpbm[0].length))) return NETPBM_KIND[netpbm[1] ?? ''];
  }
  if (/^#\?(?:RADIANCE|RGBE)\n/.test(start)) return 'hdr';
  // PAM: 'P7' and its header lines, which name at least the width and height.
  if (/^P7\n/.test(start) && /\nWIDTH \d+/.test(start) && /\nHEIGHT \d+/.test(start)) return 'pam';
  // XPM 3: the '/* XPM */' comment, then C source declaring a string array.
  if (/^\/\* XPM \*\/\s/.test(start) && /static\s+(?:const\s+)?char\s*\*/.test(start)) return 'xpm';
  return undefined;
}

/** QOI, OpenEXR, DDS, PCX and TGA from their leading bytes. */
export function sniffRasterBinary(head: Uint8Array): FormatName | undefined {
  const magic = ascii(head, 0, 4);
  if (magic === 'qoif' && head.length >= 14 && (head[12] === 3 || head[12] === 4) && (head[13] ?? 2) <= 1)
    return 'qoi';
  if (head[0] === 0x76 && head[1] === 0x2f && head[2] === 0x31 && head[3] === 0x01) return 'exr';
  // 'DDS ' and the header size, which the format fixes at 124.
  if (magic === 'DDS ' && head[4] === 124 && head[5] === 0 && head[6] === 0 && head[7] === 0) return 'dds';
  if (isSgi(head)) return 'sgi';
  if (isPcx(head)) return 'pcx';
  if (isTga(head)) return 'tga';
  return undefined;
}

const u16be = (head: Uint8Array, at: number) => ((head[at] ?? 0) << 8) | (head[at + 1] ?? 0);

/** SGI: magic 474 (01 DA), storage verbatim or RLE, 1 or 2 bytes a sample, 1 to 3 dimensions. */
export function isSgi(head: Uint8Array): boolean {
  return (
    head.length >= 512 &&
    u16be(head, 0) === 474 &&
    (head[2] === 0 || head[2] === 1) &&
    (head[3] === 1 || head[3] === 2) &&
    u16be(head, 4) >= 1 &&
    u16be(head, 4) <= 3
  );
}

const u16le = (head: Uint8Array, at: number) => (head[at] ?? 0) | ((head[at + 1] ?? 0) << 8);

/** ZSoft PCX: manufacturer 10, a known version, RLE encoding 1, and a sane bit depth and window. */
export function isPcx(head: Uint8Array): boolean {
  if (head.length < 128 || head[0] !== 0x0a || head[2] !== 1) return false;
  if (![0, 2, 3, 4, 5].includes(head[1] ?? -1) || ![1, 2, 4, 8].includes(head[3] ?? -1)) return false;
  const planes = head[65] ?? 0;
  return planes >= 1 && planes <= 4 && u16le(head, 8) >= u16le(head, 4) && u16le(head, 10) >= u16le(head, 6);
}

const TGA_COLOUR_MAPPED = new Set([1, 9]);
const TGA_TRUE_COLOUR = new Set([2, 10]);
const TGA_GREY = new Set([3, 11]);

/**
 * Truevision TGA: no signature, so every field of the 18-byte header must make sense together:
 * the image type, a colour map present exactly when the type uses one (and all-zero otherwise),
 * a pixel depth the type allows, a non-empty size and no reserved descriptor bits.
 */
export function isTga(head: Uint8Array): boolean {
  if (head.length < 19) return false;
  const [, mapType = -1, type = -1] = head;
  const depth = head[16] ?? 0;
  const descriptor = head[17] ?? 0xff;
  if (u16le(head, 12) === 0 || u16le(head, 14) === 0 || (descriptor & 0xc0) !== 0) return false;
  if (TGA_COLOUR_MAPPED.has(type)) {
    return mapType === 1 && [15, 16, 24, 32].includes(head[7] ?? 0) && (depth === 8 || depth === 16);
  }
  const noMap = mapType === 0 && head.subarray(3, 8).every((byte) => byte === 0);
  if (TGA_TRUE_COLOUR.has(type)) return noMap && [15, 16, 24, 32].includes(depth);
  if (TGA_GREY.has(type)) return noMap && (depth === 8 || depth === 16);
  return false;
}
