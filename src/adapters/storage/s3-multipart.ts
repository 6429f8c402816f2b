/**
 * Presigned multipart uploads on S3: the API node starts a multipart upload and signs one
 * UploadPart URL per part, the client PUTs the parts straight to the bucket (in parallel, and
 * again after a failure), then the node completes it with the ETags the client collected. Each
 * URL signs its part's Content-Length, so a part of another size is refused by S3 (403), and
 * the part size follows the same rule as resumable uploads (at least partSizeBytes, at most
 * 10,000 parts). Nothing is kept here between calls: the upload id travels with the client, and
 * S3 refuses an upload id that is not an upload of the key (NoSuchUpload).
 */
import { FileconvError } from '../../core/errors.js';
import type { PresignedMultipartUploads, PresignedPart } from '../../core/ports/index.js';
import { isS3NoSuchUpload } from './s3-errors.js';
import { MAX_EXPIRES_IN } from './s3-presign.js';
import type { S3StorageAccess } from './s3-resumable.js';
import { MAX_OBJECT_BYTES, MAX_PARTS, partSizeFor } from './s3-resumable-state.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: header and query values must not carry them.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

function invalid(key: string, what: string, given: unknown): FileconvError {
  return new FileconvError('INVALID_REQUEST', `Cannot upload "${key}" in parts: ${what}.`, {
    details: { key, given: String(given).slice(0, 100) },
  });
}

const isHeaderText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value !== '' && value.length <= max && !CONTROL_CHARACTERS.test(value);

function checkUploadId(key: string, uploadId: unknown): string {
  if (!isHeaderText(uploadId, 1024))
    throw invalid(key, '"uploadId" must be the id the upload was given', uploadId);
  return uploadId;
}

export function createS3PresignedMultipart(access: S3StorageAccess): PresignedMultipartUploads {
  const { bucket, connect, objectKey, failure } = access;

  async function abort(key: string, Key: string, uploadId: string): Promise<void> {
    const { sdk, client } = await connect();
    try {
      await client.send(
        new sdk.client.AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId: uploadId }),
      );
    } catch (error) {
      if (!isS3NoSuchUpload(error)) throw failure(error, key, 'Aborting the multipart upload of');
    }
  }

  return {
    async presign(key, { contentType, size, expiresIn }) {
      const Key = objectKey(key);
      if (!isHeaderText(contentType, 255))
        throw invalid(key, '"contentType" must be a MIME type', contentType);
      if (!Number.isSafeInteger(size) || size < 1 || size > MAX_OBJECT_BYTES) {
        throw invalid(
          key,
          `"size" must be a whole number of bytes from 1 to ${MAX_OBJECT_BYTES} (5 TiB)`,
          size,
        );
      }
      if (!Number.isSafeInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_EXPIRES_IN) {
        throw invalid(
          key,
          `"expiresIn" must be a whole number of seconds from 1 to ${MAX_EXPIRES_IN}`,
          expiresIn,
        );
      }
      const { sdk, client } = await connect();
      const partSize = partSizeFor(size, access.minPartBytes);
      const count = Math.ceil(size / partSize);
      if (count > MAX_PARTS) throw invalid(key, 'the file needs more than 10,000 parts', size);
      let uploadId: string | undefined;
      try {
        const output = await client.send(
          new sdk.client.CreateMultipartUploadCommand({ Bucket: bucket, Key, ContentType: contentType }),
        );
        uploadId = output.UploadId;
        if (!uploadId) throw new Error('CreateMultipartUpload answered without an UploadId');
        const parts: PresignedPart[] = [];
        for (let partNumber = 1; partNumber <= count; partNumber++) {
          const length = Math.min(partSize, size - (partNumber - 1) * partSize);
          const command = new sdk.client.UploadPartCommand({
            Bucket: bucket,
            Key,
            UploadId: uploadId,
            PartNumber: partNumber,
            ContentLength: length,
          });
          // The length is signed: S3 refuses (403) a part of any other size.
          const url = await sdk.presigner.getSignedUrl(client, command, {
            expiresIn,
            signableHeaders: new Set(['content-length']),
          });
          parts.push({ partNumber, url });
        }
        return { uploadId, partSize, parts };
      } catch (error) {
        if (uploadId) await abort(key, Key, uploadId).catch(() => {});
        throw failure(error, key, 'Starting the multipart upload of');
      }
    },

    async complete(key, { uploadId, parts }) {
      const Key = objectKey(key);
      const UploadId = checkUploadId(key, uploadId);
      if (!Array.isArray(parts) || parts.length === 0 || parts.length > MAX_PARTS) {
        throw invalid(key, '"parts" must list from 1 to 10,000 parts', parts?.length);
      }
      let previous = 0;
      for (const part of parts) {
        const { partNumber, etag } = part ?? {};
        if (!Number.isSafeInteger(partNumber) || partNumber <= previous || partNumber > MAX_PARTS) {
          throw invalid(key, 'part numbers must ascend, from 1 to 10,000, each once', partNumber);
        }
        if (!isHeaderText(etag, 1024))
          throw invalid(key, `part ${partNumber} needs the ETag its PUT answered`, etag);
        previous = partNumber;
      }
      const { sdk, client } = await connect();
      try {
        await client.send(
          new sdk.client.CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key,
            UploadId,
            MultipartUpload: {
              Parts: parts.map(({ partNumber, etag }) => ({ PartNumber: partNumber, ETag: etag })),
            },
          }),
        );
      } catch (error) {
        // Completed before (the answer was lost and the client retried): the object is there.
        const done = isS3NoSuchUpload(error) ? await access.head(key) : null;
        if (!done) throw failure(error, key, 'Completing the multipart upload of');
        return done;
      }
      const info = await access.head(key);
      if (!info) {
        throw new FileconvError(
          'INTERNAL',
          `S3 completed the multipart upload of "${key}" but has no object.`,
          {
            details: { key },
          },
        );
      }
      return info;
    },

    async abort(key, { uploadId }) {
      await abort(key, objectKey(key), checkUploadId(key, uploadId));
    },
  };
}
