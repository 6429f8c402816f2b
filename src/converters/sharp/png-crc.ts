/**
 * The first PNG chunk whose CRC does not match its bytes, read straight from the file. libpng
 * refuses a critical chunk with a wrong CRC, and libvips then reports "Unknown error" (a 500)
 * instead of the damage (the survey's real files had one): this check names the damage, so the
 * answer is CORRUPT_INPUT. Streams the file: a large PNG costs its read, not its size in memory.
 */
import { createReadStream } from 'node:fs';
import { crc32 } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The type of the first chunk with a wrong CRC ('IHDR'), or undefined when every CRC holds. */
export async function pngChunkWithBadCrc(path: string): Promise<string | undefined> {
  let pending: Buffer = Buffer.alloc(0);
  let skipSignature = true;
  // The chunk being read: its type, data bytes still to come, the running CRC.
  let chunk: { type: string; left: number; crc: number } | undefined;
  for await (const piece of createReadStream(path) as AsyncIterable<Buffer>) {
    pending = pending.length ? Buffer.concat([pending, piece]) : piece;
    if (skipSignature) {
      if (pending.length < SIGNATURE.length) continue;
      if (!pending.subarray(0, SIGNATURE.length).equals(SIGNATURE)) return undefined;
      pending = pending.subarray(SIGNATURE.length);
      skipSignature = false;
    }
    for (;;) {
      if (!chunk) {
        if (pending.length < 8) break;
        const type = pending.subarray(4, 8);
        chunk = { type: type.toString('latin1'), left: pending.readUInt32BE(0), crc: crc32(type) };
        pending = pending.subarray(8);
      }
      const take = Math.min(chunk.left, pending.length);
      if (take > 0) {
        chunk.crc = crc32(pending.subarray(0, take), chunk.crc);
        chunk.left -= take;
        pending = pending.subarray(take);
      }
      if (chunk.left > 0 || pending.length < 4) break;
      if (pending.readUInt32BE(0) !== chunk.crc) return chunk.type;
      if (chunk.type === 'IEND') return undefined;
      pending = pending.subarray(4);
      chunk = undefined;
    }
  }
  return undefined;
}
