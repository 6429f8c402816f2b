/**
 * The S3 storage's ResumableState: a multipart upload id, the parts recorded so far and the
 * "tail", an object holding the bytes that arrived past the last whole part. It is plain JSON
 * the engine keeps in the file record, so any API node can continue an upload; it comes back
 * from there, so it is checked (INTERNAL when it is not one of ours) before anything trusts it.
 */
import { FileconvError } from '../../core/errors.js';
import type { ResumableState } from '../../core/ports/index.js';

const MiB = 1024 * 1024;
/** S3's limits: 10,000 parts per upload, 5 TiB per object. */
export const MAX_PARTS = 10_000;
export const MAX_OBJECT_BYTES = 5 * 1024 * 1024 * MiB;

export type S3Part = { n: number; etag: string; size: number };
/** `id` names the object `<key>.tus-tail-<id>`: never a whole key, so a state cannot point elsewhere. */
export type S3Tail = { id: string; size: number };

export type S3ResumableState = {
  uploadId: string;
  /** The whole upload's size and type, as begun. */
  size: number;
  contentType: string;
  /** Fixed for the upload: part n always holds the bytes [(n-1)*partSize, n*partSize). */
  partSize: number;
  /** Parts 1..parts.length, ascending; each is partSize bytes except a final, shorter last one. */
  parts: S3Part[];
  tail?: S3Tail;
  /**
   * The tail the append that made this state replaced: still there, because that append's
   * commit could have been lost (then the engine appends again from the state before, which
   * names it). The next append deletes it; complete() and abort() sweep every tail anyway.
   */
  retired?: string;
};

/**
 * The part size of an upload of `size` bytes: at least `minimum` (the storage's partSizeBytes)
 * and large enough for the file to fit in 10,000 parts, rounded up to a MiB.
 */
export function partSizeFor(size: number, minimum: number): number {
  const needed = Math.ceil(Math.ceil(size / MAX_PARTS) / MiB) * MiB;
  return Math.max(minimum, needed);
}

/** Bytes stored so far: the parts, then the tail. */
export function storedBytes(state: S3ResumableState): number {
  let total = state.tail?.size ?? 0;
  for (const part of state.parts) total += part.size;
  return total;
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isTailId = (value: unknown): value is string =>
  typeof value === 'string' && /^[0-9a-f]{32}$/.test(value);

function corrupt(key: string, why: string): FileconvError {
  return new FileconvError(
    'INTERNAL',
    `The resumable upload state of "${key}" is not the S3 storage's: ${why}.`,
    {
      details: { key },
    },
  );
}

/** The state checked: every part whole and in place, the tail shorter than a part. */
export function readResumableState(key: string, state: ResumableState): S3ResumableState {
  const { uploadId, size, contentType, partSize, parts, tail, retired } = (state ?? {}) as Record<
    string,
    unknown
  >;
  if (!isText(uploadId) || !isCount(size) || !isText(contentType) || !isCount(partSize) || partSize === 0) {
    throw corrupt(key, 'uploadId, size, contentType or partSize is missing');
  }
  if (!Array.isArray(parts)) throw corrupt(key, 'parts is not a list');
  const checkedParts = parts.map((part: unknown, index): S3Part => {
    const { n, etag, size: bytes } = (part ?? {}) as Record<string, unknown>;
    const last = index === parts.length - 1;
    const start = index * partSize;
    const expected = Math.min(partSize, size - start);
    // Only the upload's very last part may be short, and only when it ends the file.
    if (n !== index + 1 || !isText(etag) || bytes !== expected || (!last && bytes !== partSize)) {
      throw corrupt(key, `part ${index + 1} is not where or what it should be`);
    }
    return { n, etag, size: bytes };
  });
  const checked: S3ResumableState = { uploadId, size, contentType, partSize, parts: checkedParts };
  if (tail !== undefined) {
    const { id, size: bytes } = (tail ?? {}) as Record<string, unknown>;
    if (!isTailId(id) || !isCount(bytes) || bytes === 0) {
      throw corrupt(key, 'the tail is malformed');
    }
    if (bytes >= partSize) throw corrupt(key, 'the tail is a whole part');
    checked.tail = { id, size: bytes };
  }
  if (retired !== undefined) {
    if (!isTailId(retired) || retired === checked.tail?.id)
      throw corrupt(key, 'the retired tail is malformed');
    checked.retired = retired;
  }
  if (storedBytes(checked) > size) throw corrupt(key, 'more bytes are stored than the upload holds');
  return checked;
}
