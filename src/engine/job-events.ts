/**
 * Job events for in-process listeners: the engine tells a host application (and the webhook
 * dispatcher) when a job was created, started, progressed or settled. Events are emitted by the
 * process where the change happened (the API node for created and canceled, the worker for
 * started, progress, completed and failed), so a listener sees only this process's changes.
 */
import type { JobEventType as TransitionType } from '../core/jobs/state.js';
import type { Job } from '../core/jobs/types.js';

export const JOB_LIFECYCLE_EVENT_TYPES = [
  'created',
  'started',
  'progress',
  'completed',
  'failed',
  'canceled',
  'expired',
] as const;
export type JobLifecycleEventType = (typeof JOB_LIFECYCLE_EVENT_TYPES)[number];

/** One change of a job, with the job record as saved after it. */
export type JobLifecycleEvent = {
  [T in JobLifecycleEventType]: { type: T; job: Job };
}[JobLifecycleEventType];

/** A listener of job events; a throw (or a rejected promise) is reported, never propagated. */
export type JobEventListener = (event: JobLifecycleEvent) => void | Promise<void>;

/** The public event of each state-machine transition; requeue is internal (the job runs again). */
const EVENT_OF_TRANSITION: Record<TransitionType, JobLifecycleEventType | null> = {
  start: 'started',
  progress: 'progress',
  complete: 'completed',
  fail: 'failed',
  cancel: 'canceled',
  expire: 'expired',
  requeue: null,
};

export function lifecycleEventOf(transition: TransitionType): JobLifecycleEventType | null {
  return EVENT_OF_TRANSITION[transition];
}

export interface JobEventHub {
  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: JobEventListener): () => void;
  /** Calls every listener in order; their errors go to `onError`, so a listener cannot break a job. */
  emit(event: JobLifecycleEvent): void;
}

export function createJobEventHub(onError: (error: unknown, context: string) => void): JobEventHub {
  const listeners = new Set<JobEventListener>();
  const report = (error: unknown) => onError(error, 'jobEvent');
  return {
    subscribe(listener) {
      // Wrapped so the same function may subscribe twice and each unsubscribe removes its own.
      const entry: JobEventListener = (event) => listener(event);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    emit(event) {
      for (const listener of [...listeners]) {
        try {
          const result = listener(event);
          if (result && typeof result.then === 'function') result.then(undefined, report);
        } catch (error) {
          report(error);
        }
      }
    },
  };
}
