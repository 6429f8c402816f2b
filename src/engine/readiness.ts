/**
 * Readiness: whether this process can do its work right now, for a load balancer or an
 * orchestrator's readiness probe (liveness is GET /api/health: the process answers at all).
 * Each backing port gets one cheap read that must answer within a deadline (a missing object, an
 * unknown job id, the queue's length), the engines the host requires must be available, an
 * in-process queue must have a worker (nothing else would ever run its jobs), the disk of the
 * temp dir must have some room (a full one fails every upload and conversion), and a closing
 * engine is not ready, so traffic drains away during a graceful stop. Checks run at once;
 * a check that does not answer in time counts as failed without waiting for it.
 */

import { toFileconvError } from '../core/errors.js';
import type { Availability, JobStore, Queue, Storage } from '../core/ports/index.js';
import { freeBytes, mebibytes } from '../kit/local-files.js';
import { NO_WORKER_MESSAGE, type WorkerStatus } from './engine-context.js';

/** What readiness is checked on: an engine's ports (those it has), its worker, disk and converters. */
export interface ReadinessSources {
  /** Whether the engine is closing. */
  stopping: boolean;
  /** The temp dir, whose disk must have room. */
  tempDir: string;
  storage?: Storage | undefined;
  jobs?: JobStore | undefined;
  queue?: Queue | undefined;
  workerStatus: WorkerStatus;
  /** Availability of every converter, by name. */
  availability(): Promise<Map<string, Availability>>;
}

export interface ReadinessOptions {
  /** How long each check may take, ms. Default 2000. */
  timeoutMs?: number;
  /**
   * Converters that must be available (by name) for the process to be ready. Default none: a
   * machine without LibreOffice is still ready for images; name it to make it required.
   */
  requiredConverters?: readonly string[];
  /**
   * Free bytes the engine's temp dir's disk must have (with `fileconv serve`, the data dir's):
   * below it the process is not ready (NO_SPACE), since uploads, conversions and the embedded
   * database would fail on it. Default 16 MiB; 0 turns the check off.
   */
  minFreeBytes?: number;
}

/** Default of ReadinessOptions.minFreeBytes. */
export const DEFAULT_MIN_FREE_BYTES = 16 * 1024 * 1024;

export interface ReadinessCheck {
  /** 'accepting', 'storage', 'jobs', 'queue', 'worker', 'disk', or 'converter:<name>'. */
  name: string;
  ok: boolean;
  /** How long it took, ms (the deadline when it did not answer). */
  ms: number;
  /** Why it failed. */
  error?: { code: string; message: string };
}

export interface ReadinessReport {
  ready: boolean;
  checks: ReadinessCheck[];
}

/** Keys and ids no one uses: reading them costs a lookup and finds nothing. */
const PROBE_KEY = 'fileconv-readiness-probe';
const PROBE_ID = '00000000-0000-4000-8000-000000000000';

/** Why a probe failed; a probe that passes resolves with undefined. */
interface Failure {
  code: string;
  message: string;
}

async function timed(
  name: string,
  timeoutMs: number,
  probe: () => Promise<Failure | undefined>,
): Promise<ReadinessCheck> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Failure>((resolve) => {
    timer = setTimeout(
      () => resolve({ code: 'UNAVAILABLE', message: `No answer within ${timeoutMs} ms.` }),
      timeoutMs,
    );
  });
  try {
    const failure = await Promise.race([probe(), deadline]);
    const ms = Date.now() - started;
    return failure ? { name, ok: false, ms, error: failure } : { name, ok: true, ms };
  } catch (error) {
    const { code, message } = toFileconvError(error, 'UNAVAILABLE');
    return { name, ok: false, ms: Date.now() - started, error: { code, message } };
  } finally {
    clearTimeout(timer);
  }
}

/** Passes once `read` answers, whatever it answers; fails with what it throws. */
async function answers(read: Promise<unknown>): Promise<undefined> {
  await read;
  return undefined;
}

export async function checkReadiness(
  sources: ReadinessSources,
  options: ReadinessOptions = {},
): Promise<ReadinessReport> {
  const timeoutMs = options.timeoutMs ?? 2000;
  const probes: Promise<ReadinessCheck>[] = [
    timed('accepting', timeoutMs, async () =>
      sources.stopping ? { code: 'UNAVAILABLE', message: 'The engine is shutting down.' } : undefined,
    ),
  ];
  const { storage, jobs, queue } = sources;
  if (storage) probes.push(timed('storage', timeoutMs, () => answers(storage.head(PROBE_KEY))));
  if (jobs) probes.push(timed('jobs', timeoutMs, () => answers(jobs.getJob(PROBE_ID))));
  if (queue?.size) {
    const size = queue.size.bind(queue);
    probes.push(timed('queue', timeoutMs, () => answers(size())));
  }
  // Only where this process can tell: an in-process queue nobody takes ids from. A shared
  // queue's workers may run elsewhere (an API node of a scale-out deployment has none itself).
  const worker = sources.workerStatus;
  if (queue && (worker === 'running' || worker === 'none')) {
    probes.push(
      timed('worker', timeoutMs, async () =>
        worker === 'none' ? { code: 'UNAVAILABLE', message: NO_WORKER_MESSAGE } : undefined,
      ),
    );
  }
  const minFreeBytes = options.minFreeBytes ?? DEFAULT_MIN_FREE_BYTES;
  if (minFreeBytes > 0) {
    probes.push(timed('disk', timeoutMs, () => checkFreeSpace(sources.tempDir, minFreeBytes)));
  }
  for (const name of options.requiredConverters ?? []) {
    probes.push(
      timed(`converter:${name}`, timeoutMs, async () => {
        const availability = (await sources.availability()).get(name);
        if (!availability) return { code: 'ENGINE_UNAVAILABLE', message: `No converter named "${name}".` };
        if (!availability.ok) {
          return { code: 'ENGINE_UNAVAILABLE', message: availability.reason ?? 'Not available here.' };
        }
        return undefined;
      }),
    );
  }
  const checks = await Promise.all(probes);
  return { ready: checks.every((check) => check.ok), checks };
}

/** NO_SPACE when the disk holding `dir` has fewer than `minFreeBytes` free for this process. */
async function checkFreeSpace(dir: string, minFreeBytes: number): Promise<Failure | undefined> {
  const free = await freeBytes(dir);
  if (free >= minFreeBytes) return undefined;
  return {
    code: 'NO_SPACE',
    message: `Only ${mebibytes(free)} free on the disk of ${dir} (at least ${mebibytes(minFreeBytes)} wanted): uploads and conversions would fail.`,
  };
}
