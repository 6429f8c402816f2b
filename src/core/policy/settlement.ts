/**
 * Settlement: the one rule of what a client keeps paying for. A conversion stays charged when
 * it completed and when its input made it fail; it is given back only when the service failed
 * it. Pure decisions over job records; service/metering.ts applies them to the counters.
 */
import type { ErrorCode } from '../errors.js';
import type { Job, JobError } from '../jobs/types.js';
import type { QuotaTicket } from './enforce.js';
import { QUOTAS } from './limits.js';

/** Whose doing a failure was: the client's input (kept), or the service (given back). */
export type Fault = 'input' | 'service';

/**
 * Job error codes that mean the service failed, not the client's file or request. Every other
 * code is the input's: CORRUPT_INPUT, CONTENT_MISMATCH, UNSAFE_INPUT, INPUT_LIMIT_EXCEEDED,
 * PASSWORD_PROTECTED, UNSUPPORTED_*, URL_UNREACHABLE, and CONVERSION_TIMEOUT (see faultOf).
 */
export const SERVICE_FAULT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  // An engine crashed, or failed for no reason it could name.
  'CONVERSION_FAILED',
  'INTERNAL',
  // The engine is missing on the worker that took the job.
  'ENGINE_UNAVAILABLE',
  'OVERLOADED',
  // Storage or the job store stayed away past the worker's patience.
  'UNAVAILABLE',
  // The disk (or its quota) is full: the service's, never the client's.
  'NO_SPACE',
  // On a failed job, a converter the service closed under it. A client's own cancel leaves the
  // job `canceled`, not failed, and is not given back; a shutdown puts the job back in the queue.
  'CANCELED',
]);

/**
 * Whose fault a job's failure was: by its code, unless the error says (`details.fault`).
 *
 * CONVERSION_TIMEOUT is the input's. Every deadline that fails a job runs only while the job is
 * being converted: a converter's own (LibreOffice's per-document limit, Chromium's page limit,
 * Ghostscript's and the other tools' run limits) starts when its engine takes the file, and the
 * engine's `timeoutMs` starts once the input is staged, after the job's wait in the queue, and a
 * backing service that is away fails the job with UNAVAILABLE, never with a timeout. So a job
 * that ran to its time budget had an engine working on its input the whole time: an EPS
 * `{ 1 pop } loop` or a page that never settles spins until it is stopped, and refunding it
 * would let a client keep the workers busy for free. The one exception is a run whose deadline
 * struck while it still waited for a busy engine (queued for a LibreOffice, Chromium or
 * ffmpeg.wasm slot, or for that engine to start): the abort says so (core/abort.ts
 * awaitingEngine) and the job's error carries `details.fault: 'service'`, given back. A run that
 * waited, then got its engine and ran out of budget while converting counts as the input's:
 * the converters' own limits, shorter than the engine's, stop a spinning input long before.
 */
export function faultOf(error: JobError): Fault {
  if (error.details?.fault === 'service') return 'service';
  return SERVICE_FAULT_CODES.has(error.code) ? 'service' : 'input';
}

/**
 * The quota ticket a job record carries, or null. The field is read as stored, from a database
 * older than its type: a record whose charge is not a ticket (a host's own value, from when the
 * field was untyped) yields null, not a refund of garbage; a ticket has had this shape since
 * tickets were first stored with jobs, so one written by any version refunds.
 */
export function jobChargeOf(job: Pick<Job, 'charge'>): QuotaTicket | null {
  const ticket: unknown = job.charge;
  if (typeof ticket !== 'object' || ticket === null) return null;
  const { kind, key, expiresAt, amount } = ticket as Partial<Record<keyof QuotaTicket, unknown>>;
  if (
    typeof kind !== 'string' ||
    !Object.hasOwn(QUOTAS, kind) ||
    typeof key !== 'string' ||
    typeof expiresAt !== 'number' ||
    typeof amount !== 'number'
  ) {
    return null;
  }
  return ticket as QuotaTicket;
}

/**
 * What of a settled job's charge is given back: all of it when the job failed through the
 * service's fault, nothing when it completed or failed on its input (or carries no charge).
 */
export function refundDue(job: Pick<Job, 'status' | 'error' | 'charge'>): QuotaTicket | null {
  if (job.status !== 'failed' || !job.error || faultOf(job.error) !== 'service') return null;
  return jobChargeOf(job);
}
