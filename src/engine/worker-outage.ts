/**
 * How one worker run rides out backing services that are away (the why is in worker.ts): calls
 * that wait out UNAVAILABLE within the job's budget, the check between waits that ends a run
 * whose job was canceled or taken over elsewhere, and the recording of the run's outcome, which
 * must tell its own write whose answer was lost from a conflict.
 */

import { type ErrorCode, FileconvError, isFileconvError } from '../core/errors.js';
import type { JobEvent } from '../core/jobs/state.js';
import type { Job } from '../core/jobs/types.js';
import { type OutageBudget, retryWhileUnavailable } from '../core/retry.js';
import type { JobContext } from './engine-context.js';
import { announceJobEvent, applyJobEvent } from './job-operations.js';

/** Runs a call to a backing service, waiting out UNAVAILABLE within the job's budget. */
export type Patiently = <T>(work: () => Promise<T>) => Promise<T>;

export function patience(
  context: JobContext,
  budget: OutageBudget,
  what: string,
  signal: AbortSignal,
  onRetry?: () => Promise<void>,
  alsoRetry?: readonly ErrorCode[],
): Patiently {
  return (work) =>
    retryWhileUnavailable(work, {
      budget,
      signal,
      ...(alsoRetry ? { alsoRetry } : {}),
      async onRetry(error, attempt) {
        // Once per call, not once per attempt: an outage is news, each retry of it is not.
        if (attempt === 1) context.onError(error, `${what} (waiting for it to come back)`);
        await onRetry?.();
      },
    });
}

/**
 * Applies the run's last event to the job as stored now; null when it no longer applies (the job
 * was canceled or taken over meanwhile). A retry after a write whose answer was lost finds that
 * write already saved: that is our outcome, not a conflict, and must not discard the result.
 */
export async function recordOutcome(
  context: JobContext,
  run: Job,
  event: JobEvent,
  patiently: Patiently,
): Promise<Job | null> {
  const { jobs } = context;
  try {
    return await patiently(async () => {
      const current = (await jobs.getJob(run.id)) ?? run;
      if (isOwnOutcome(current, run, event)) {
        announceJobEvent(context, current, event.type);
        return current;
      }
      if (!stillDecides(current, run, event)) return null;
      return applyJobEvent(context, current, event);
    });
  } catch (error) {
    if (isFileconvError(error, 'INVALID_STATE')) return null;
    throw error;
  }
}

/**
 * Whether this run may still decide the job: a result is welcome even from a run that was taken
 * over (the first result wins, the other run's is deleted), but a failure or a requeue of an old
 * run must not end or reset the newer attempt that is running elsewhere.
 */
function stillDecides(current: Job, run: Job, event: JobEvent): boolean {
  return event.type === 'complete' || current.attempts === run.attempts;
}

/** True when `current` is `event` already saved by this very run. */
function isOwnOutcome(current: Job, run: Job, event: JobEvent): boolean {
  // Each attempt stores its result under a key of its own: a completion with ours is ours.
  if (event.type === 'complete') {
    return current.status === 'completed' && current.outputKey === event.outputKey;
  }
  if (event.type === 'fail') {
    return (
      current.status === 'failed' &&
      current.attempts === run.attempts &&
      current.version > run.version &&
      current.error?.code === event.error.code
    );
  }
  return false;
}

/**
 * Between waits: a job canceled on another node stops its run here too, and so does a job another
 * worker took over (its newer attempt decides; two workers need not wait for the same job).
 */
export async function abortIfCanceled(context: JobContext, run: Job, controller: AbortController) {
  try {
    const current = await context.jobs.getJob(run.id);
    if (current?.status === 'canceled') {
      controller.abort(new FileconvError('CANCELED', 'The job was canceled.'));
    } else if (current && current.attempts !== run.attempts) {
      controller.abort(new FileconvError('CANCELED', 'Another worker took the job over.'));
    }
  } catch {
    // The store is out of reach too: the next wait asks again.
  }
}

/** Best effort: a failed delete leaves an orphan object for the host to hear about, not a failed job. */
export async function discardOutput(context: JobContext, key: string): Promise<void> {
  await context.storage
    .delete(key)
    .catch((error: unknown) => context.onError(error, `discard result ${key}`));
}
