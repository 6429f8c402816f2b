/**
 * The ICO container: a 6-byte header (0, type 1, count), `count` 16-byte directory entries, and
 * each entry's payload, a PNG file or a DIB (a BMP without its file header, twice as tall, the
 * colour rows followed by a 1-bit AND mask). Small enough to own rather than depend on sharp-ico,
 * whose decode-bmp reads no RLE, bitfields or top-down rows and allocates before checking sizes.
 *
 * Reading trusts nothing: the directory must fit the file, every payload must lie inside it after
 * the directory, and an entry's size comes from its own payload header (the directory's one-byte
 * sizes cannot say more than 256, and may lie).
 */

import { corrupt } from '../../kit/image/probe.js';
import { type BmpLayout, parseDib } from './bmp-header.js';

const HEADER_SIZE = 6;
const ENTRY_SIZE = 16;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export type IconEntry =
  | { kind: 'png'; width: number; height: number; bytes: Buffer }
  | { kind: 'dib'; width: number; height: number; bytes: Buffer; layout: BmpLayout };

/** Whether the bytes start like an icon file (reserved 0, type 1, at least one entry). */
export function isIco(head: Uint8Array): boolean {
  return head[0] === 0 && head[1] === 0 && head[2] === 1 && head[3] === 0 && (head[4]! > 0 || head[5]! > 0);
}

/** Reads one payload's own header. */
function readEntry(payload: Buffer): IconEntry {
  if (payload.subarray(0, 8).equals(PNG_SIGNATURE)) {
    if (payload.length < 24 || payload.toString('latin1', 12, 16) !== 'IHDR') {
      throw corrupt('An icon entry holds a damaged PNG');
    }
    return { kind: 'png', width: payload.readUInt32BE(16), height: payload.readUInt32BE(20), bytes: payload };
  }
  const layout = parseDib(payload, 0, undefined);
  return { kind: 'dib', width: layout.width, height: layout.height, bytes: payload, layout };
}

/** Every entry of an icon file, validated; CORRUPT_INPUT for any directory that does not add up. */
export function readIcoEntries(bytes: Buffer): IconEntry[] {
  if (bytes.length < HEADER_SIZE || !isIco(bytes)) throw corrupt('The input is not an ICO file');
  const count = bytes.readUInt16LE(4);
  const directoryEnd = HEADER_SIZE + count * ENTRY_SIZE;
  if (directoryEnd > bytes.length) {
    throw corrupt(`The icon directory claims ${count} entries; the file is too short for them`);
  }
  const entries: IconEntry[] = [];
  for (let i = 0; i < count; i++) {
    const at = HEADER_SIZE + i * ENTRY_SIZE;
    const size = bytes.readUInt32LE(at + 8);
    const offset = bytes.readUInt32LE(at + 12);
    if (size === 0 || offset < directoryEnd || offset + size > bytes.length) {
      throw corrupt(`Icon entry ${i} points outside the file (offset ${offset}, ${size} bytes)`);
    }
    entries.push(readEntry(bytes.subarray(offset, offset + size)));
  }
  return entries;
}

/** The entry with the most pixels, deeper colour winning a tie: the best source to convert from. */
export function largestEntry(entries: readonly IconEntry[]): IconEntry {
  const depth = (entry: IconEntry) => (entry.kind === 'png' ? 32 : entry.layout.bitsPerPixel);
  const best = entries.reduce((a, b) => {
    const difference = b.width * b.height - a.width * a.height;
    return difference > 0 || (difference === 0 && depth(b) > depth(a)) ? b : a;
  });
  return best;
}

/** Packs square PNG images into an icon file, in the order given. */
export function writeIco(images: readonly { size: number; png: Buffer }[]): Buffer {
  const header = Buffer.alloc(HEADER_SIZE + images.length * ENTRY_SIZE);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach(({ size, png }, i) => {
    const at = HEADER_SIZE + i * ENTRY_SIZE;
    header[at] = size >= 256 ? 0 : size; // one byte: 0 stands for 256
    header[at + 1] = size >= 256 ? 0 : size;
    header.writeUInt16LE(1, at + 4); // colour planes
    header.writeUInt16LE(32, at + 6); // bits per pixel
    header.writeUInt32LE(png.length, at + 8);
    header.writeUInt32LE(offset, at + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...images.map((image) => image.png)]);
}
