/**
 * Stream helpers for the conformance suites and for host apps' own tests: read a stream whole,
 * hash it, and make bodies that are large, endless or failing without holding them in memory.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** A deterministic, non-repeating-looking body of `size` bytes, streamed in 64 KiB chunks. */
export function patternStream(size: number, chunkBytes = 64 * 1024): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const length = Math.min(chunkBytes, size - sent);
      const chunk = Buffer.allocUnsafe(length);
      for (let index = 0; index < length; index++)
        chunk[index] = ((sent + index) * 31 + ((sent + index) >> 11)) & 0xff;
      sent += length;
      this.push(chunk);
    },
  });
}

export async function sha256(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Uint8Array);
  return hash.digest('hex');
}

/**
 * A stream that does not end on its own: only a limit enforced while streaming stops it. Past
 * `giveUpBytes` it fails with its own message, so a storage that buffers first fails the test
 * cleanly instead of running out of memory.
 */
export function endlessStream(giveUpBytes: number): Readable {
  const chunk = Buffer.alloc(64 * 1024, 7);
  let sent = 0;
  return new Readable({
    read() {
      if (sent > giveUpBytes)
        return void this.destroy(new Error('maxBytes was not enforced while streaming'));
      sent += chunk.length;
      this.push(chunk);
    },
  });
}

/** A stream that sends some bytes, then fails as an interrupted upload does. */
export function failingStream(): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent++ < 3) this.push(Buffer.alloc(16 * 1024, 1));
      else this.destroy(new Error('connection reset'));
    },
  });
}
