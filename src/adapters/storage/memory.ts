/**
 * In-memory Storage: objects live in a Map for the life of the process. Meant for tests and
 * short-lived embedding; it follows the same key, range and size rules as the fs and S3
 * adapters so code tested against it behaves the same in production.
 */
import { Readable } from 'node:stream';
import { FileconvError } from '../../core/errors.js';
import { fileTooLarge } from '../../core/file-size.js';
import type { ByteRange, PutOptions, Storage, StoredObjectInfo } from '../../core/ports/index.js';
import { checkByteRange, resolveByteRange } from './byte-range.js';
import { checkContentType, checkMaxBytes } from './limit-stream.js';
import { createMemoryResumable } from './memory-resumable.js';
import { assertStorageKey } from './storage-key.js';

/** `get` streams in chunks of this size, like a file would, so consumers see real streaming. */
const READ_CHUNK_BYTES = 64 * 1024;

interface StoredObject {
  bytes: Buffer;
  contentType: string | undefined;
}

function info(object: StoredObject): StoredObjectInfo {
  return object.contentType === undefined
    ? { size: object.bytes.length }
    : { size: object.bytes.length, contentType: object.contentType };
}

/** Reads a body into one Buffer, refusing it (and destroying the source) past `maxBytes`. */
async function readBody(
  key: string,
  body: Readable | Uint8Array,
  maxBytes: number | undefined,
): Promise<Buffer> {
  if (body instanceof Uint8Array) {
    if (maxBytes !== undefined && body.byteLength > maxBytes) {
      throw fileTooLarge({ limit: maxBytes, size: body.byteLength });
    }
    // A copy: the caller may reuse its array after put resolves.
    return Buffer.from(body);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
      total += bytes.length;
      if (maxBytes !== undefined && total > maxBytes) throw fileTooLarge({ limit: maxBytes });
      chunks.push(bytes);
    }
  } catch (error) {
    // Leaving the loop early already destroys the stream; be explicit for non-standard sources.
    body.destroy();
    if (error instanceof FileconvError) throw error;
    throw new FileconvError('INTERNAL', `Storing "${key}" failed: ${(error as Error)?.message ?? error}`, {
      cause: error,
    });
  }
  return Buffer.concat(chunks, total);
}

function chunked(bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += READ_CHUNK_BYTES) {
    // Copies, so a consumer that writes into a chunk cannot change the stored object.
    chunks.push(Buffer.from(bytes.subarray(offset, offset + READ_CHUNK_BYTES)));
  }
  return chunks;
}

export type MemoryStorage = Storage & {
  resumable: NonNullable<Storage['resumable']>;
  /** Drops every object. */
  clear(): void;
};

/** An in-memory Storage. It takes no options. */
export function createMemoryStorage(): MemoryStorage {
  const objects = new Map<string, StoredObject>();

  return {
    resumable: createMemoryResumable((key, bytes, contentType) => {
      const object = { bytes, contentType };
      objects.set(key, object);
      return info(object);
    }),

    async put(key: string, body: Readable | Uint8Array, options: PutOptions = {}): Promise<StoredObjectInfo> {
      assertStorageKey(key);
      const maxBytes = checkMaxBytes(options.maxBytes);
      const contentType = checkContentType(options.contentType);
      const bytes = await readBody(key, body, maxBytes);
      // Replaced in one step only after the whole body arrived: readers never see a partial object.
      const object = { bytes, contentType };
      objects.set(key, object);
      return info(object);
    },

    async get(key: string, range?: ByteRange): Promise<Readable> {
      assertStorageKey(key);
      checkByteRange(key, range);
      const object = objects.get(key);
      if (!object) throw new FileconvError('NOT_FOUND', `No object under "${key}".`, { details: { key } });
      const span = resolveByteRange(key, range, object.bytes.length);
      const bytes = span ? object.bytes.subarray(span.start, span.end + 1) : object.bytes;
      return Readable.from(chunked(bytes));
    },

    async head(key: string): Promise<StoredObjectInfo | null> {
      assertStorageKey(key);
      const object = objects.get(key);
      return object ? info(object) : null;
    },

    async delete(key: string): Promise<void> {
      assertStorageKey(key);
      objects.delete(key);
    },

    clear(): void {
      objects.clear();
    },
  };
}
