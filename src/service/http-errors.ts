/**
 * Errors on the wire: every failure answers `{ "error": { code, message, details? } }` with the
 * status of its code (DESIGN.md section 5). Request validation failures are translated into the
 * same shape; anything unexpected is a 500 INTERNAL whose details stay in the server log, never
 * in the response.
 */
import type { ZodError } from 'zod';
import { FileconvError, isFileconvError } from '../core/errors.js';
import { NO_SPACE_RETRY_AFTER_SECONDS } from '../kit/local-files.js';
import { type HttpAnswer, jsonAnswer } from './exchange.js';
import type { ErrorEnvelope } from './wire/index.js';

/** The FileconvError a request failure stands for. */
export function toHttpError(error: unknown): FileconvError {
  if (isFileconvError(error)) return error;
  return new FileconvError('INTERNAL', 'Something went wrong on our side.', { cause: error });
}

/** A 400 INVALID_REQUEST listing what failed validation, field by field. */
export function invalidRequest(error: ZodError, what = 'request body'): FileconvError {
  const issues = error.issues.map((issue) => ({ field: issue.path.join('.'), message: issue.message }));
  const summary = issues
    .map((issue) => (issue.field ? `${issue.field}: ${issue.message}` : issue.message))
    .join('; ');
  return new FileconvError('INVALID_REQUEST', `Invalid ${what}: ${summary}.`, {
    details: { issues },
    cause: error,
  });
}

/**
 * 5xx codes the service answers on purpose, not for a fault: OVERLOADED is the queue bound
 * shedding load (maxQueuedJobs). They are refusals like the 4xx ones: not reported to the host's
 * onError (each would be a log line exactly while the service is busiest) and counted with the
 * refusals in /metrics.
 */
const REFUSED_5XX: ReadonlySet<string> = new Set(['OVERLOADED']);

/** Whether an answer refused the request (a 4xx with a code, or a deliberate 5xx) rather than failed it. */
export function isRefusal(status: number, code: string | undefined): boolean {
  if (code === undefined) return false;
  return (status >= 400 && status < 500) || REFUSED_5XX.has(code);
}

/** Codes whose answer tells the client when to come back (Retry-After from details.retryAfterSeconds). */
const RETRY_LATER = new Set([
  'RATE_LIMITED',
  'QUOTA_EXCEEDED',
  'OVERLOADED',
  'UNAVAILABLE',
  'IDEMPOTENCY_KEY_IN_USE',
  'NO_SPACE',
]);

/**
 * Retry-After for codes that always carry one, when the error has no details of its own (a job's
 * stored error keeps only its code and message): a full disk is freed by expiring files or an
 * operator, so a client comes back in a while rather than at once.
 */
const DEFAULT_RETRY_AFTER: Partial<Record<string, number>> = { NO_SPACE: NO_SPACE_RETRY_AFTER_SECONDS };

export function errorAnswer(error: FileconvError, headers: Record<string, string> = {}): HttpAnswer {
  const extra: Record<string, string> = { ...headers };
  if (RETRY_LATER.has(error.code)) {
    const given = error.details?.retryAfterSeconds;
    const retryAfter = typeof given === 'number' ? given : DEFAULT_RETRY_AFTER[error.code];
    if (retryAfter !== undefined) extra['retry-after'] = String(Math.max(0, Math.ceil(retryAfter)));
  }
  return {
    ...jsonAnswer(error.status, { error: error.toJSON() } satisfies ErrorEnvelope, extra),
    code: error.code,
  };
}
