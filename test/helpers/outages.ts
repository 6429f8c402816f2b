/**
 * Backing services that can be taken away in unit tests: a Storage and a JobStore wrapped so
 * that chosen operations fail with UNAVAILABLE (as the S3 and Redis adapters answer when their
 * service is out of reach) until brought back. `loseReply` makes a write land and then fail
 * anyway, as a Redis command whose answer is lost in a dropped connection does.
 */
import { FileconvError } from '../../src/core/errors.js';
import type { JobStore, Storage } from '../../src/core/ports/index.js';

export type StorageOp = 'get' | 'put' | 'head' | 'delete';
export type JobStoreOp = 'getJob' | 'updateJob' | 'listJobs';
type Op = `storage.${StorageOp}` | `jobs.${JobStoreOp}`;

export interface Outage {
  /** Makes these operations fail with UNAVAILABLE from now on. */
  takeDown(...ops: Op[]): void;
  /** Makes the next write of this operation land and then fail with UNAVAILABLE. */
  loseReply(op: Op): void;
  bringBack(): void;
  /** How often each operation failed because of the outage. */
  failures: Map<Op, number>;
  storage(inner: Storage): Storage;
  jobs(inner: JobStore): JobStore;
}

/** `code`: what the operations fail with; NO_SPACE stands for a job store on a full disk. */
export function createOutage(code: 'UNAVAILABLE' | 'NO_SPACE' = 'UNAVAILABLE'): Outage {
  const down = new Set<Op>();
  const lostReplies = new Set<Op>();
  const failures = new Map<Op, number>();
  const unavailable = (op: Op) => {
    failures.set(op, (failures.get(op) ?? 0) + 1);
    return new FileconvError(code, `${op}: the service is away (test outage, ${code}).`);
  };

  /** `call` unless `op` is down; a lost reply runs `call` and fails after. */
  async function guarded<T>(op: Op, call: () => Promise<T>): Promise<T> {
    if (down.has(op)) throw unavailable(op);
    if (lostReplies.delete(op)) {
      await call();
      throw unavailable(op);
    }
    return call();
  }

  return {
    takeDown: (...ops) => {
      for (const op of ops) down.add(op);
    },
    loseReply: (op) => lostReplies.add(op),
    bringBack: () => down.clear(),
    failures,
    storage: (inner) => ({
      ...inner,
      put: (key, body, options) =>
        guarded('storage.put', () => inner.put(key, body, options)).catch((error: unknown) => {
          // Like the real adapters: a refused body stream is destroyed, not left open.
          if (!(body instanceof Uint8Array)) body.destroy();
          throw error;
        }),
      get: (key, range) => guarded('storage.get', () => inner.get(key, range)),
      head: (key) => guarded('storage.head', () => inner.head(key)),
      delete: (key) => guarded('storage.delete', () => inner.delete(key)),
    }),
    jobs: (inner) => ({
      ...inner,
      getJob: (id) => guarded('jobs.getJob', () => inner.getJob(id)),
      updateJob: (job) => guarded('jobs.updateJob', () => inner.updateJob(job)),
      listJobs: (filter) => guarded('jobs.listJobs', () => inner.listJobs(filter)),
    }),
  };
}
