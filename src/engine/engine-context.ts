/**
 * What every part of the job engine shares: the converter engine it runs conversions with, the
 * injected ports (all three required: the type guarantees them, nothing re-checks), the resolved
 * settings, and this process's job state. Built once by createJobEngine.
 */
import type { Job } from '../core/jobs/types.js';
import type { JobStore, Queue, Storage } from '../core/ports/index.js';
import { type ConversionContext, nonNegativeInteger, positiveInteger } from './conversion-context.js';
import { conversionContextOf, type FileConverter } from './file-converter.js';
import { createJobEventHub, type JobEventHub } from './job-events.js';
import { createJobWatch, type JobWatch } from './job-watch.js';

export interface JobEngineOptions {
  /** The converter engine jobs convert with (createConverter); closed by the job engine's close(). */
  converter: FileConverter;
  /** Where uploads and results live. */
  storage: Storage;
  /** Where file and job records live. */
  jobs: JobStore;
  /** Hands job ids to workers. */
  queue: Queue;
  /**
   * Whether start() runs this process's worker over the queue. Default true. false makes an API
   * node (workers run elsewhere, on the same shared queue): it plans jobs on the declared edges of
   * its converters, loading and checking no engine, so it needs none installed; a worker that
   * lacks an engine a job needs fails the job with ENGINE_UNAVAILABLE.
   */
  worker?: boolean;
  /** Jobs converted at once by this process's worker. Default 2. */
  concurrency?: number;
  /**
   * How often a running job's progress is saved (and emitted) at most, ms. Nothing is saved in a
   * job's first interval: most conversions end within it, and a store write per job for a
   * fraction nobody polled would slow every small job. 0 saves every report. Default 1000.
   */
  progressIntervalMs?: number;
  /** How long a completed job's result is kept, ms. Default 86400000 (24 h). */
  resultTtlMs?: number;
  /** How long an uploaded file is kept for conversions, ms. Default 3600000 (1 h). */
  uploadTtlMs?: number;
  /**
   * How long a resumable (tus) upload may take from its creation to its last byte, ms; past it
   * the upload is refused (UPLOAD_EXPIRED) and its bytes dropped. One created with a retention of
   * its own (`retentionMs`: a plan's uploadRetentionSeconds) expires sooner when it stops: that
   * long after its last byte. Default 86400000 (24 h).
   */
  resumableUploadTtlMs?: number;
  /** How often start() sweeps expired results and uploads, ms; 0 disables. Default 60000. */
  sweepIntervalMs?: number;
  /**
   * How long, in total, a worker waits for a backing service (storage, job store) that answers
   * UNAVAILABLE before it fails the job with UNAVAILABLE, ms; 0 fails at once. Default 120000
   * (2 min): long enough for a Redis or S3 endpoint to restart or fail over, short against the
   * 10 min conversion timeout, so a real outage still ends the job well within what a client
   * waits (a Flow B request waits timeoutMs + 60 s). A missing object (NOT_FOUND) never waits.
   */
  unavailableRetryMs?: number;
  /** Clock, for tests. Default: the system clock. */
  now?: () => Date;
  /** Called with errors the engine handled but a host may want to log (a failed sweep, a lost update). */
  onError?: (error: unknown, context: string) => void;
  /**
   * Called by the worker after a job completed or failed (e.g. to give back a quota charged for
   * a conversion that failed through the service's fault). Errors go to onError.
   */
  onJobSettled?: (job: Job) => void | Promise<void>;
}

