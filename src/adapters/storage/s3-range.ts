/**
 * Turns an S3 ranged GET into exactly the bytes the Storage contract promises. S3 itself answers
 * a range precisely, but S3-compatible servers do not all do so: s3rver 3.7 reads `bytes=0-0` as
 * "from 0 to the end", and a server may ignore the Range header altogether. The answer's
 * Content-Range (or, without one, its length) says which bytes came back; when that is more
 * than was asked for, the surplus is cut here, and when it is less the read fails.
 */
import { Readable } from 'node:stream';
import { FileconvError } from '../../core/errors.js';
import type { ByteRange } from '../../core/ports/index.js';
import { resolveByteRange } from './byte-range.js';

/** `bytes <first>-<last>/<size>` (S3 always knows the size, so `*` is not expected). */
const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+)$/;

export interface ReturnedWindow {
  /** First byte returned, inclusive. */
  start: number;
  /** Last byte returned, inclusive; start - 1 when nothing was returned. */
  end: number;
  /** Size of the whole object. */
  size: number;
}

/** Which bytes a GET answer holds, from its Content-Range or, for a 200, its length. */
export function returnedWindow(
  contentRange: string | undefined,
  contentLength: number | undefined,
): ReturnedWindow | null {
  if (contentRange !== undefined) {
    const match = CONTENT_RANGE.exec(contentRange.trim());
    if (!match) return null;
    return { start: Number(match[1]), end: Number(match[2]), size: Number(match[3]) };
  }
  if (contentLength === undefined) return null;
  return { start: 0, end: contentLength - 1, size: contentLength };
}

async function* slice(body: Readable, skip: number, length: number): AsyncGenerator<Buffer> {
  let toSkip = skip;
  let remaining = length;
  try {
    for await (const chunk of body) {
      let bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      if (toSkip > 0) {
        const skipped = Math.min(toSkip, bytes.length);
        toSkip -= skipped;
        bytes = bytes.subarray(skipped);
      }
      if (bytes.length === 0) continue;
      const taken = bytes.subarray(0, remaining);
      remaining -= taken.length;
      yield taken;
      if (remaining === 0) return;
    }
  } finally {
    // Leaving early (enough bytes, or the consumer gave up) must not leave the socket open.
    body.destroy();
  }
  if (remaining > 0) throw new Error(`The S3 response ended ${remaining} bytes short of the range.`);
}

/**
 * The requested range of an object out of a GET answer `body` that holds `window`. Throws
 * INVALID_REQUEST when the range starts at or past the end of the object (the caller destroys
 * `body`), INTERNAL when the answer does not cover the range.
 */
export function cutToRange(
  key: string,
  range: ByteRange,
  body: Readable,
  window: ReturnedWindow | null,
): Readable {
  if (window === null) {
    throw new FileconvError(
      'INTERNAL',
      `Reading "${key}" from S3 failed: the answer to a ranged GET has no usable Content-Range.`,
      {
        details: { key },
      },
    );
  }
  const wanted = resolveByteRange(key, range, window.size);
  if (wanted === null) return body; // not reached: a range was given
  if (window.start === wanted.start && window.end === wanted.end) return body;
  if (window.start > wanted.start || window.end < wanted.end) {
    throw new FileconvError(
      'INTERNAL',
      `Reading "${key}" from S3 failed: the server returned bytes ${window.start}-${window.end} for a request of ${wanted.start}-${wanted.end}.`,
      {
        details: { key, returned: window, wanted },
      },
    );
  }
  return Readable.from(slice(body, wanted.start - window.start, wanted.end - wanted.start + 1), {
    objectMode: false,
  });
}
