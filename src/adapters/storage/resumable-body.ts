/**
 * What every storage's resumable append shares (fs, memory, S3): the body read chunk by chunk,
 * bytes past the upload's size refused before they are stored, the digest for the tus checksum
 * taken on the way, and the difference between the two ways a read can end badly. A body that
 * breaks off or is stopped by the signal (a dropped client, a newer append) is an early end that
 * keeps what arrived; a failure of the storage's own `store` (a disk error, S3 away) or a byte
 * too many is thrown as it is.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { FileconvError } from '../../core/errors.js';
import { fileTooLarge } from '../../core/file-size.js';
import type { ResumableAppendOptions } from '../../core/ports/index.js';

export interface AppendBodyRead {
  /** Bytes of the body handed to `store`. */
  received: number;
  /** The body broke off or the signal stopped it. */
  endedEarly: boolean;
  /** The digest of the bytes read, when the append carries a checksum. */
  digest: Buffer | undefined;
}

/** Reads `body`, handing each non-empty chunk to `store` in order; see the file's comment. */
export async function readAppendBody(
  body: Readable,
  options: ResumableAppendOptions,
  store: (bytes: Buffer) => Promise<void>,
): Promise<AppendBodyRead> {
  const hash = options.checksum ? createHash(options.checksum.algorithm) : undefined;
  let received = 0;
  let ownFailure: { error: unknown } | undefined;
  let endedEarly = false;
  const stop = () => body.destroy();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    if (options.signal?.aborted) body.destroy();
    for await (const chunk of body) {
      const bytes: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      if (bytes.length === 0) continue;
      try {
        if (options.offset + received + bytes.length > options.size) {
          throw fileTooLarge({ limit: options.size, setBy: "the upload's declared size" });
        }
        await store(bytes);
      } catch (error) {
        ownFailure = { error };
        throw error;
      }
      received += bytes.length;
      hash?.update(bytes);
    }
  } catch {
    if (ownFailure) {
      body.destroy();
      throw ownFailure.error;
    }
    endedEarly = true;
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
  return { received, endedEarly, digest: hash?.digest() };
}

/** CHECKSUM_MISMATCH unless the bytes read match the append's Upload-Checksum (when it has one). */
export function assertChecksum(options: ResumableAppendOptions, read: AppendBodyRead, key: string): void {
  if (options.checksum && !read.digest?.equals(options.checksum.digest)) {
    throw new FileconvError(
      'CHECKSUM_MISMATCH',
      `The bytes appended to "${key}" do not match their ${options.checksum.algorithm} checksum: none were kept.`,
      { details: { key, algorithm: options.checksum.algorithm } },
    );
  }
}
