/**
 * What tesseract is handed is a PNG checked here first, from its header alone: the signature (a
 * file that is not a PNG never reaches tesseract: given a text file, tesseract reads it as a list
 * of image paths and opens each, so a "PNG" holding '/etc/hostname' would be a file read), the
 * pixel size against the limit before a pixel is decoded, and the resolution (pHYs) when given.
 */
import { open } from 'node:fs/promises';
import { FileconvError } from '../../core/errors.js';
import { pixelLimitError } from '../../kit/image/probe.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Chunks before IDAT (palette, ICC profile, text) rarely pass a few KB; pHYs is among them. */
const HEAD_BYTES = 64 * 1024;
const METRES_PER_INCH = 0.0254;

export interface PngHeader {
  width: number;
  height: number;
  /** Pixels per inch from pHYs, when the file says (and says it in metres). */
  dpi?: number;
}

/** The PNG's size and resolution; CORRUPT_INPUT when it is not a PNG, INPUT_LIMIT_EXCEEDED past `maxPixels`. */
export async function readPngHeader(path: string, maxPixels: number, name = 'The image'): Promise<PngHeader> {
  const head = await readHead(path);
  if (
    head.length < 33 ||
    !head.subarray(0, 8).equals(SIGNATURE) ||
    head.toString('latin1', 12, 16) !== 'IHDR'
  ) {
    throw new FileconvError('CORRUPT_INPUT', `${name} is not a PNG file.`);
  }
  const width = head.readUInt32BE(16);
  const height = head.readUInt32BE(20);
  if (width === 0 || height === 0) throw new FileconvError('CORRUPT_INPUT', `${name} has no pixels.`);
  if (width * height > maxPixels) throw pixelLimitError(width, height, 1, maxPixels, `${name} is`);
  const dpi = resolution(head);
  return dpi === undefined ? { width, height } : { width, height, dpi };
}

/** The pHYs resolution, read from the chunks before the first IDAT. */
function resolution(head: Buffer): number | undefined {
  let offset = 8;
  while (offset + 8 <= head.length) {
    const length = head.readUInt32BE(offset);
    const type = head.toString('latin1', offset + 4, offset + 8);
    if (type === 'IDAT' || type === 'IEND') return undefined;
    if (type === 'pHYs' && length === 9 && offset + 17 <= head.length) {
      const perMetre = head.readUInt32BE(offset + 8);
      const unit = head[offset + 16];
      if (unit !== 1 || perMetre === 0) return undefined;
      return Math.round(perMetre * METRES_PER_INCH);
    }
    offset += 12 + length;
  }
  return undefined;
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(HEAD_BYTES), 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
