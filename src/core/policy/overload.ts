/**
 * The bound on waiting jobs (`maxQueuedJobs`): past it, new jobs are refused with OVERLOADED (503,
 * Retry-After) before anything is stored or charged, so a backlog cannot grow without end and a
 * client hears "come back later" at once instead of waiting behind it. Pure: the count of waiting
 * jobs comes in (the queue's own count, Queue.size), the decision goes out.
 */
import { FileconvError } from '../errors.js';

/**
 * The Retry-After of a refusal, seconds. The queue drains at whatever pace its conversions take,
 * which nothing here knows; a few seconds lets a retry land once a worker took the next jobs,
 * without a refused client hammering the service.
 */
export const OVERLOADED_RETRY_AFTER_SECONDS = 10;

/** What the decision reads. */
export interface QueueRoomInput {
  /** Jobs waiting (queued, not running), as the queue counts them; undefined when it could not. */
  waiting: number | undefined;
  /** Jobs the request would add: 1, or a batch's length. */
  adding: number;
  /** The bound; undefined: no bound. */
  maxQueuedJobs: number | undefined;
}

/**
 * Throws OVERLOADED when `adding` jobs would take the queue past `maxQueuedJobs`. Two cases pass
 * on purpose: a queue that could not count (no Queue.size, or it did not answer) is not taken for
 * a full one, since a backing service that is away refuses the job itself (UNAVAILABLE); and a
 * batch larger than the bound is taken into an empty queue, or it could never run at all (a
 * retry would be refused forever, which Retry-After must not promise).
 */
export function assertQueueRoom({ waiting, adding, maxQueuedJobs }: QueueRoomInput): void {
  if (maxQueuedJobs === undefined || waiting === undefined) return;
  if (waiting + adding <= maxQueuedJobs || waiting === 0) return;
  throw new FileconvError(
    'OVERLOADED',
    `Too many jobs are waiting (${waiting}, at most ${maxQueuedJobs} here): try again in ${OVERLOADED_RETRY_AFTER_SECONDS} seconds.`,
    { details: { waiting, maxQueuedJobs, retryAfterSeconds: OVERLOADED_RETRY_AFTER_SECONDS } },
  );
}

/** The option as given, checked: a whole number above 0, or undefined (no bound). */
export function maxQueuedJobsOf(given: unknown, who: string): number | undefined {
  if (given === undefined) return undefined;
  if (typeof given === 'number' && Number.isInteger(given) && given > 0) return given;
  throw new FileconvError(
    'INVALID_OPTIONS',
    `${who}: maxQueuedJobs must be a whole number above 0 (or left out: no bound), got ${JSON.stringify(given)}.`,
  );
}
