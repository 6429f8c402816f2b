/**
 * FileconvApiError: what every failed call of the client throws. An HTTP answer outside 2xx
 * carries the API's `{ error: { code, message, details } }` envelope; a missing or foreign body
 * (a proxy's HTML page, an object store's XML) still gets a code from the status, so callers can
 * always switch on `code`. A request that got no answer at all is code NETWORK_ERROR, status 0.
 * An abort through an AbortSignal is not wrapped: the signal's reason is rethrown as fetch does.
 */
import type { ClientErrorCode, ErrorCode, JobView } from './types.js';

export interface FileconvApiErrorInit {
  code: ClientErrorCode;
  message: string;
  /** HTTP status; 0 when no answer arrived or the error is a job's own failure. */
  status: number;
  details?: Record<string, unknown>;
  retryAfterSeconds?: number;
  requestId?: string;
  cause?: unknown;
}

export class FileconvApiError extends Error {
  override readonly name = 'FileconvApiError';
  readonly code: ClientErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  /** Seconds the server asked to wait (Retry-After), on 429 and 503 answers. */
  readonly retryAfterSeconds: number | undefined;
  /** The server's request id (X-Request-Id), when it sends one. */
  readonly requestId: string | undefined;

  constructor(init: FileconvApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.details = init.details;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.requestId = init.requestId;
  }
}

export function isFileconvApiError(value: unknown, code?: ClientErrorCode): value is FileconvApiError {
  return value instanceof FileconvApiError && (code === undefined || value.code === code);
}

/** The code a status stands for when the body does not say (a non-fileconv answer). */
function codeOfStatus(status: number): ErrorCode {
  const byStatus: Record<number, ErrorCode> = {
    400: 'INVALID_REQUEST',
    401: 'UNAUTHORIZED',
    403: 'SIGNATURE_INVALID',
    404: 'NOT_FOUND',
    409: 'INVALID_STATE',
    410: 'RESULT_EXPIRED',
    413: 'FILE_TOO_LARGE',
    415: 'UNSUPPORTED_FORMAT',
    422: 'UNSUPPORTED_CONVERSION',
    429: 'RATE_LIMITED',
    503: 'OVERLOADED',
    504: 'CONVERSION_TIMEOUT',
  };
  return byStatus[status] ?? 'INTERNAL';
}

/** Retry-After as seconds: delta-seconds or an HTTP date (RFC 9110 section 10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a non-2xx response (consuming its body) into a FileconvApiError. */
export async function errorFromResponse(response: Response): Promise<FileconvApiError> {
  const text = await response.text().catch(() => '');
  let envelope: unknown = null;
  try {
    envelope = text === '' ? null : JSON.parse(text);
  } catch {
    envelope = null;
  }
  const error = isRecord(envelope) && isRecord(envelope.error) ? envelope.error : undefined;
  const retryAfterSeconds =
    parseRetryAfter(response.headers.get('retry-after')) ??
    (isRecord(error?.details) && typeof error.details.retryAfterSeconds === 'number'
      ? error.details.retryAfterSeconds
      : undefined);
  const requestId = response.headers.get('x-request-id');
  return new FileconvApiError({
    code: typeof error?.code === 'string' ? (error.code as ErrorCode) : codeOfStatus(response.status),
    message:
      typeof error?.message === 'string'
        ? error.message
        : `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
    status: response.status,
    ...(isRecord(error?.details) ? { details: error.details } : {}),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(requestId ? { requestId } : {}),
  });
}

/** A fetch that threw: an abort passes through untouched, anything else is NETWORK_ERROR. */
export function networkError(error: unknown, signal: AbortSignal | undefined, url: string): unknown {
  if (signal?.aborted) return signal.reason;
  if (error instanceof Error && error.name === 'AbortError') return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new FileconvApiError({
    code: 'NETWORK_ERROR',
    message: `No answer from ${new URL(url).origin}: ${reason}`,
    status: 0,
    cause: error,
  });
}

/** The error of a job that did not complete: its own error code, or what its status means. */
export function jobFailure(job: JobView): FileconvApiError {
  const byStatus = { expired: 'RESULT_EXPIRED', canceled: 'CANCELED' } as const;
  const code =
    job.error?.code ??
    (job.status === 'expired' || job.status === 'canceled' ? byStatus[job.status] : 'INVALID_STATE');
  return new FileconvApiError({
    code,
    message: job.error?.message ?? `Job ${job.jobId} is ${job.status}, not completed.`,
    status: 0,
    details: { jobId: job.jobId, status: job.status },
  });
}
