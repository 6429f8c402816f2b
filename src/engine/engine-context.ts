/**
 * What every part of the engine shares: the injected ports, the resolved settings and the
 * conversion graph of the converters that can run here. Built once by createEngine.
 */
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { FileconvError, isFileconvError } from '../core/errors.js';
import { carriesAudio, DETECTION_BYTES } from '../core/formats/index.js';
import type { FormatName } from '../core/formats/types.js';
import type { ConversionPlan } from '../core/graph/index.js';
import { ConversionGraph } from '../core/graph/index.js';
import type { Job } from '../core/jobs/types.js';
import type {
  Availability,
  ConversionLimits,
  DocumentOperation,
  JobStore,
  Queue,
  Storage,
} from '../core/ports/index.js';
import { type ConverterEntry, type ConverterSet, createConverterSet } from './converter-set.js';
import { createJobEventHub, type JobEventHub } from './job-events.js';
import { createJobWatch, type JobWatch } from './job-watch.js';

export interface EngineOptions {
  /**
   * Converters, in order of preference when two offer the same step at the same cost: their
   * registrations (`defaultConverters()` of fileconv/preset, `SHARP_REGISTRATION` of
   * fileconv/converters/sharp...), each loaded on first need, or ready converters.
   */
  converters: readonly ConverterEntry[];
  /**
   * Document operations jobs may run instead of a conversion (merge, split, rotate...: see
   * `pdfOperations()` of fileconv/pdf). Default none.
   */
  operations?: readonly DocumentOperation[];
  /** Where uploads and results live. Required for jobs; the direct API works without it. */
  storage?: Storage;
  /** Where file and job records live. Required for jobs. */
  jobs?: JobStore;
  /** Hands job ids to workers. Required for jobs. */
  queue?: Queue;
  /** Jobs converted at once by this process's worker. Default 2. */
  concurrency?: number;
  /**
   * How often a running job's progress is saved (and emitted) at most, ms. Nothing is saved in a
   * job's first interval: most conversions end within it, and a store write per job for a
   * fraction nobody polled would slow every small job. 0 saves every report. Default 1000.
   */
  progressIntervalMs?: number;
  /** Longest a conversion may run before it is stopped with CONVERSION_TIMEOUT, ms. Default 600000 (10 min). */
  timeoutMs?: number;
  /** Largest image, in pixels, a converter may decode. Default 100000000 (100 MP). */
  maxPixels?: number;
  /** Longest chain of conversion steps considered. Default 3. */
  maxSteps?: number;
  /** Parent of the private per-conversion temp dirs. Default: the OS temp dir. */
  tempDir?: string;
  /** How long a completed job's result is kept, ms. Default 86400000 (24 h). */
  resultTtlMs?: number;
  /** How long an uploaded file is kept for conversions, ms. Default 3600000 (1 h). */
  uploadTtlMs?: number;
  /**
   * How long a resumable (tus) upload may take from its creation to its last byte, ms; past it
   * the upload is refused (UPLOAD_EXPIRED) and its bytes dropped. Default 86400000 (24 h).
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

export interface EngineContext {
  converters: ConverterSet;
  operations: ReadonlyMap<string, DocumentOperation>;
  /** Availability of an operation's engine (computed once per operation). */
  operationAvailability(operation: DocumentOperation): Promise<Availability>;
  storage: Storage | undefined;
  jobs: JobStore | undefined;
  queue: Queue | undefined;
  concurrency: number;
  /** Jobs whose conversion is done and whose result is being stored (close() waits for them). */
  finishing: Set<Promise<void>>;
  timeoutMs: number;
  progressIntervalMs: number;
  maxSteps: number;
  limits: ConversionLimits;
  tempDir: string;
  resultTtlMs: number;
  uploadTtlMs: number;
  resumableUploadTtlMs: number;
  sweepIntervalMs: number;
  unavailableRetryMs: number;
  now(): string;
  nowMs(): number;
  onError(error: unknown, context: string): void;
  onJobSettled(job: Job): Promise<void>;
  /** The graph of the converters whose engines are available here (computed once). */
  graph(): Promise<ConversionGraph>;
  /**
   * The best chain from `from` to `to` over the available converters, the same as
   * `graph().findPath`, but checking only the engines on the candidate path: a JPEG -> WebP
   * conversion loads sharp, never pdf.js, exceljs or LibreOffice (the CLI's start-up time).
   * With `explainMissing`, no path but through an unavailable engine is ENGINE_UNAVAILABLE
   * naming it and its install line, rather than UNSUPPORTED_CONVERSION.
   */
  findPath(
    from: FormatName,
    to: FormatName,
    maxSteps?: number,
    options?: { explainMissing?: boolean },
  ): Promise<ConversionPlan>;
  /** Availability of every converter (each computed once). */
  availability(): Promise<Map<string, Availability>>;
  /** Notified with the new record after every change this process saves (waitForJob listens). */
  watch: JobWatch;
  /** The public job events (Engine.onJobEvent); listeners' errors go to onError. */
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

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `createEngine: ${name} must be a positive integer, got ${String(value)}.`,
    );
  }
  return value;
}

