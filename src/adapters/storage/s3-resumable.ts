/**
 * Resumable uploads (tus) on S3: one multipart upload per file. The part size is fixed when the
 * upload begins, so part n always holds the same bytes of the file, whichever API node uploads
 * it and however the client cut its requests; two nodes uploading the same part upload the same
 * bytes, and the engine's version-checked record decides which state wins. An append streams
 * its body into part-sized pieces, holding at most one part in memory; bytes past the last whole
 * part go into a "tail" object (`<key>.tus-tail-<id>`) that the next append reads back first, so
 * parts always start on part boundaries. A body that breaks off keeps what arrived.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { FileconvError } from '../../core/errors.js';
import { fileTooLarge } from '../../core/file-size.js';
import type { ResumableUploads, StoredObjectInfo } from '../../core/ports/index.js';
import { isS3NoSuchUpload } from './s3-errors.js';
import { appendBody, TAIL_MARK, uploadGone } from './s3-resumable-append.js';
import {
  MAX_OBJECT_BYTES,
  partSizeFor,
  readResumableState,
  type S3ResumableState,
  storedBytes,
} from './s3-resumable-state.js';
import type { S3Sdk } from './s3-sdk.js';

/** What the resumable side needs of the S3 storage that owns it. */
export interface S3StorageAccess {
  bucket: string;
  /** The storage's partSizeBytes: the smallest part size an upload gets. */
  minPartBytes: number;
  connect(): Promise<{ sdk: S3Sdk; client: S3Client }>;
  /** The key inside the bucket (prefix added), after the storage's key rules. */
  objectKey(key: string): string;
  failure(error: unknown, key: string, action: string): FileconvError;
  head(key: string): Promise<StoredObjectInfo | null>;
}

export function createS3ResumableUploads(access: S3StorageAccess): ResumableUploads {
  const { bucket, connect, objectKey, failure } = access;

  /** Removes every tail of `Key` (the current one and any a crash or a lost race left). */
  async function deleteTails(key: string, Key: string): Promise<void> {
    const { sdk, client } = await connect();
    try {
      const listed = await client.send(
        new sdk.client.ListObjectsV2Command({ Bucket: bucket, Prefix: Key + TAIL_MARK }),
      );
      for (const object of listed.Contents ?? []) {
        if (object.Key)
          await client.send(new sdk.client.DeleteObjectCommand({ Bucket: bucket, Key: object.Key }));
      }
    } catch (error) {
      throw failure(error, key, 'Removing the upload tail of');
    }
  }

  return {
    async begin(key, { size, contentType }) {
      const Key = objectKey(key);
      if (Buffer.byteLength(Key + TAIL_MARK) + 32 > 1024) {
        throw new FileconvError(
          'INVALID_REQUEST',
          `Invalid storage key: "${key}" is too long for a resumable upload.`,
          {
            details: { key: key.slice(0, 200) },
          },
        );
      }
      if (!Number.isSafeInteger(size) || size < 0) {
        throw new FileconvError(
          'INVALID_REQUEST',
          'A resumable upload needs its size: a non-negative integer.',
          {
            details: { key, size: String(size) },
          },
        );
      }
      if (size > MAX_OBJECT_BYTES) {
        throw fileTooLarge({ limit: MAX_OBJECT_BYTES, size, setBy: 'S3 for one object (5 TiB)' });
      }
      const { sdk, client } = await connect();
      try {
        const output = await client.send(
          new sdk.client.CreateMultipartUploadCommand({ Bucket: bucket, Key, ContentType: contentType }),
        );
        if (!output.UploadId) throw new Error('CreateMultipartUpload answered without an UploadId');
        const state: S3ResumableState = {
          uploadId: output.UploadId,
          size,
          contentType,
          partSize: partSizeFor(size, access.minPartBytes),
          parts: [],
        };
        return state;
      } catch (error) {
        throw failure(error, key, 'Beginning the resumable upload of');
      }
    },

    async append(key, given, body, options) {
      let Key: string;
      let state: S3ResumableState;
      try {
        Key = objectKey(key);
        state = readResumableState(key, given);
        const start = storedBytes(state);
        if (options.offset !== start || options.size !== state.size) {
          throw new FileconvError(
            'INTERNAL',
            `Appending to "${key}": offset ${options.offset} and size ${options.size} do not match the stored state (${start} of ${state.size}).`,
            { details: { key } },
          );
        }
      } catch (error) {
        body.destroy();
        throw error;
      }
      return appendBody(access, key, Key, state, given, body, options);
    },

    async complete(key, given) {
      const Key = objectKey(key);
      const state = readResumableState(key, given);
      if (state.tail || storedBytes(state) !== state.size) {
        throw new FileconvError(
          'INVALID_STATE',
          `The resumable upload of "${key}" has ${storedBytes(state)} of its ${state.size} bytes: it cannot complete yet.`,
          { details: { key, offset: storedBytes(state), size: state.size } },
        );
      }
      const { sdk, client } = await connect();
      try {
        if (state.parts.length === 0) {
          // S3 refuses to complete an upload without parts: an empty file is a plain put.
          await client.send(
            new sdk.client.PutObjectCommand({
              Bucket: bucket,
              Key,
              Body: new Uint8Array(),
              ContentType: state.contentType,
            }),
          );
          await abortUpload(access, key, Key, state.uploadId);
        } else {
          await client.send(
            new sdk.client.CompleteMultipartUploadCommand({
              Bucket: bucket,
              Key,
              UploadId: state.uploadId,
              MultipartUpload: {
                Parts: state.parts.map((part) => ({ PartNumber: part.n, ETag: part.etag })),
              },
            }),
          );
        }
      } catch (error) {
        // Completed before (a node died between completing and recording it): the object is there.
        if (!isS3NoSuchUpload(error)) throw failure(error, key, 'Completing the resumable upload of');
      }
      await deleteTails(key, Key);
      const info = await access.head(key);
      if (!info || info.size !== state.size) throw uploadGone(key);
      return info;
    },

    async abort(key, given) {
      const Key = objectKey(key);
      const state = readResumableState(key, given);
      await abortUpload(access, key, Key, state.uploadId);
      await deleteTails(key, Key);
    },
  };
}

async function abortUpload(
  access: S3StorageAccess,
  key: string,
  Key: string,
  uploadId: string,
): Promise<void> {
  const { sdk, client } = await access.connect();
  try {
    await client.send(
      new sdk.client.AbortMultipartUploadCommand({ Bucket: access.bucket, Key, UploadId: uploadId }),
    );
  } catch (error) {
    if (!isS3NoSuchUpload(error)) throw access.failure(error, key, 'Aborting the resumable upload of');
  }
}
