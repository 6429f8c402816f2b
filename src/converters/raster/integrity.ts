/**
 * Truncation checks for the formats whose engines convert a cut-off file without a word: ffmpeg
 * pads a QOI or a scanline EXR with black, ImageMagick builds a PSD from its layers when the
 * composite image is missing. Each check follows the format's own layout far enough to know
 * whether the file holds all it declares; a file that does not is CORRUPT_INPUT.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import type { PixelSize } from '../../kit/raster/raster-headers.js';

const truncated = (format: FormatName, why: string) =>
  new FileconvError('CORRUPT_INPUT', `The ${format} file is truncated or damaged: ${why}`);

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const { buffer, bytesRead } = await handle.read(Buffer.alloc(length), 0, length, position);
  return buffer.subarray(0, bytesRead);
}

type Check = (handle: FileHandle, fileSize: number, size: PixelSize) => Promise<void>;

/** QOI ends with seven zero bytes and a one. */
const qoiComplete: Check = async (handle, fileSize) => {
  const end = await readAt(handle, Math.max(0, fileSize - 8), 8);
  if (!end.equals(Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]))) throw truncated('qoi', 'its end marker is missing');
};

/** PSD: four length-prefixed sections, then the composite image, whose size its compression tells. */
const psdComplete: Check = async (handle, fileSize, size) => {
  const header = await readAt(handle, 0, 26);
  const big = header.readUInt16BE(4) === 2; // PSB: the layer section's length is 8 bytes
  const channels = header.readUInt16BE(12);
  const depth = header.readUInt16BE(22);
  let at = 26;
  for (const lengthBytes of [4, 4, big ? 8 : 4]) {
    const length = await readAt(handle, at, lengthBytes);
    if (length.length < lengthBytes) throw truncated('psd', 'a section header is missing');
    at += lengthBytes + Number(lengthBytes === 8 ? length.readBigUInt64BE(0) : length.readUInt32BE(0));
  }
  const compression = (await readAt(handle, at, 2)).readUInt16BE(0);
  at += 2;
  const rows = size.height * channels;
  let imageBytes: number;
  if (compression === 0) imageBytes = Math.ceil((size.width * depth) / 8) * rows;
  else if (compression === 1) {
    // RLE: a table of each row's compressed length, then the rows.
    const countBytes = big ? 4 : 2;
    const table = await readAt(handle, at, rows * countBytes);
    if (table.length < rows * countBytes) throw truncated('psd', 'the composite image is cut short');
    imageBytes = rows * countBytes;
    for (let i = 0; i < rows; i++)
      imageBytes += big ? table.readUInt32BE(i * 4) : table.readUInt16BE(i * countBytes);
  } else return; // ZIP-compressed composites are rare; their engine reports errors itself
  if (at + imageBytes > fileSize) throw truncated('psd', 'the composite image is cut short');
};

/** Rows per chunk of a scanline EXR, by compression (the OpenEXR file layout document). */
const EXR_LINES_PER_CHUNK = [1, 1, 1, 16, 32, 16, 32, 32, 32, 256];

/** Scanline OpenEXR: an offset table after the header; the last chunk must lie within the file. */
const exrComplete: Check = async (handle, fileSize, size) => {
  const head = await readAt(handle, 0, 64 * 1024);
  let at = 8;
  let compression = -1;
  while (at < head.length && head[at] !== 0) {
    const nameEnd = head.indexOf(0, at);
    const typeEnd = head.indexOf(0, nameEnd + 1);
    if (nameEnd < 0 || typeEnd < 0 || typeEnd + 5 > head.length) return; // header larger than read: leave it
    const name = head.toString('latin1', at, nameEnd);
    const valueSize = head.readInt32LE(typeEnd + 1);
    if (name === 'tiles') return; // tiled files have another table; not checked here
    if (name === 'compression') compression = head[typeEnd + 5] ?? -1;
    at = typeEnd + 5 + valueSize;
  }
  const lines = EXR_LINES_PER_CHUNK[compression];
  if (lines === undefined) return;
  const chunks = Math.ceil(size.height / lines);
  const table = await readAt(handle, at + 1, chunks * 8);
  if (table.length < chunks * 8) throw truncated('exr', 'its chunk table is cut short');
  // Chunks may be stored in any order: the one furthest in must end within the file.
  let last = 0;
  for (let i = 0; i < chunks; i++) last = Math.max(last, Number(table.readBigUInt64LE(i * 8)));
  const chunk = await readAt(handle, last, 8);
  if (chunk.length < 8 || last + 8 + chunk.readInt32LE(4) > fileSize) {
    throw truncated('exr', 'its last chunk lies beyond the end of the file');
  }
};

const CHECKS: Readonly<Record<FormatName, Check>> = { qoi: qoiComplete, psd: psdComplete, exr: exrComplete };

/** Throws CORRUPT_INPUT when `path`, a `format` file of `size`, is visibly cut short. */
export async function assertComplete(path: string, format: FormatName, size: PixelSize): Promise<void> {
  const check = CHECKS[format];
  if (!check) return;
  const handle = await open(path, 'r');
  try {
    await check(handle, (await handle.stat()).size, size);
  } catch (error) {
    if (error instanceof FileconvError) throw error;
    // A read past what a field promised (RangeError from a short buffer) is damage too.
    throw truncated(format, 'its layout does not hold together');
  } finally {
    await handle.close();
  }
}
