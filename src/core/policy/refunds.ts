/**
 * A conversion that fails through the service's fault (a timeout, a crash, a missing engine, a
 * full disk) is given back to the client's daily quota; one that fails because of its input is not.
 */
import type { ErrorCode } from '../errors.js';
import type { Job } from '../jobs/types.js';
import type { CounterStore } from '../ports/index.js';
import { type QuotaTicket, refundQuota } from './enforce.js';

/** Job error codes that mean the service failed, not the client's file or request. */
export const SERVICE_FAULT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'CONVERSION_TIMEOUT',
  'CONVERSION_FAILED',
  'INTERNAL',
  'ENGINE_UNAVAILABLE',
  'OVERLOADED',
  'UNAVAILABLE',
  // The disk (or its quota) is full: the service's, never the client's.
  'NO_SPACE',
]);

function isQuotaTicket(value: unknown): value is QuotaTicket {
  const ticket = value as Partial<QuotaTicket> | null;
  return (
    typeof ticket === 'object' &&
    ticket !== null &&
    typeof ticket.key === 'string' &&
    typeof ticket.expiresAt === 'number' &&
    typeof ticket.amount === 'number'
  );
}

/** Gives a failed job's charge back when the failure was the service's; true when refunded. */
export async function refundIfServiceFault(counters: CounterStore, job: Job, now: number): Promise<boolean> {
  if (job.status !== 'failed' || !job.error || !SERVICE_FAULT_CODES.has(job.error.code)) return false;
  if (!isQuotaTicket(job.charge)) return false;
  return refundQuota(counters, job.charge, now);
}

/** An engine `onJobSettled` hook that refunds service-fault failures: `createEngine({ onJobSettled: refundFailedConversions(counters) })`. */
export function refundFailedConversions(
  counters: CounterStore,
  now: () => number = Date.now,
): (job: Job) => Promise<void> {
  return async (job) => {
    await refundIfServiceFault(counters, job, now());
  };
}
