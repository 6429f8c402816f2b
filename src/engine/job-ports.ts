/**
 * The ports jobs need (storage, a job store, a queue), and the one CONFIG error that names what a
 * host left out and how to give it: createEngine's job members, and the HTTP service, say it.
 * createJobEngine's type requires the three, so the job engine itself never checks.
 */
import { FileconvError } from '../core/errors.js';

/**
 * How to give an engine each port jobs need: named in every "the engine has no X" error. Only an
 * engine of createEngine can lack one (createJobEngine's type requires all three).
 */
export const JOB_PORT_HINTS = {
  storage: 'pass `storage` to createEngine (e.g. createFsStorage({ dir }))',
  jobs: "pass `jobs` to createEngine (e.g. createSqliteJobStore({ path: 'fileconv.db' }))",
  queue: 'pass `queue` to createEngine (e.g. createMemoryQueue(), and call engine.start())',
} as const;

export type JobPortName = keyof typeof JOB_PORT_HINTS;

/** The job ports `given` lacks, in the order storage, jobs, queue. */
export function missingJobPorts(given: Partial<Record<JobPortName, unknown>>): JobPortName[] {
  return (['storage', 'jobs', 'queue'] as const).filter((name) => given[name] === undefined);
}

/** CONFIG for `who` (what needs the ports), naming each missing port and how to give it. */
export function missingPortsError(who: string, missing: readonly JobPortName[]): FileconvError {
  const names = { storage: 'storage', jobs: 'job store (jobs)', queue: 'queue' } as const;
  const parts = missing.map((name) => `no ${names[name]}: ${JOB_PORT_HINTS[name]}`);
  return new FileconvError('CONFIG', `${who}: the engine has ${parts.join('; ')}.`);
}
