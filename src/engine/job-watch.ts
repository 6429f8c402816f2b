/**
 * Who waits for which job in this process: waitForJob registers a listener under the job's id,
 * and every change this process saves notifies only the listeners of that id. One map lookup
 * per change, however many conversions are being waited for (an EventEmitter would call every
 * waiter on every change, and warn past ten of them).
 */
import type { Job } from '../core/jobs/types.js';

export interface JobWatch {
  /** Tells the listeners of `job.id` about its newly saved record. */
  notify(job: Job): void;
  /** Calls `listener` with every record of job `id` this process saves; returns the function that stops it. */
  watch(id: string, listener: (job: Job) => void): () => void;
}

export function createJobWatch(): JobWatch {
  const byId = new Map<string, Set<(job: Job) => void>>();
  return {
    notify(job) {
      const listeners = byId.get(job.id);
      if (listeners) for (const listener of [...listeners]) listener(job);
    },
    watch(id, listener) {
      let listeners = byId.get(id);
      if (!listeners) {
        listeners = new Set();
        byId.set(id, listeners);
      }
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && byId.get(id) === listeners) byId.delete(id);
      };
    },
  };
}
