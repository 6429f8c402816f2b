/**
 * The one error class of fileconv and the table of its stable codes.
 *
 * Every failure a caller can act on is a FileconvError whose `code` comes from ERROR_CODES; the
 * HTTP adapter maps `status` straight onto the response and a job stores `{ code, message }`.
 * Codes are part of the public API: add new ones, never rename or reuse one.
 */

export const ERROR_CODES = {
  INVALID_REQUEST: 400,
  INVALID_OPTIONS: 400,
  UNAUTHORIZED: 401,
  SIGNATURE_INVALID: 403,
  URL_EXPIRED: 403,
  PLAN_FEATURE_REQUIRED: 403,
  NOT_FOUND: 404,
  ALREADY_UPLOADED: 409,
  NOT_UPLOADED: 409,
  SIZE_MISMATCH: 409,
  /** A job (or file) transition that its current state does not allow, e.g. cancel a completed job. */
  INVALID_STATE: 409,
  /** An optimistic-concurrency update lost the race: somebody else changed the record first. */
  VERSION_CONFLICT: 409,
  /** A resumable (tus) upload continued at an offset other than the one stored. */
  OFFSET_MISMATCH: 409,
  /** An Idempotency-Key whose first request is still running: retry once it has answered. */
  IDEMPOTENCY_KEY_IN_USE: 409,
  RESULT_EXPIRED: 410,
  /** A resumable (tus) upload past its expiry: its bytes are gone, start a new upload. */
  UPLOAD_EXPIRED: 410,
  FILE_TOO_LARGE: 413,
  /** A tus request without `Tus-Resumable: 1.0.0` (the only protocol version offered; see Tus-Version). */
  TUS_VERSION_UNSUPPORTED: 412,
  /** A request body (JSON) over what the endpoint reads: not a file, so not FILE_TOO_LARGE. */
  REQUEST_TOO_LARGE: 413,
  UNSUPPORTED_FORMAT: 415,
  UNSUPPORTED_CONVERSION: 422,
  CONTENT_MISMATCH: 422,
  /** An Idempotency-Key sent again with a different request: keys are not reusable. */
  IDEMPOTENCY_KEY_REUSED: 422,
  CORRUPT_INPUT: 422,
  PASSWORD_PROTECTED: 422,
  INPUT_LIMIT_EXCEEDED: 422,
  /** Input that would make a converter reach outside its sandbox (an SVG referencing a URL or file). */
  UNSAFE_INPUT: 422,
  /**
   * The page of a URL source could not be fetched: the host does not resolve, refuses the
   * connection, fails TLS, or answers the page with an error status. The URL is the client's input.
   */
  URL_UNREACHABLE: 422,
  /** Another request is appending to the same resumable upload right now (tus: retry). */
  UPLOAD_LOCKED: 423,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  CONVERSION_FAILED: 500,
  INTERNAL: 500,
  /** A converter's engine (library or binary) is not installed on this machine. */
  ENGINE_UNAVAILABLE: 500,
  /**
   * The host assembled fileconv wrongly (an engine without the storage, job store or queue the
   * HTTP service needs): thrown when it is put together, never a client's fault.
   */
  CONFIG: 500,
  /** A local input file exists but cannot be read: permission denied, or it is a folder (direct API, CLI). */
  INPUT_NOT_READABLE: 500,
  /**
   * A local output path cannot be written: its folder does not exist, permission denied, a
   * read-only file system, or the path is a folder (direct API, CLI). No client names a path over
   * HTTP, so there it would be the server's fault: 500.
   */
  OUTPUT_NOT_WRITABLE: 500,
  /**
   * A local output that is there already (the CLI replaces one only when told to), or that is the
   * input itself, which is never written over (direct API, CLI).
   */
  OUTPUT_EXISTS: 409,
  OVERLOADED: 503,
  /**
   * A backing service (Redis, object storage) cannot be reached right now: retry later. Also a
   * job refused because no worker will ever run it (an in-process queue, engine.start() not called).
   */
  UNAVAILABLE: 503,
  CONVERSION_TIMEOUT: 504,
  /** No space left on the device (or over the disk quota) while writing a result or a temp file. */
  NO_SPACE: 507,
  /** The caller aborted the conversion (AbortSignal) or canceled the job. */
  CANCELED: 499,
  /** The bytes of a tus PATCH do not match its Upload-Checksum: none of them were kept. */
  CHECKSUM_MISMATCH: 460,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FileconvErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class FileconvError extends Error {
  override readonly name = 'FileconvError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: FileconvErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_CODES[code];
    this.details = options.details;
  }

  /** The `{ code, message }` shape stored on a failed job and sent in HTTP error bodies. */
  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

export function isFileconvError(value: unknown, code?: ErrorCode): value is FileconvError {
  return value instanceof FileconvError && (code === undefined || value.code === code);
}

/**
 * Wraps anything thrown into a FileconvError, keeping the original as `cause`.
 * Errors that are already FileconvErrors pass through unchanged.
 */
export function toFileconvError(
  error: unknown,
  fallback: ErrorCode = 'INTERNAL',
  message?: string,
): FileconvError {
  if (error instanceof FileconvError) return error;
  const text = error instanceof Error ? error.message : String(error);
  return new FileconvError(fallback, message ?? text, { cause: error });
}
