/**
 * Resumable uploads of the memory storage: each unfinished upload is a list of chunks under a
 * random id, cut back to the offset the engine gives before an append, so bytes of an append
 * that was never committed are never counted. Same rules as the fs storage's partial files.
 */
import { createHash, randomUUID } from 'node:crypto';
import { FileconvError } from '../../src/errors.js';
import type { ResumableState, ResumableUploads, StoredObjectInfo } from '../../src/ports.js';
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
      let position = options.offset;
      let complete = true;
      const hash = options.checksum ? createHash(options.checksum.algorithm) : undefined;
      const stop = () => body.destroy();
      options.signal?.addEventListener('abort', stop, { once: true });
      try {
        if (options.signal?.aborted) body.destroy();
        for await (const chunk of body) {
          const bytes: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
          if (position + bytes.length > options.size) {
            body.destroy();
            throw new FileconvError(
              'FILE_TOO_LARGE',
              `More bytes than the upload's ${options.size} were sent.`,
              {
                details: { key, size: options.size },
              },
            );
          }
          chunks.push(Buffer.from(bytes));
          hash?.update(bytes);
          position += bytes.length;
        }
      } catch (error) {
        if (error instanceof FileconvError) throw error;
        complete = false; // the body ended early: keep what arrived
      } finally {
        options.signal?.removeEventListener('abort', stop);
      }
      if (options.checksum) {
        if (!complete) return { state, offset: options.offset };
        if (!hash!.digest().equals(options.checksum.digest)) {
          throw new FileconvError(
            'CHECKSUM_MISMATCH',
            'The bytes do not match their Upload-Checksum: none were kept.',
            {
              details: { algorithm: options.checksum.algorithm },
            },
          );
        }
      }
      part.bytes = Buffer.concat([part.bytes.subarray(0, options.offset), ...chunks]);
      return { state, offset: position };
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
