/**
 * Resumable uploads of the memory storage: each unfinished upload is a list of chunks under a
 * random id, cut back to the offset the engine gives before an append, so bytes of an append
 * that was never committed are never counted. Same rules as the fs storage's partial files.
 */
import { randomUUID } from 'node:crypto';
import { FileconvError } from '../../core/errors.js';
import type { ResumableState, ResumableUploads, StoredObjectInfo } from '../../core/ports/index.js';
import { assertChecksum, readAppendBody } from './resumable-body.js';
import { assertStorageKey } from './storage-key.js';

interface Part {
  bytes: Buffer;
  contentType: string;
}

export function createMemoryResumable(
  store: (key: string, bytes: Buffer, contentType: string) => StoredObjectInfo,
): ResumableUploads {
  const parts = new Map<string, Part>();

  function partOf(key: string, state: ResumableState): { id: string; part: Part } {
    const id = (state as { id?: unknown }).id;
    const part = typeof id === 'string' ? parts.get(id) : undefined;
    if (!part || typeof id !== 'string') {
      throw new FileconvError('NOT_FOUND', `The resumable upload of "${key}" is gone.`, { details: { key } });
    }
    return { id, part };
  }

  return {
    async begin(key, options) {
      assertStorageKey(key);
      const id = randomUUID();
      parts.set(id, { bytes: Buffer.alloc(0), contentType: options.contentType });
      return { id };
    },

    async append(key, state, body, options) {
      const { part } = partOf(key, state);
      if (part.bytes.length < options.offset) {
        throw new FileconvError('INTERNAL', `The upload of "${key}" holds fewer bytes than committed.`);
      }
      const chunks: Buffer[] = [];
      const read = await readAppendBody(body, options, async (bytes) => {
        chunks.push(Buffer.from(bytes));
      });
      if (options.checksum) {
        // All or nothing: bytes whose digest nobody can check are not kept.
        if (read.endedEarly) return { state, offset: options.offset };
        assertChecksum(options, read, key);
      }
      part.bytes = Buffer.concat([part.bytes.subarray(0, options.offset), ...chunks]);
      return { state, offset: options.offset + read.received };
    },

    async complete(key, state) {
      const { id, part } = partOf(key, state);
      parts.delete(id);
      return store(key, part.bytes, part.contentType);
    },

    async abort(_key, state) {
      const id = (state as { id?: unknown }).id;
      if (typeof id === 'string') parts.delete(id);
    },
  };
}