function nonNegativeInteger(name: string, value: number | undefined, fallback: number): number {
  return value === 0 ? 0 : positiveInteger(name, value, fallback);
}

/** Asks each operation (by name) whether it can run here once; a throw is "not available", with its message. */
function memoizedAvailability<T extends { name: string; available(): Promise<Availability> }>(): (
  engine: T,
) => Promise<Availability> {
  const known = new Map<string, Promise<Availability>>();
  return (engine) => {
    let answer = known.get(engine.name);
    if (!answer) {
      answer = engine.available().catch(
        (error: unknown): Availability => ({
          ok: false,
          reason: error instanceof Error ? error.message : String(error),
        }),
      );
      known.set(engine.name, answer);
    }
    return answer;
  };
}

export function createEngineContext(options: EngineOptions): EngineContext {
  const converters = createConverterSet(options.converters, 'createEngine');
  const operations = new Map<string, DocumentOperation>();
  for (const operation of options.operations ?? []) {
    if (operations.has(operation.name)) {
      throw new FileconvError('INVALID_OPTIONS', `createEngine: two operations are named ${operation.name}.`);
    }
    operations.set(operation.name, operation);
  }
  const clock = options.now ?? (() => new Date());
  const concurrency = positiveInteger('concurrency', options.concurrency, 2);
  let availability: Promise<Map<string, Availability>> | undefined;
  let graph: Promise<ConversionGraph> | undefined;
  // Graphs over every converter not yet found unavailable, by the names left out: planning
  // starts optimistic and only checks the engines a candidate path needs.
  const optimisticGraphs = new Map<string, ConversionGraph>();
  const optimisticGraph = (excluded: ReadonlySet<string>): ConversionGraph => {
    const key = [...excluded].sort().join(',');
    let built = optimisticGraphs.get(key);
    if (!built) {
      built = ConversionGraph.fromConverters(
        converters.registrations.filter((c) => !excluded.has(c.name)),
        { carriesAudio },
      );
      optimisticGraphs.set(key, built);
    }
    return built;
  };
  const context: EngineContext = {
    converters,
    operations,
    operationAvailability: memoizedAvailability<DocumentOperation>(),
    storage: options.storage,
    jobs: options.jobs,
    queue: options.queue,
    concurrency,
    finishing: new Set(),
    timeoutMs: positiveInteger('timeoutMs', options.timeoutMs, 600_000),
    progressIntervalMs: nonNegativeInteger('progressIntervalMs', options.progressIntervalMs, 1000),
    maxSteps: positiveInteger('maxSteps', options.maxSteps, 3),
    limits: { maxPixels: positiveInteger('maxPixels', options.maxPixels, 100_000_000) },
    tempDir: options.tempDir ?? tmpdir(),
    resultTtlMs: positiveInteger('resultTtlMs', options.resultTtlMs, 86_400_000),
    uploadTtlMs: positiveInteger('uploadTtlMs', options.uploadTtlMs, 3_600_000),
    resumableUploadTtlMs: positiveInteger('resumableUploadTtlMs', options.resumableUploadTtlMs, 86_400_000),
    sweepIntervalMs: nonNegativeInteger('sweepIntervalMs', options.sweepIntervalMs, 60_000),
    unavailableRetryMs: nonNegativeInteger('unavailableRetryMs', options.unavailableRetryMs, 120_000),
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
    availability() {
      availability ??= Promise.all(
        converters.registrations.map(
          async ({ name }) => [name, await converters.availability(name)] as const,
        ),
      ).then((entries) => new Map(entries));
      return availability;
    },
    async findPath(from, to, maxSteps = context.maxSteps, { explainMissing = false } = {}) {
      // Each round either returns or leaves out at least one more converter, so it ends. A path
      // that is best over a superset of the available converters and uses only available ones is
      // also best over the available ones alone: the answer is the one graph() would give.
      const excluded = new Set<string>();
      // What the best path would have needed, had its engines been installed: when no path is
      // left, that (with its install line) is the answer, not "no converter".
      let wanted: (readonly [string, Availability])[] | undefined;
      for (;;) {
        let plan: ConversionPlan;
        try {
          plan = optimisticGraph(excluded).findPath(from, to, { maxSteps });
        } catch (error) {
          if (explainMissing && wanted && isFileconvError(error, 'UNSUPPORTED_CONVERSION'))
            throw engineMissing(from, to, wanted);
          throw error;
        }
        const names = [...new Set(plan.steps.map((step) => step.converter))];
        const checks = await Promise.all(
          names.map(async (name) => [name, await converters.availability(name)] as const),
        );
        const missing = checks.filter(([, result]) => !result.ok);
        if (missing.length === 0) return plan;
        wanted ??= missing;
        for (const [name] of missing) excluded.add(name);
      }
    },
    graph() {
      graph ??= context.availability().then((available) =>
        ConversionGraph.fromConverters(
          converters.registrations.filter((c) => available.get(c.name)?.ok),
          { carriesAudio },
        ),
      );
      return graph;
    },
  };
  return context;
}

