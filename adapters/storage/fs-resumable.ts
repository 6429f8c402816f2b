/**
 * Resumable uploads of the fs storage: each unfinished upload is one partial file in a hidden
 * directory under the storage root (so completing it is a rename on the same file system),
 * written at the exact offset the engine gives: the file is cut back to that offset first, so
 * bytes of an append that was never committed are overwritten, never counted. The offset
 * returned is what was written, synced once per append (not per chunk) when the storage syncs,
 * so the offset the engine commits never exceeds the bytes on disk.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { FileconvError } from '../../src/errors.js';
import type {
  ResumableAppendOptions,
  ResumableState,
  ResumableUploads,
  StoredObjectInfo,
} from '../../src/ports.js';

/** The hidden directory of partial files, under the storage root (a reserved `.fileconv` name). */
export const RESUMABLE_DIR = '.fileconv-resumable';

const PART_NAME = /^[0-9a-f-]{36}$/;

export interface FsResumableHost {
  root: string;
  /** Sync each append's bytes before its offset is returned (and committed): one sync per request, not per chunk. */
  fsync: boolean;
  /** Throws INVALID_REQUEST for a key the storage refuses. */
  checkKey(key: string): void;
  /**
   * Moves a finished partial file in as the object `key` (its content type, if any, recorded),
   * the way put() places its temp files.
   */
  place(key: string, file: string, contentType: string | undefined): Promise<StoredObjectInfo>;
}

interface PartState {
  part: string;
  contentType?: string;
}

function partState(key: string, state: ResumableState): PartState {
  const { part, contentType } = state as { part?: unknown; contentType?: unknown };
  if (typeof part !== 'string' || !PART_NAME.test(part)) {
    throw new FileconvError('INVALID_REQUEST', `Not a resumable upload state of this storage for "${key}".`, {
      details: { key },
    });
  }
  return typeof contentType === 'string' ? { part, contentType } : { part };
}

/** A failure writing to disk, told apart from the body ending early (which is not an error). */
class WriteFailure {
  constructor(readonly error: unknown) {}
}

export function createFsResumable(host: FsResumableHost): ResumableUploads {
  const dir = path.join(host.root, RESUMABLE_DIR);
  const partPath = (key: string, state: ResumableState) => path.join(dir, partState(key, state).part);

  return {
    async begin(key, options) {
      host.checkKey(key);
      await mkdir(dir, { recursive: true });
      const part = randomUUID();
      const handle = await open(path.join(dir, part), 'wx');
      await handle.close();
      return { part, contentType: options.contentType };
    },

    async append(key, state, body, options) {
      const file = partPath(key, state);
      const handle = await open(file, 'r+').catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new FileconvError('NOT_FOUND', `The resumable upload of "${key}" is gone.`, {
            details: { key },
          });
        }
        throw error;
      });
      try {
        const onDisk = (await handle.stat()).size;
        if (onDisk < options.offset) {
          throw new FileconvError(
            'INTERNAL',
            `The partial file of "${key}" holds fewer bytes than committed.`,
            {
              details: { key, onDisk, offset: options.offset },
            },
          );
        }
        if (onDisk > options.offset) await handle.truncate(options.offset);
        const written = await writeBody(handle, body, options, key);
        if (options.checksum && !written.complete) {
          // All or nothing: bytes whose digest nobody can check are not kept.
          await handle.truncate(options.offset);
          return { state, offset: options.offset };
        }
        if (options.checksum && !written.digest!.equals(options.checksum.digest)) {
          await handle.truncate(options.offset);
          throw new FileconvError(
            'CHECKSUM_MISMATCH',
            'The bytes do not match their Upload-Checksum: none were kept.',
            {
              details: { algorithm: options.checksum.algorithm },
            },
          );
        }
        // The offset the engine commits never runs ahead of the bytes a power cut would leave.
        if (host.fsync && written.offset > options.offset) await handle.datasync();
        return { state, offset: written.offset };
      } catch (error) {
        if (error instanceof WriteFailure) throw error.error;
        throw error;
      } finally {
        await handle.close();
      }
    },

    async complete(key, state) {
      const { contentType } = partState(key, state);
      return host.place(key, partPath(key, state), contentType);
    },

    async abort(key, state) {
      await unlink(partPath(key, state)).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      });
    },
  };
}

type Handle = Awaited<ReturnType<typeof open>>;

/**
 * Writes `body` at `options.offset`, chunk by chunk as it arrives (memory stays one chunk). Bytes
 * past `options.size` cut the file back to the offset and refuse the append (FILE_TOO_LARGE).
 * A body that fails or is aborted ends the write: `complete` false, what arrived kept.
 */
async function writeBody(
  handle: Handle,
  body: Readable,
  options: ResumableAppendOptions,
  key: string,
): Promise<{ offset: number; complete: boolean; digest?: Buffer }> {
  const hash = options.checksum ? createHash(options.checksum.algorithm) : undefined;
  let position = options.offset;
  const stop = () => body.destroy();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    if (options.signal?.aborted) body.destroy();
    for await (const chunk of body) {
      const bytes: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      if (position + bytes.length > options.size) {
        body.destroy();
        await handle.truncate(options.offset);
        throw new FileconvError('FILE_TOO_LARGE', `More bytes than the upload's ${options.size} were sent.`, {
          details: { key, size: options.size },
        });
      }
      try {
        let done = 0;
        while (done < bytes.length) {
          const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
          done += bytesWritten;
        }
      } catch (error) {
        body.destroy();
        throw new WriteFailure(error);
      }
      position += bytes.length;
      hash?.update(bytes);
    }
  } catch (error) {
    if (error instanceof FileconvError || error instanceof WriteFailure) throw error;
    // The body ended early (a dropped client, a newer append stopping this one): keep what arrived.
    return { offset: position, complete: false };
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
  return hash
    ? { offset: position, complete: true, digest: hash.digest() }
    : { offset: position, complete: true };
}
