/**
 * The pixel size every raster input claims in its header, read before any tool decodes it: a TGA,
 * PSD or DNG claiming 100,000 x 100,000 pixels is refused here in microseconds, rather than by an
 * engine that first allocates for it. Each reader follows its format's specification for the few
 * fields it needs; a header too short or malformed to give a size is CORRUPT_INPUT.
 */

import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { FileconvError } from '../../core/errors.js';
import { isPcx, isSgi, isTga } from '../../core/formats/detect-raster.js';
import type { FormatName } from '../../core/formats/types.js';

export interface PixelSize {
  width: number;
  height: number;
}

/** Bytes read for every header here but TIFF's, whose directories can sit anywhere. */
const HEAD_BYTES = 64 * 1024;

function corruptHeader(format: FormatName, why: string): FileconvError {
  return new FileconvError('CORRUPT_INPUT', `The ${format} header is damaged: ${why}`);
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const { buffer, bytesRead } = await handle.read(Buffer.alloc(length), 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/** The size `path` claims as `format`; CORRUPT_INPUT when the header cannot say. */
export async function readPixelSize(path: string, format: FormatName): Promise<PixelSize> {
  const handle = await open(path, 'r');
  try {
    if (format === 'dng' || format === 'tiff') return await tiffSize(handle, format);
    const head = await readAt(handle, 0, HEAD_BYTES);
    const size = HEADER_READERS[format]?.(head);
    if (size === undefined) throw corruptHeader(format, 'no image size could be read from it');
    if (!(size.width > 0 && size.height > 0)) {
      throw corruptHeader(format, `it claims ${size.width}x${size.height} pixels`);
    }
    return size;
  } finally {
    await handle.close();
  }
}

type HeaderReader = (head: Buffer) => PixelSize | undefined;

const need = (head: Buffer, bytes: number) => head.length >= bytes;

const HEADER_READERS: Readonly<Record<FormatName, HeaderReader>> = {
  png: (head) =>
    need(head, 24) && head.toString('latin1', 12, 16) === 'IHDR'
      ? { width: head.readUInt32BE(16), height: head.readUInt32BE(20) }
      : undefined,
  jpg: jpegSize,
  // Photoshop: version 1 (PSD) or 2 (PSB), then rows and columns.
  psd: (head) =>
    need(head, 22) && head.toString('latin1', 0, 4) === '8BPS'
      ? { width: head.readUInt32BE(18), height: head.readUInt32BE(14) }
      : undefined,
  // TGA and PCX have no signature: their headers must pass the checks detection makes.
  tga: (head) => (isTga(head) ? { width: head.readUInt16LE(12), height: head.readUInt16LE(14) } : undefined),
  // PCX stores the inclusive window xmin, ymin, xmax, ymax.
  pcx: (head) =>
    isPcx(head)
      ? {
          width: head.readUInt16LE(8) - head.readUInt16LE(4) + 1,
          height: head.readUInt16LE(10) - head.readUInt16LE(6) + 1,
        }
      : undefined,
  ppm: netpbmSize,
  pgm: netpbmSize,
  pbm: netpbmSize,
  qoi: (head) =>
    need(head, 14) && head.toString('latin1', 0, 4) === 'qoif'
      ? { width: head.readUInt32BE(4), height: head.readUInt32BE(8) }
      : undefined,
  dds: (head) =>
    need(head, 20) && head.toString('latin1', 0, 4) === 'DDS '
      ? { width: head.readUInt32LE(16), height: head.readUInt32LE(12) }
      : undefined,
  hdr: radianceSize,
  sgi: (head) => (isSgi(head) ? { width: head.readUInt16BE(6), height: head.readUInt16BE(8) } : undefined),
  pam: (head) => {
    const text = head.toString('latin1', 0, 1024);
    const width = /\nWIDTH (\d{1,10})\s/.exec(text)?.[1];
    const height = /\nHEIGHT (\d{1,10})\s/.exec(text)?.[1];
    return text.startsWith('P7\n') && width && height
      ? { width: Number(width), height: Number(height) }
      : undefined;
  },
  // XPM: the first string of the array is '"<width> <height> <colours> <chars per pixel>'.
  xpm: (head) => {
    const match = /^\/\* XPM \*\/[\s\S]*?\{[\s\S]*?"\s*(\d{1,10})\s+(\d{1,10})\s+\d+\s+\d+/.exec(
      head.toString('latin1', 0, 4096),
    );
    return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
  },
  exr: exrSize,
  jp2: jpeg2000Size,
  jxl: jpegXlSize,
};

/** netpbm: magic, width, height as decimal text, with comments between. */
function netpbmSize(head: Buffer): PixelSize | undefined {
  const match = /^P[1-6](?:\s+|#[^\n]*\n)+(\d{1,10})(?:\s+|#[^\n]*\n)+(\d{1,10})\s/.exec(
    head.toString('latin1', 0, 1024),
  );
  return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
}

/** Radiance: text lines up to a blank one, then the resolution line ('-Y 46 +X 70' is the usual order). */
function radianceSize(head: Buffer): PixelSize | undefined {
  const text = head.toString('latin1', 0, 8192);
  const match = /\n\n([-+])([XY]) (\d{1,10}) ([-+])([XY]) (\d{1,10})\n/.exec(text);
  if (!match || match[2] === match[5]) return undefined;
  const first = Number(match[3]);
  const second = Number(match[6]);
  // The first axis is the slow one: '-Y h +X w' is rows of width w.
  return match[2] === 'Y' ? { width: second, height: first } : { width: first, height: second };
}

/** OpenEXR: attributes (name, type, size, value) until an empty name; the size is dataWindow's. */
function exrSize(head: Buffer): PixelSize | undefined {
  if (!need(head, 8) || head.readUInt32LE(0) !== 20000630) return undefined;
  let at = 8;
  while (at < head.length) {
    const nameEnd = head.indexOf(0, at);
    if (nameEnd < 0 || nameEnd === at) return undefined;
    const name = head.toString('latin1', at, nameEnd);
    const typeEnd = head.indexOf(0, nameEnd + 1);
    if (typeEnd < 0 || !need(head, typeEnd + 5)) return undefined;
    const size = head.readInt32LE(typeEnd + 1);
    const value = typeEnd + 5;
    if (size < 0) return undefined;
    if (name === 'dataWindow' && size === 16 && need(head, value + 16)) {
      const [xMin, yMin, xMax, yMax] = [0, 4, 8, 12].map((offset) => head.readInt32LE(value + offset));
      return { width: (xMax ?? 0) - (xMin ?? 0) + 1, height: (yMax ?? 0) - (yMin ?? 0) + 1 };
    }
    at = value + size;
  }
  return undefined;
}

/** JPEG: the first start-of-frame marker's lines and samples per line. */
function jpegSize(head: Buffer): PixelSize | undefined {
  let at = 2;
  while (need(head, at + 9) && head[at] === 0xff) {
    const marker = head[at + 1] ?? 0;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { width: head.readUInt16BE(at + 7), height: head.readUInt16BE(at + 5) };
    at += 2 + head.readUInt16BE(at + 2);
  }
  return undefined;
}

/** JPEG 2000: the JP2 image header box ('ihdr': height, width), or a bare codestream's SIZ marker. */
function jpeg2000Size(head: Buffer): PixelSize | undefined {
  if (need(head, 16) && head.readUInt32BE(0) === 0xff4fff51) {
    // SIZ: Lsiz, Rsiz, Xsiz, Ysiz, XOsiz, YOsiz: the image is the grid less its offset.
    const [x, y, xo, yo] = [8, 12, 16, 20].map((offset) => head.readUInt32BE(offset));
    return need(head, 24) ? { width: (x ?? 0) - (xo ?? 0), height: (y ?? 0) - (yo ?? 0) } : undefined;
  }
  const box = head.indexOf('ihdr', 0, 'latin1');
  return box >= 4 && need(head, box + 12)
    ? { width: head.readUInt32BE(box + 8), height: head.readUInt32BE(box + 4) }
    : undefined;
}

/** JPEG XL: the codestream's SizeHeader, in a bare codestream or the container's first jxlc/jxlp box. */
function jpegXlSize(head: Buffer): PixelSize | undefined {
  let start = -1;
  if (head[0] === 0xff && head[1] === 0x0a) start = 2;
  else {
    for (const [type, skip] of [
      ['jxlc', 0],
      ['jxlp', 4],
    ] as const) {
      const box = head.indexOf(type, 0, 'latin1');
      if (box >= 4 && start < 0) start = box + 4 + skip + 2; // past the box type and the FF 0A signature
    }
  }
  if (start < 0 || !need(head, start + 8)) return undefined;
  const bits = new BitReader(head, start);
  const ratioWidth = (height: number, ratio: number): number => {
    const [num, den] = JXL_RATIOS[ratio] ?? [1, 1];
    return Math.floor((height * num) / den);
  };
  if (bits.read(1) === 1) {
    const height = (bits.read(5) + 1) * 8;
    const ratio = bits.read(3);
    return { height, width: ratio === 0 ? (bits.read(5) + 1) * 8 : ratioWidth(height, ratio) };
  }
  const dimension = () => 1 + bits.read([9, 13, 18, 30][bits.read(2)] ?? 30);
  const height = dimension();
  const ratio = bits.read(3);
  return { height, width: ratio === 0 ? dimension() : ratioWidth(height, ratio) };
}

/** Width = height * ratio for SizeHeader's ratio codes 1..7. */
const JXL_RATIOS: readonly (readonly [number, number])[] = [
  [1, 1],
  [1, 1],
  [12, 10],
  [4, 3],
  [3, 2],
  [16, 9],
  [5, 4],
  [2, 1],
];

/** Least-significant-bit-first reader, as JPEG XL packs its headers. */
class BitReader {
  private bit = 0;
  constructor(
    private readonly bytes: Buffer,
    private readonly start: number,
  ) {}
  read(count: number): number {
    let value = 0;
    for (let i = 0; i < count; i++) {
      const byte = this.bytes[this.start + (this.bit >> 3)] ?? 0;
      value += ((byte >> (this.bit & 7)) & 1) * 2 ** i;
      this.bit++;
    }
    return value;
  }
}

/** Directories a TIFF walk visits at most: real files have a handful. */
const MAX_TIFF_DIRECTORIES = 64;

/**
 * The largest image a TIFF (or a TIFF-based raw such as DNG) holds, over its directory chain and
 * the SubIFDs raw files keep their full-size image in. Classic TIFF only; BigTIFF is left to the
 * engines' own limits (the ImageMagick policy caps width, height and area).
 */
async function tiffSize(handle: FileHandle, format: FormatName): Promise<PixelSize> {
  const header = await readAt(handle, 0, 8);
  const order = header.toString('latin1', 0, 2);
  if (!need(header, 8) || (order !== 'II' && order !== 'MM'))
    throw corruptHeader(format, 'no TIFF byte order');
  const le = order === 'II';
  const u16 = (b: Buffer, at: number) => (le ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const u32 = (b: Buffer, at: number) => (le ? b.readUInt32LE(at) : b.readUInt32BE(at));
  if (u16(header, 2) === 43) return { width: 1, height: 1 }; // BigTIFF: see above
  const pending = [u32(header, 4)];
  const seen = new Set<number>();
  let largest: PixelSize | undefined;
  while (pending.length > 0 && seen.size < MAX_TIFF_DIRECTORIES) {
    const offset = pending.shift() ?? 0;
    if (offset === 0 || seen.has(offset)) continue;
    seen.add(offset);
    const countBytes = await readAt(handle, offset, 2);
    if (!need(countBytes, 2)) throw corruptHeader(format, 'a directory lies beyond the end of the file');
    const count = u16(countBytes, 0);
    const entries = await readAt(handle, offset + 2, count * 12 + 4);
    if (!need(entries, count * 12)) throw corruptHeader(format, 'a directory is cut short');
    let width = 0;
    let height = 0;
    for (let i = 0; i < count; i++) {
      const at = i * 12;
      const tag = u16(entries, at);
      const type = u16(entries, at + 2);
      const value = type === 3 ? u16(entries, at + 8) : u32(entries, at + 8);
      if (tag === 256) width = value;
      else if (tag === 257) height = value;
      else if (tag === 330 && u32(entries, at + 4) === 1)
        pending.push(value); // one SubIFD, inline
      else if (tag === 330) {
        const list = await readAt(handle, value, Math.min(u32(entries, at + 4), 16) * 4);
        for (let j = 0; j + 4 <= list.length; j += 4) pending.push(u32(list, j));
      }
    }
    if (width * height > (largest ? largest.width * largest.height : 0)) largest = { width, height };
    if (need(entries, count * 12 + 4)) pending.push(u32(entries, count * 12));
  }
  if (!largest) throw corruptHeader(format, 'no directory gives an image size');
  return largest;
}
