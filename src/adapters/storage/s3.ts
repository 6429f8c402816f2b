/**
 * S3 Storage (`fileconv/storage/s3`): objects in an S3 bucket, or in any S3-compatible service
 * (MinIO, R2, s3rver) through `endpoint` + `forcePathStyle`. This is the storage for running on
 * many machines: API nodes hand clients presigned URLs (presignPut/presignGet) so bytes go to
 * and from S3 directly, and workers stream objects in and out. Puts stream through lib-storage's
 * Upload (one PUT up to `partSizeBytes`, multipart above) with `maxBytes` enforced while
 * streaming; an oversized or failed put aborts its multipart upload, so nothing is stored and
 * no parts are left behind. The AWS SDK is an optional dependency, loaded on first use.
 */
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import type { GetObjectCommandOutput, HeadObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import { create as createContentDisposition } from 'content-disposition';
import { FileconvError, isFileconvError } from '../../core/errors.js';
import { fileTooLarge } from '../../core/file-size.js';
import type {
  ByteRange,
  PresignedMultipartUploads,
  PutOptions,
  ResumableUploads,
  Storage,
  StoredObjectInfo,
} from '../../core/ports/index.js';
import { checkByteRange } from './byte-range.js';
import { ByteLimitStream, checkContentType, checkMaxBytes } from './limit-stream.js';
import { isS3NotFound, mapStreamErrors, s3Error } from './s3-errors.js';
import { createS3PresignedMultipart } from './s3-multipart.js';
import { ADAPTER, resolveS3Options, type S3StorageOptions } from './s3-options.js';
import {
  checkPresignGet,
  checkPresignPut,
  type PresignGetOptions,
  type PresignPutOptions,
} from './s3-presign.js';
import { cutToRange, returnedWindow } from './s3-range.js';
import { createS3ResumableUploads, type S3StorageAccess } from './s3-resumable.js';
import { loadS3Sdk, type S3Sdk } from './s3-sdk.js';
import { assertStorageKey } from './storage-key.js';

export type { S3Credentials, S3StorageOptions } from './s3-options.js';
export type { PresignGetOptions, PresignPutOptions } from './s3-presign.js';

/** S3's limit on a key, prefix included. */
const MAX_S3_KEY_BYTES = 1024;
/**
 * User metadata marking an object put without a content type. The SDK sends
 * application/octet-stream when none is given, so without the mark head() could not tell
 * "recorded nothing" (what memory and fs report) from a caller's own application/octet-stream.
 */
const UNTYPED_METADATA = { 'fileconv-untyped': '1' };

export type S3Storage = Storage & {
  /** Uploads in pieces (tus): one S3 multipart upload per file, see s3-resumable.ts. */
  resumable: ResumableUploads;
  /** Multipart uploads straight from the client through presigned part URLs, see s3-multipart.ts. */
  presignedMultipart: PresignedMultipartUploads;
  presignPut(key: string, options: PresignPutOptions): Promise<string>;
  presignGet(key: string, options: PresignGetOptions): Promise<string>;
  /** Destroys the client the storage made (never one passed as `client`); later calls reject. */
  close(): Promise<void>;
};

function info(output: HeadObjectCommandOutput): StoredObjectInfo {
  const size = output.ContentLength ?? 0;
  const untyped = output.Metadata?.['fileconv-untyped'] === '1';
  const contentType = output.ContentType;
  return untyped || contentType === undefined || contentType === '' ? { size } : { size, contentType };
}

export function createS3Storage(options: S3StorageOptions): S3Storage {
  const config = resolveS3Options(options);
  const { bucket, prefix, partSizeBytes, queueSize } = config;
  const endpoint = config.clientConfig.endpoint;
  let connection: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;
  let ownClient: S3Client | undefined;
  let closed = false;

  /** The SDK and the client, made on first use: ENGINE_UNAVAILABLE when the SDK is missing. */
  function connect(): Promise<{ sdk: S3Sdk; client: S3Client }> {
    if (closed) {
      return Promise.reject(new FileconvError('INTERNAL', `${ADAPTER}: the storage was closed.`));
    }
    connection ??= loadS3Sdk().then(
      (sdk) => {
        if (config.client) return { sdk, client: config.client };
        const { region, endpoint: url, forcePathStyle, credentials } = config.clientConfig;
        ownClient = new sdk.client.S3Client({
          region,
          forcePathStyle,
          ...(url === undefined ? {} : { endpoint: url }),
          ...(credentials === undefined ? {} : { credentials }),
          // The SDK's default (WHEN_SUPPORTED) sends streamed bodies aws-chunked with trailing
          // checksums; S3-compatible servers that do not decode that store the framing as data.
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        });
        return { sdk, client: ownClient };
      },
      (error: unknown) => {
        connection = undefined; // installing the SDK later helps
        throw error;
      },
    );
    return connection;
  }

  /** The key inside the bucket; INVALID_REQUEST (before any request) for a key the rules refuse. */
  function objectKey(key: string): string {
    assertStorageKey(key);
    const full = prefix + key;
    if (Buffer.byteLength(full) > MAX_S3_KEY_BYTES) {
      throw new FileconvError(
        'INVALID_REQUEST',
        `Invalid storage key: with the prefix it is longer than ${MAX_S3_KEY_BYTES} bytes.`,
        {
          details: { key: key.slice(0, 200), prefix },
        },
      );
    }
    return full;
  }

  function failure(error: unknown, key: string, action: string): FileconvError {
    return s3Error(error, { action, key, bucket, endpoint });
  }

  async function upload(
    key: string,
    Key: string,
    body: Readable | Uint8Array,
    contentType: string | undefined,
    maxBytes: number | undefined,
  ): Promise<number> {
    const { sdk, client } = await connect();
    const params = {
      Bucket: bucket,
      Key,
      ...(contentType === undefined ? { Metadata: UNTYPED_METADATA } : { ContentType: contentType }),
    };
    if (!(body instanceof Uint8Array)) {
      const limit = new ByteLimitStream(maxBytes);
      // pipeline destroys the caller's stream when the limit trips or the upload gives up.
      pipeline(body, limit, () => {});
      const streamed = new sdk.libStorage.Upload({
        client,
        params: { ...params, Body: limit },
        partSize: partSizeBytes,
        queueSize,
      });
      try {
        // On any failure (the limit included) Upload aborts its multipart upload before rejecting.
        await streamed.done();
      } catch (error) {
        limit.destroy();
        if (maxBytes !== undefined && limit.bytes > maxBytes) throw overflow(maxBytes, error);
        const sourceError = body.errored;
        if (sourceError) {
          // The caller's stream failed (a client went away), not S3: say so, not "endpoint unreachable".
          const reason = sourceError instanceof Error ? sourceError.message : String(sourceError);
          throw new FileconvError('INTERNAL', `Storing "${key}" failed: its body stream failed: ${reason}`, {
            details: { key },
            cause: sourceError,
          });
        }
        throw error;
      }
      return limit.bytes;
    }
    await new sdk.libStorage.Upload({
      client,
      params: { ...params, Body: body },
      partSize: partSizeBytes,
      queueSize,
    }).done();
    return body.byteLength;
  }

  async function head(key: string): Promise<StoredObjectInfo | null> {
    const Key = objectKey(key);
    const { sdk, client } = await connect();
    try {
      const output = await client.send(new sdk.client.HeadObjectCommand({ Bucket: bucket, Key }));
      return info(output);
    } catch (error) {
      // A bodiless 404 cannot tell a missing bucket from a missing key; both mean "no object".
      if (isS3NotFound(error)) return null;
      throw failure(error, key, 'Inspecting');
    }
  }

  const access: S3StorageAccess = { bucket, minPartBytes: partSizeBytes, connect, objectKey, failure, head };

  return {
    resumable: createS3ResumableUploads(access),
    presignedMultipart: createS3PresignedMultipart(access),

    async put(
      key: string,
      body: Readable | Uint8Array,
      putOptions: PutOptions = {},
    ): Promise<StoredObjectInfo> {
      try {
        const Key = objectKey(key);
        const maxBytes = checkMaxBytes(putOptions.maxBytes);
        const contentType = checkContentType(putOptions.contentType);
        if (body instanceof Uint8Array && maxBytes !== undefined && body.byteLength > maxBytes) {
          throw fileTooLarge({ limit: maxBytes, size: body.byteLength });
        }
        const size = await upload(key, Key, body, contentType, maxBytes);
        return contentType === undefined ? { size } : { size, contentType };
      } catch (error) {
        if (!(body instanceof Uint8Array) && !body.destroyed) body.destroy();
        throw failure(error, key, 'Storing');
      }
    },

    async get(key: string, range?: ByteRange): Promise<Readable> {
      const Key = objectKey(key);
      checkByteRange(key, range);
      const { sdk, client } = await connect();
      let output: GetObjectCommandOutput;
      try {
        output = await client.send(
          new sdk.client.GetObjectCommand({
            Bucket: bucket,
            Key,
            ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end ?? ''}` }),
          }),
        );
      } catch (error) {
        throw failure(error, key, 'Reading');
      }
      const raw = output.Body as Readable | undefined;
      if (!raw || typeof raw.pipe !== 'function') {
        throw new FileconvError(
          'INTERNAL',
          `Reading "${key}" from S3 failed: the answer has no body stream.`,
          {
            details: { key },
          },
        );
      }
      const body = mapStreamErrors(raw, (error) => failure(error, key, 'Reading'));
      if (range === undefined) return body;
      try {
        return cutToRange(key, range, body, returnedWindow(output.ContentRange, output.ContentLength));
      } catch (error) {
        body.destroy();
        throw error;
      }
    },

    head,

    async delete(key: string): Promise<void> {
      const Key = objectKey(key);
      const { sdk, client } = await connect();
      try {
        await client.send(new sdk.client.DeleteObjectCommand({ Bucket: bucket, Key }));
      } catch (error) {
        // S3 answers 204 for a missing key; some compatible services answer 404.
        if (isS3NotFound(error)) return;
        throw failure(error, key, 'Deleting');
      }
    },

    async presignPut(key: string, options: PresignPutOptions): Promise<string> {
      const Key = objectKey(key);
      const { contentType, size, expiresIn } = checkPresignPut(key, options);
      const { sdk, client } = await connect();
      // Content-Type and Content-Length are signed: S3 refuses (403) a PUT with another type or
      // size, so the declared size and type are what lands in the bucket.
      const command = new sdk.client.PutObjectCommand({
        Bucket: bucket,
        Key,
        ContentType: contentType,
        ContentLength: size,
      });
      try {
        return await sdk.presigner.getSignedUrl(client, command, {
          expiresIn,
          signableHeaders: new Set(['content-type', 'content-length']),
        });
      } catch (error) {
        throw failure(error, key, 'Presigning');
      }
    },

    async presignGet(key: string, options: PresignGetOptions): Promise<string> {
      const Key = objectKey(key);
      const { expiresIn, fileName, contentType } = checkPresignGet(key, options);
      const { sdk, client } = await connect();
      const command = new sdk.client.GetObjectCommand({
        Bucket: bucket,
        Key,
        ...(fileName === undefined ? {} : { ResponseContentDisposition: createContentDisposition(fileName) }),
        ...(contentType === undefined ? {} : { ResponseContentType: contentType }),
      });
      try {
        return await sdk.presigner.getSignedUrl(client, command, { expiresIn });
      } catch (error) {
        throw failure(error, key, 'Presigning');
      }
    },

    async close(): Promise<void> {
      closed = true;
      ownClient?.destroy();
      ownClient = undefined;
    },
  };
}

/**
 * FILE_TOO_LARGE for a put the limit stopped. When aborting the multipart upload also failed,
 * the SDK throws that failure instead; the overflow is still the answer, the abort a detail.
 */
function overflow(maxBytes: number, error: unknown): FileconvError {
  if (isFileconvError(error, 'FILE_TOO_LARGE')) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return fileTooLarge({ limit: maxBytes, details: { abortFailed: reason }, cause: error });
}
