/**
 * One append of a resumable upload on S3 (see s3-resumable.ts): the body cut into part-sized
 * pieces with at most one part in memory, each whole part uploaded as it fills (and reported
 * through progress), the bytes past the last whole part stored as a new tail object. The file's
 * last part waits for the body's end, so a byte too many refuses the append before it is stored.
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { FileconvError } from '../../core/errors.js';
import type { ResumableAppendOptions, ResumableState } from '../../core/ports/index.js';
import { assertChecksum, readAppendBody } from './resumable-body.js';
import { isS3NoSuchUpload, isS3NotFound } from './s3-errors.js';
import type { S3StorageAccess } from './s3-resumable.js';
import { type S3Part, type S3ResumableState, type S3Tail, storedBytes } from './s3-resumable-state.js';

/** Tails are `<key>.tus-tail-<32 hex>`, beside the object they become part of. */
export const TAIL_MARK = '.tus-tail-';

function newTailId(): string {
  return randomBytes(16).toString('hex');
}

/** The S3 side of one append: the parts and the tail it writes. */
export async function appendBody(
  access: S3StorageAccess,
  key: string,
  Key: string,
  state: S3ResumableState,
  given: ResumableState,
  body: Readable,
  options: ResumableAppendOptions,
): Promise<{ state: ResumableState; offset: number }> {
  const { bucket, failure } = access;
  const { sdk, client } = await access.connect().catch((error: unknown) => {
    body.destroy();
    throw error;
  });
  const { partSize, size } = state;
  const start = storedBytes(state);
  const parts: S3Part[] = [...state.parts];
  /** The part being filled: the old tail's bytes first, then the body's. */
  let buffer: Buffer | undefined;
  let filled = 0;
  /**
   * The tail this append read, once a part or a newer tail holds its bytes. It is deleted only
   * once a state without it is committed: after a progress() call, or by the next append (the
   * new state names it `retired`), because the engine may lose this append's commit and append
   * again from the state given here, which still needs it.
   */
  let staleTail: S3Tail | undefined;

  const tailKey = (id: string) => Key + TAIL_MARK + id;
  const snapshot = (tail: S3Tail | undefined, retired: S3Tail | undefined): S3ResumableState => {
    const { uploadId, contentType } = state;
    return {
      uploadId,
      size,
      contentType,
      partSize,
      parts: [...parts],
      ...(tail ? { tail } : {}),
      ...(retired ? { retired: retired.id } : {}),
    };
  };

  async function deleteTailQuietly(id: string): Promise<void> {
    // An orphaned tail costs little: complete() and abort() sweep every tail of the key.
    await client
      .send(new sdk.client.DeleteObjectCommand({ Bucket: bucket, Key: tailKey(id) }))
      .catch(() => {});
  }

  /**
   * A recorded tail that is not there: the upload is gone (aborted, expired: UPLOAD_EXPIRED), or
   * another append moved it on since this state (OFFSET_MISMATCH: ask for the offset again).
   */
  async function missingTail(cause: unknown): Promise<FileconvError> {
    try {
      await client.send(
        new sdk.client.ListPartsCommand({ Bucket: bucket, Key, UploadId: state.uploadId, MaxParts: 1 }),
      );
    } catch (error) {
      if (isS3NoSuchUpload(error)) return uploadGone(key, cause);
      return failure(error, key, 'Inspecting the resumable upload of');
    }
    return new FileconvError(
      'OFFSET_MISMATCH',
      `The resumable upload of "${key}" moved on since this append began: ask for its offset again.`,
      { details: { key }, cause },
    );
  }

  async function startPart(): Promise<Buffer> {
    const part = Buffer.allocUnsafeSlow(partSize);
    if (state.tail) {
      filled = await readTail(state.tail, part);
      staleTail = state.tail;
    }
    return part;
  }

  async function readTail(tail: S3Tail, into: Buffer): Promise<number> {
    let at = 0;
    try {
      const output = await client.send(
        new sdk.client.GetObjectCommand({ Bucket: bucket, Key: tailKey(tail.id) }),
      );
      for await (const chunk of output.Body as Readable) {
        const bytes = chunk as Buffer;
        if (at + bytes.length > tail.size) break;
        bytes.copy(into, at);
        at += bytes.length;
      }
    } catch (error) {
      if (isS3NotFound(error)) throw await missingTail(error);
      throw failure(error, key, 'Reading the upload tail of');
    }
    if (at !== tail.size) {
      throw new FileconvError('INTERNAL', `The upload tail of "${key}" holds other bytes than recorded.`, {
        details: { key, recorded: tail.size },
      });
    }
    return at;
  }

  async function uploadPart(part: Buffer): Promise<void> {
    const n = parts.length + 1;
    let etag: string | undefined;
    try {
      const output = await client.send(
        new sdk.client.UploadPartCommand({
          Bucket: bucket,
          Key,
          UploadId: state.uploadId,
          PartNumber: n,
          Body: part,
          ContentLength: part.length,
        }),
      );
      etag = output.ETag;
    } catch (error) {
      throw failure(error, key, `Uploading part ${n} of`);
    }
    if (!etag)
      throw new FileconvError('INTERNAL', `S3 stored part ${n} of "${key}" without an ETag.`, {
        details: { key },
      });
    parts.push({ n, etag, size: part.length });
    filled = 0;
  }

  /** Takes one chunk of the body; uploads every part it fills except the file's last one. */
  async function take(chunk: Buffer): Promise<void> {
    buffer ??= await startPart();
    let at = 0;
    while (at < chunk.length) {
      const count = Math.min(chunk.length - at, partSize - filled);
      chunk.copy(buffer, filled, at, at + count);
      filled += count;
      at += count;
      const partStart = parts.length * partSize;
      // The file's last part waits for the body's end: a byte past the size must refuse it all.
      if (filled === partSize && partStart + partSize < size) {
        await uploadPart(buffer.subarray(0, filled));
        if (!options.checksum && options.progress) {
          await options.progress(snapshot(undefined, undefined), parts.length * partSize);
          // Committed: no state that can still win needs the old tail.
          if (staleTail) await deleteTailQuietly(staleTail.id);
          staleTail = undefined;
        }
      }
    }
  }

  // The tail the given state's own append left behind: only older states name it.
  if (state.retired) await deleteTailQuietly(state.retired);

  const read = await readAppendBody(body, { ...options, offset: start }, take);
  if (read.received === 0) return { state: given, offset: start };
  if (options.checksum) {
    // All or nothing: none of the parts written here is recorded, and the old tail is untouched.
    if (read.endedEarly) return { state: given, offset: start };
    assertChecksum(options, read, key);
  }
  const offset = start + read.received;
  let tail: S3Tail | undefined;
  if (buffer && filled > 0) {
    if (offset === size) {
      await uploadPart(buffer.subarray(0, filled));
    } else {
      tail = { id: newTailId(), size: filled };
      try {
        await client.send(
          new sdk.client.PutObjectCommand({
            Bucket: bucket,
            Key: tailKey(tail.id),
            Body: buffer.subarray(0, filled),
          }),
        );
      } catch (error) {
        throw failure(error, key, 'Storing the upload tail of');
      }
    }
  }
  return { state: snapshot(tail, staleTail), offset };
}

export function uploadGone(key: string, cause?: unknown): FileconvError {
  return new FileconvError(
    'UPLOAD_EXPIRED',
    `The resumable upload of "${key}" is gone from S3: start a new upload.`,
    {
      details: { key },
      cause,
    },
  );
}
