/**
 * Maps what the AWS SDK throws onto the error table. A missing object is NOT_FOUND and an
 * unsatisfiable range INVALID_REQUEST, like every other storage. S3 out of reach (connection
 * refused or reset, a timeout, DNS not answering), S3 failing on its side (5xx) or throttling
 * (SlowDown, 429) is UNAVAILABLE: it passes, so the engine's workers wait it out and HTTP
 * answers 503 with Retry-After. Everything else (credentials, a missing bucket, a wrong
 * endpoint or region) is INTERNAL, since waiting does not fix configuration. Every error keeps
 * the SDK error as `cause` and a message that says whether to look at the credentials, the
 * endpoint or the bucket, since that is what an operator fixes.
 */
import { PassThrough, type Readable } from 'node:stream';
import { FileconvError } from '../../core/errors.js';

interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

function shape(error: unknown): SdkErrorShape {
  return typeof error === 'object' && error !== null ? (error as SdkErrorShape) : {};
}

/** The HTTP status S3 answered with, when the error came from a response. */
export function s3Status(error: unknown): number | undefined {
  const status = shape(error).$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

function errorName(error: unknown): string {
  const { name, code } = shape(error);
  if (typeof code === 'string' && code !== '') return code;
  return typeof name === 'string' ? name : 'Error';
}

/** True for "no such object" (GetObject's NoSuchKey, HeadObject's bodiless 404). */
export function isS3NotFound(error: unknown): boolean {
  const name = errorName(error);
  if (name === 'NoSuchBucket') return false;
  return name === 'NoSuchKey' || name === 'NotFound' || s3Status(error) === 404;
}

/**
 * True for "no such multipart upload": it was completed or aborted already, or a bucket
 * lifecycle rule (AbortIncompleteMultipartUpload) removed it.
 */
export function isS3NoSuchUpload(error: unknown): boolean {
  return errorName(error) === 'NoSuchUpload';
}

/**
 * A completion naming parts S3 does not have (a wrong ETag, a part never uploaded), out of
 * order, or too small: what the client sent is wrong, so INVALID_REQUEST, not an S3 failure.
 */
const CLIENT_PART_ERRORS = new Set(['InvalidPart', 'InvalidPartOrder', 'EntityTooSmall']);

const CREDENTIAL_ERRORS = new Set([
  'CredentialsProviderError',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'TokenRefreshRequired',
  'AccessDenied',
  'AllAccessDisabled',
]);

/** The endpoint could not be reached or stopped answering: transient as far as we can tell. */
const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'TimeoutError',
  'RequestTimeout',
]);

/** The endpoint answered, but it is not where this bucket lives: configuration. */
const ENDPOINT_ERRORS = new Set(['EndpointError', 'PermanentRedirect']);

/** S3 (or a compatible service) failing on its side or asking the client to slow down. */
const SERVICE_ERRORS = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'ServiceUnavailable',
  'InternalError',
]);

/** What an UNAVAILABLE answer suggests to HTTP clients: a few of the worker's backoff steps. */
const S3_RETRY_AFTER_SECONDS = 5;

export interface S3ErrorContext {
  /** What was being done, for the message: 'Reading', 'Storing', ... */
  action: string;
  key: string;
  bucket: string;
  /** The endpoint, when one was configured, so a connection error can name it. */
  endpoint: string | undefined;
}

/** One SDK (or network) error as a FileconvError; ours pass through. */
export function s3Error(error: unknown, context: S3ErrorContext): FileconvError {
  if (error instanceof FileconvError) return error;
  const { action, key, bucket, endpoint } = context;
  const name = errorName(error);
  const status = s3Status(error);
  const text = typeof shape(error).message === 'string' ? (shape(error).message as string) : String(error);
  const details = { key, bucket, s3Error: name, ...(status === undefined ? {} : { status }) };

  if (isS3NoSuchUpload(error)) {
    // Checked before "not found": S3 answers it with 404, but the object is not what is missing.
    return new FileconvError(
      'UPLOAD_EXPIRED',
      `${action} "${key}" in S3 failed: its multipart upload is gone (completed, aborted or expired); start a new upload.`,
      { details, cause: error },
    );
  }
  if (CLIENT_PART_ERRORS.has(name)) {
    return new FileconvError(
      'INVALID_REQUEST',
      `${action} "${key}" failed: S3 refused the parts (${name}: ${text}).`,
      {
        details,
        cause: error,
      },
    );
  }
  if (isS3NotFound(error)) {
    return new FileconvError('NOT_FOUND', `No object under "${key}".`, { details: { key }, cause: error });
  }
  if (name === 'InvalidRange' || status === 416) {
    return new FileconvError('INVALID_REQUEST', `Invalid byte range for "${key}": it is not satisfiable.`, {
      details: { key },
      cause: error,
    });
  }
  const where = endpoint === undefined ? 'the S3 endpoint of the region' : `the endpoint ${endpoint}`;
  const unavailable = (hint: string) =>
    new FileconvError('UNAVAILABLE', `${action} "${key}" in S3 failed: ${hint}.`, {
      details: { ...details, retryAfterSeconds: S3_RETRY_AFTER_SECONDS },
      cause: error,
    });
  if (
    NETWORK_ERRORS.has(name) ||
    (status === undefined && /ECONN|ENOTFOUND|EAI_AGAIN|socket|aborted/i.test(text))
  ) {
    return unavailable(
      `${where} could not be reached (${name}: ${text}); if this lasts, check the "endpoint" and "region" options`,
    );
  }
  if (SERVICE_ERRORS.has(name) || status === 429 || (status !== undefined && status >= 500)) {
    return unavailable(`S3 is unavailable or throttling (${name}${status ? ` ${status}` : ''}: ${text})`);
  }
  let hint: string;
  if (name === 'NoSuchBucket') {
    hint = `the bucket "${bucket}" does not exist (check the "bucket" option)`;
  } else if (CREDENTIAL_ERRORS.has(name) || status === 403) {
    hint = `S3 refused access (${name}: ${text}); check the "credentials" option (or the AWS credential chain: environment, shared config, instance role) and the bucket's permissions`;
  } else if (ENDPOINT_ERRORS.has(name)) {
    hint = `${where} is not the right one for this bucket (${name}: ${text}); check the "endpoint" and "region" options`;
  } else {
    hint = `${name}: ${text}`;
  }
  return new FileconvError('INTERNAL', `${action} "${key}" in S3 failed: ${hint}.`, {
    details,
    cause: error,
  });
}

/**
 * `source` with its errors mapped by `map`: an object body that breaks off midway (the
 * connection reset) fails as UNAVAILABLE, like a request that could not start, so whoever
 * reads it can tell an outage from a bad file. Destroying the result destroys `source`.
 */
export function mapStreamErrors(source: Readable, map: (error: unknown) => Error): Readable {
  const mapped = new PassThrough();
  source.once('error', (error) => mapped.destroy(map(error)));
  mapped.once('close', () => {
    if (!source.destroyed) source.destroy();
  });
  source.pipe(mapped);
  return mapped;
}
