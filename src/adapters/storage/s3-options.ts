/**
 * Options of the S3 storage and their fail-fast validation: a misconfigured bucket, endpoint or
 * part size stops the host at start-up, naming the option, rather than on the first upload.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import {
  checkBoolean,
  checkNonEmptyString,
  checkOptionsObject,
  checkPositiveInteger,
  invalidOption,
} from '../validate-options.js';
import { splitStorageKey } from './storage-key.js';

export const ADAPTER = 'createS3Storage';

const MiB = 1024 * 1024;
/** S3's limits on a multipart upload's parts (the last part may be smaller). */
export const MIN_PART_BYTES = 5 * MiB;
export const MAX_PART_BYTES = 5 * 1024 * MiB;

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** For temporary credentials (STS). */
  sessionToken?: string;
}

export interface S3StorageOptions {
  /** Bucket holding the objects; it must exist. Required. */
  bucket: string;
  /** AWS region of the bucket. Default 'us-east-1'. */
  region?: string;
  /** Endpoint URL of an S3-compatible service (MinIO, s3rver, R2, ...). Default: AWS's endpoint for the region. */
  endpoint?: string;
  /** Address the bucket in the path (`endpoint/bucket/key`) instead of the host name; s3rver and MinIO need it. Default false. */
  forcePathStyle?: boolean;
  /** Static credentials. Default: the SDK's provider chain (environment, shared config files, instance or task role). */
  credentials?: S3Credentials;
  /** Prepended to every key inside the bucket, e.g. 'fileconv/' to share a bucket. Default ''. */
  prefix?: string;
  /** Part size of multipart uploads (5 MiB to 5 GiB); bodies up to this size go in one PUT. Default 8 MiB. */
  partSizeBytes?: number;
  /** Parts uploaded at once by one put; a put holds up to queueSize × partSizeBytes in memory. Default 4. */
  queueSize?: number;
  /**
   * An S3Client to use instead of making one; region, endpoint, forcePathStyle and credentials
   * must then be left out. close() leaves it open. Default: a client made from the options above.
   */
  client?: S3Client;
}

export interface ResolvedS3Options {
  bucket: string;
  prefix: string;
  partSizeBytes: number;
  queueSize: number;
  /** Set when the caller passed a client. */
  client: S3Client | undefined;
  /** How to make a client when none was passed. */
  clientConfig: {
    region: string;
    endpoint: string | undefined;
    forcePathStyle: boolean;
    credentials: S3Credentials | undefined;
  };
}

const CLIENT_SETTINGS = ['region', 'endpoint', 'forcePathStyle', 'credentials'] as const;

function checkBucket(value: unknown): string {
  const bucket = checkNonEmptyString(ADAPTER, 'bucket', value);
  // Looser than AWS's naming rules (S3-compatible services differ) but never a path or a header hazard.
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/.test(bucket)) {
    throw invalidOption(ADAPTER, 'bucket', 'a bucket name (letters, digits, ".", "-", "_")', value);
  }
  return bucket;
}

function checkEndpoint(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const expected = 'an http(s) URL such as "http://127.0.0.1:9000"';
  if (typeof value !== 'string') throw invalidOption(ADAPTER, 'endpoint', expected, value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidOption(ADAPTER, 'endpoint', expected, value);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidOption(ADAPTER, 'endpoint', expected, value);
  return value;
}

function checkCredentials(value: unknown): S3Credentials | undefined {
  if (value === undefined) return undefined;
  const expected = 'an object { accessKeyId, secretAccessKey, sessionToken? } of non-empty strings';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidOption(ADAPTER, 'credentials', expected, value);
  }
  const { accessKeyId, secretAccessKey, sessionToken } = value as Record<string, unknown>;
  const filled = (text: unknown) => typeof text === 'string' && text !== '';
  if (
    !filled(accessKeyId) ||
    !filled(secretAccessKey) ||
    (sessionToken !== undefined && !filled(sessionToken))
  ) {
    // Never echo a secret: describe the shape only.
    throw invalidOption(ADAPTER, 'credentials', expected, 'an object');
  }
  return sessionToken === undefined
    ? { accessKeyId: accessKeyId as string, secretAccessKey: secretAccessKey as string }
    : {
        accessKeyId: accessKeyId as string,
        secretAccessKey: secretAccessKey as string,
        sessionToken: sessionToken as string,
      };
}

function checkPrefix(value: unknown): string {
  if (value === undefined || value === '') return '';
  const expected = 'a key prefix ending in "/", such as "fileconv/"';
  if (typeof value !== 'string' || !value.endsWith('/'))
    throw invalidOption(ADAPTER, 'prefix', expected, value);
  try {
    splitStorageKey(value.slice(0, -1)); // the same rules as keys: no '..', no leading '/', ...
  } catch {
    throw invalidOption(ADAPTER, 'prefix', expected, value);
  }
  return value;
}

function checkClient(value: unknown): S3Client | undefined {
  if (value === undefined) return undefined;
  if (
    value === null ||
    typeof value !== 'object' ||
    typeof (value as { send?: unknown }).send !== 'function'
  ) {
    throw invalidOption(ADAPTER, 'client', 'an S3Client from @aws-sdk/client-s3', value);
  }
  return value as S3Client;
}

export function resolveS3Options(options: S3StorageOptions): ResolvedS3Options {
  const given = checkOptionsObject(ADAPTER, options);
  const bucket = checkBucket(given.bucket);
  const client = checkClient(given.client);
  if (client) {
    const clash = CLIENT_SETTINGS.find((name) => given[name] !== undefined);
    if (clash) {
      throw invalidOption(
        ADAPTER,
        clash,
        'left out when "client" is given (configure the client instead)',
        given[clash],
      );
    }
  }
  const region =
    given.region === undefined ? 'us-east-1' : checkNonEmptyString(ADAPTER, 'region', given.region);
  const partSizeBytes = checkPositiveInteger(ADAPTER, 'partSizeBytes', given.partSizeBytes, 8 * MiB);
  if (partSizeBytes < MIN_PART_BYTES || partSizeBytes > MAX_PART_BYTES) {
    throw invalidOption(
      ADAPTER,
      'partSizeBytes',
      `an integer from ${MIN_PART_BYTES} (5 MiB) to ${MAX_PART_BYTES} (5 GiB)`,
      partSizeBytes,
    );
  }
  return {
    bucket,
    prefix: checkPrefix(given.prefix),
    partSizeBytes,
    queueSize: checkPositiveInteger(ADAPTER, 'queueSize', given.queueSize, 4),
    client,
    clientConfig: {
      region,
      endpoint: checkEndpoint(given.endpoint),
      forcePathStyle: checkBoolean(ADAPTER, 'forcePathStyle', given.forcePathStyle, false),
      credentials: checkCredentials(given.credentials),
    },
  };
}
