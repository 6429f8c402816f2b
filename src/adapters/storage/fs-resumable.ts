/**
 * Resumable uploads of the fs storage: each unfinished upload is one partial file in a hidden
 * directory under the storage root (so completing it is a rename on the same file system),
 * written at the exact offset the engine gives: the file is cut back to that offset first, so
 * bytes of an append that was never committed are overwritten, never counted. The offset
 * returned is what was written, synced once per append (not per chunk) when the storage syncs,
 * so the offset the engine commits never exceeds the bytes on disk.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, unlink } from 'node:fs/promises';
import path from 'node:path';
import { FileconvError } from '../../core/errors.js';
import type { ResumableState, ResumableUploads, StoredObjectInfo } from '../../core/ports/index.js';
import { noSpaceError } from '../../kit/local-files.js';
import { assertChecksum, readAppendBody } from './resumable-body.js';

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

export function createFsResumable(host: FsResumableHost): ResumableUploads {
  const dir = path.join(host.root, RESUMABLE_DIR);
  const partPath = (key: string, state: ResumableState) => path.join(dir, partState(key, state).part);

  return {
    async begin(key, options) {
      host.checkKey(key);
      const part = randomUUID();
      try {
        await mkdir(dir, { recursive: true });
        const handle = await open(path.join(dir, part), 'wx');
        await handle.close();
      } catch (error) {
        throw noSpaceError(error, `Starting the upload of "${key}" failed`) ?? error;
      }
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
        let position = options.offset;
        const read = await readAppendBody(body, options, async (bytes) => {
          let done = 0;
          while (done < bytes.length) {
            const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
            done += bytesWritten;
          }
          position += bytes.length;
        }).catch(async (error: unknown) => {
          // A byte too many or a failed write: none of this append is kept (best effort: the
          // next append cuts the file back to the committed offset anyway).
          await handle.truncate(options.offset).catch(() => {});
          throw noSpaceError(error, `Appending to "${key}" failed`) ?? error;
        });
        if (options.checksum && (read.endedEarly || !read.digest?.equals(options.checksum.digest))) {
          // All or nothing: bytes whose digest nobody can check, or that do not match it, go.
          await handle.truncate(options.offset);
          if (read.endedEarly) return { state, offset: options.offset };
          assertChecksum(options, read, key);
        }
        const offset = options.offset + read.received;
        // The offset the engine commits never runs ahead of the bytes a power cut would leave.
        if (host.fsync && offset > options.offset) await handle.datasync();
        return { state, offset };
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