export interface JobContext {
  /** The converter engine's own context: converters, operations, graph, conversion settings. */
  conversion: ConversionContext;
  storage: Storage;
  jobs: JobStore;
  queue: Queue;
  /**
   * Plan jobs on the declared edges, checking no engine (an API node: workers run elsewhere). Set
   * by the `worker: false` option, or by start({ worker: false }).
   */
  plansOnDeclaredEdges: boolean;
  /** Whether start() runs this process's worker (the `worker` option). */
  runsWorker: boolean;
  concurrency: number;
  /** Jobs whose conversion is done and whose result is being stored (close() waits for them). */
  finishing: Set<Promise<void>>;
  progressIntervalMs: number;
  resultTtlMs: number;
  uploadTtlMs: number;
  resumableUploadTtlMs: number;
  sweepIntervalMs: number;
  unavailableRetryMs: number;
  now(): string;
  nowMs(): number;
  onError(error: unknown, context: string): void;
  onJobSettled(job: Job): Promise<void>;
  /** Notified with the new record after every change this process saves (waitForJob listens). */
  watch: JobWatch;
  /** The public job events (JobEngine.onJobEvent); listeners' errors go to onError. */
  lifecycle: JobEventHub;
  /** Abort controllers of the jobs this process is converting right now, by job id. */
  running: Map<string, AbortController>;
  /** Set by close(): conversions aborted from now on are requeued, not failed. */
  stopping: boolean;
  /** Set by start() when it started this process's worker over the queue. */
  workerStarted: boolean;
  /** Aborted by close() once its grace is over: workers stop waiting for backing services then. */
  halt: AbortController;
}

/** The context of `options`, checked (INVALID_OPTIONS naming `who`: createJobEngine or createEngine). */
export function createJobContext(options: JobEngineOptions, who: string): JobContext {
  const conversion = conversionContextOf(options.converter, who);
  const clock = options.now ?? (() => new Date());
  const context: JobContext = {
    conversion,
    storage: options.storage,
    jobs: options.jobs,
    queue: options.queue,
    plansOnDeclaredEdges: options.worker === false,
    runsWorker: options.worker !== false,
    concurrency: positiveInteger(who, 'concurrency', options.concurrency, 2),
    finishing: new Set(),
    progressIntervalMs: nonNegativeInteger(who, 'progressIntervalMs', options.progressIntervalMs, 1000),
    resultTtlMs: positiveInteger(who, 'resultTtlMs', options.resultTtlMs, 86_400_000),
    uploadTtlMs: positiveInteger(who, 'uploadTtlMs', options.uploadTtlMs, 3_600_000),
    resumableUploadTtlMs: positiveInteger(
      who,
      'resumableUploadTtlMs',
      options.resumableUploadTtlMs,
      86_400_000,
    ),
    sweepIntervalMs: nonNegativeInteger(who, 'sweepIntervalMs', options.sweepIntervalMs, 60_000),
    unavailableRetryMs: nonNegativeInteger(who, 'unavailableRetryMs', options.unavailableRetryMs, 120_000),
    now: () => clock().toISOString(),
    nowMs: () => clock().getTime(),
    onError: options.onError ?? (() => {}),
    async onJobSettled(job) {
      try {
        await options.onJobSettled?.(job);
      } catch (error) {
        context.onError(error, 'onJobSettled');
      }
    },
    watch: createJobWatch(),
    // Without an onError a listener's throw is at least printed: silently lost events hide bugs.
    lifecycle: createJobEventHub(
      options.onError ?? ((error: unknown) => console.error('fileconv: a job event listener threw:', error)),
    ),
    running: new Map(),
    stopping: false,
    workerStarted: false,
    halt: new AbortController(),
  };
  return context;
}

/**
 * Who runs the jobs created now:
 * - 'running': this process's worker takes them (start() ran, or a handler takes the in-process queue's ids);
 * - 'none': nobody ever will: no queue, or an in-process queue no handler takes (start() not called);
 * - 'unknown': a shared queue (BullMQ) and no worker here: workers may run in other processes;
 * - 'stopping': close() was called.
 */
export type WorkerStatus = 'running' | 'none' | 'unknown' | 'stopping';

/** Who runs the jobs of `queue` (see WorkerStatus), this process's worker started or not. */
export function workerStatusOf(
  queue: Queue | undefined,
  state: { stopping: boolean; workerStarted: boolean },
): WorkerStatus {
  if (state.stopping) return 'stopping';
  if (!queue) return 'none';
  if (state.workerStarted) return 'running';
  if (!queue.hasHandler) return 'unknown';
  return queue.hasHandler() ? 'running' : 'none';
}

/** What a job refused for want of a worker says: the check's and the HTTP refusal's message. */
export const NO_WORKER_MESSAGE =
  'No worker is running to convert jobs: call engine.start() (the queue is in-process, so only this process can run its jobs).';
