/**
 * The job state machine: one pure function moves a job from one state to the next.
 *
 *   queued -> processing -> completed | failed
 *   queued | processing -> canceled
 *   completed -> expired          (the result's retention ended and it was deleted)
 *   processing -> queued          (requeue: the worker died or lost the job; it runs again)
 *   queued -> failed              (it could not even start: input gone, path no longer available)
 *
 * Anything else is an INVALID_STATE error, never a silent overwrite.
 */
import { FileconvError } from '../errors.js';
import type { Job, JobError, JobStatus } from './types.js';

export type JobEvent =
  | { type: 'start' }
  | { type: 'progress'; progress: number }
  | { type: 'complete'; outputKey: string; outputSize: number; cpuMs: number | null; expiresAt: string }
  | { type: 'fail'; error: JobError; cpuMs?: number | null }
  | { type: 'cancel' }
  | { type: 'expire' }
  | { type: 'requeue' };

export type JobEventType = JobEvent['type'];

/** From which states each event may be applied, and where it leads. */
const TRANSITIONS: Record<JobEventType, { from: readonly JobStatus[]; to: JobStatus | null }> = {
  start: { from: ['queued'], to: 'processing' },
  progress: { from: ['processing'], to: null },
  complete: { from: ['processing'], to: 'completed' },
  fail: { from: ['queued', 'processing'], to: 'failed' },
  cancel: { from: ['queued', 'processing'], to: 'canceled' },
  expire: { from: ['completed'], to: 'expired' },
  requeue: { from: ['processing'], to: 'queued' },
};

export function canTransition(status: JobStatus, event: JobEventType): boolean {
  return TRANSITIONS[event].from.includes(status);
}

export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'canceled', 'expired'];

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/**
 * Returns the job after `event`, with its version bumped; the input is not modified.
 * `now` is an ISO 8601 UTC timestamp, passed in so the function stays pure.
 */
export function transition(job: Job, event: JobEvent, now: string): Job {
  const rule = TRANSITIONS[event.type];
  if (!rule.from.includes(job.status)) {
    throw new FileconvError('INVALID_STATE', `A ${job.status} job cannot ${event.type}.`, {
      details: { jobId: job.id, status: job.status, event: event.type },
    });
  }
  const next: Job = { ...job, version: job.version + 1, status: rule.to ?? job.status };
  switch (event.type) {
    case 'start':
      next.attempts = job.attempts + 1;
      next.startedAt = now;
      next.progress = 0;
      break;
    case 'progress':
      next.progress = Math.min(1, Math.max(job.progress, event.progress));
      break;
    case 'complete':
      next.outputKey = event.outputKey;
      next.outputSize = event.outputSize;
      next.cpuMs = event.cpuMs;
      next.expiresAt = event.expiresAt;
      next.completedAt = now;
      next.progress = 1;
      break;
    case 'fail':
      next.error = event.error;
      next.cpuMs = event.cpuMs ?? job.cpuMs;
      next.completedAt = now;
      break;
    case 'cancel':
      next.error = { code: 'CANCELED', message: 'The job was canceled.' };
      next.completedAt = now;
      break;
    case 'expire':
      next.outputKey = null;
      next.expiresAt = now;
      break;
    case 'requeue':
      next.startedAt = null;
      next.progress = 0;
      break;
  }
  return next;
}