/** ENGINE_UNAVAILABLE for a conversion only engines that are not available here could make. */
function engineMissing(
  from: string,
  to: string,
  wanted: readonly (readonly [string, Availability])[],
): FileconvError {
  const [name, availability] = wanted[0]!;
  const why = availability.reason ? ` (${availability.reason})` : '';
  const install = availability.install ? `: run \`${availability.install}\`` : '';
  return new FileconvError(
    'ENGINE_UNAVAILABLE',
    `Turning ${from} into ${to} needs the ${name} engine, which is not available here${why}${install}`,
    { details: { converter: name, ...(availability.install ? { install: availability.install } : {}) } },
  );
}

/** How to give an engine each port jobs need: named in every "the engine has no X" error. */
export const JOB_PORT_HINTS = {
  storage: 'pass `storage` to createEngine (e.g. createFsStorage({ dir }))',
  jobs: "pass `jobs` to createEngine (e.g. createSqliteJobStore({ path: 'fileconv.db' }))",
  queue: 'pass `queue` to createEngine (e.g. createMemoryQueue(), and call engine.start())',
} as const;

export type JobPortName = keyof typeof JOB_PORT_HINTS;

/** The job ports the engine lacks, in the order storage, jobs, queue. */
export function missingJobPorts(context: EngineContext): JobPortName[] {
  return (['storage', 'jobs', 'queue'] as const).filter((name) => context[name] === undefined);
}

/** One sentence naming each missing port and how to give it, after `who: `. */
export function missingPortsMessage(who: string, missing: readonly JobPortName[]): string {
  const names = { storage: 'storage', jobs: 'job store (jobs)', queue: 'queue' } as const;
  const parts = missing.map((name) => `no ${names[name]}: ${JOB_PORT_HINTS[name]}`);
  return `${who}: the engine has ${parts.join('; ')}.`;
}

/** The ports jobs need, or a CONFIG error naming what the host did not configure. */
export function jobPorts(context: EngineContext): { storage: Storage; jobs: JobStore; queue: Queue } {
  const { storage, jobs, queue } = context;
  if (!storage || !jobs || !queue) {
    throw new FileconvError(
      'CONFIG',
      missingPortsMessage('Jobs need storage, a job store and a queue', missingJobPorts(context)),
    );
  }
  return { storage, jobs, queue };
}

/**
 * Who runs the jobs created now:
 * - 'running': this process's worker takes them (start() ran, or a handler takes the in-process queue's ids);
 * - 'none': nobody ever will: no queue, or an in-process queue no handler takes (start() not called);
 * - 'unknown': a shared queue (BullMQ) and no worker here: workers may run in other processes;
 * - 'stopping': close() was called.
 */
export type WorkerStatus = 'running' | 'none' | 'unknown' | 'stopping';

export function workerStatus(context: EngineContext): WorkerStatus {
  if (context.stopping) return 'stopping';
  const { queue } = context;
  if (!queue) return 'none';
  if (context.workerStarted) return 'running';
  if (!queue.hasHandler) return 'unknown';
  return queue.hasHandler() ? 'running' : 'none';
}

/** What a job refused for want of a worker says: the check's and the HTTP refusal's message. */
export const NO_WORKER_MESSAGE =
  'No worker is running to convert jobs: call engine.start() (the queue is in-process, so only this process can run its jobs).';

/** Reads the first DETECTION_BYTES bytes of a local file (fewer if it is shorter). */
export async function readFileHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(DETECTION_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, DETECTION_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Reads the first DETECTION_BYTES bytes of a stored object. */
export async function readStoredHead(storage: Storage, key: string, size: number): Promise<Uint8Array> {
  if (size === 0) return new Uint8Array(0);
  const stream = await storage.get(key, { start: 0, end: Math.min(size, DETECTION_BYTES) - 1 });
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).subarray(0, DETECTION_BYTES);
}
