/**
 * createEngine: the one object a host application holds. It wires the injected ports
 * (storage, job store, queue, converters) into two APIs:
 *
 * - direct, in-process conversions: convertFile, convertBuffer, convertStream;
 * - jobs, as the HTTP flows use them: uploadFile, createJob, getJob, waitForJob, openResult,
 *   cancelJob, with start() running this process's worker over the queue.
 */

import type { ZodType } from 'zod';
import { FileconvError } from '../core/errors.js';
import { FORMATS, requireFormat } from '../core/formats/index.js';
import type { FormatDefinition, FormatName } from '../core/formats/types.js';
import type { ConversionPlan } from '../core/graph/index.js';
import type { FileRecord, Job } from '../core/jobs/types.js';
import type { Availability, DocumentOperation, Storage } from '../core/ports/index.js';
import {
  type ConversionReport,
  convertBuffer,
  convertFile,
  convertStream,
  type DirectConvertOptions,
  type StreamConversion,
} from './direct.js';
import {
  createEngineContext,
  type EngineOptions,
  type JobPortName,
  jobPorts,
  type WorkerStatus,
  workerStatus,
} from './engine-context.js';
import { collectStats, type EngineStats } from './engine-stats.js';
import type { JobEventListener } from './job-events.js';
import {
  type CreateJobInput,
  cancelJob,
  createJob,
  createJobs,
  discardJob,
  getJob,
  type JobResult,
  openResult,
  recoverJobs,
  sweepExpired,
  type WaitOptions,
  waitForJob,
} from './job-operations.js';
import { recordWebhookOutcome, type WebhookOutcome } from './job-webhook.js';
import type { CreateOperationJobInput } from './operation-jobs.js';
import { planConversion } from './planning.js';
import { checkReadiness, type ReadinessOptions, type ReadinessReport } from './readiness.js';
import {
  type AppendResumableInput,
  appendResumable,
  type CreateResumableInput,
  createResumableUpload,
  getResumableUpload,
  terminateResumable,
} from './resumable-operations.js';
import {
  confirmUpload,
  createUploadGrant,
  deleteFile,
  getFile,
  type ReceiveUploadInput,
  receiveUpload,
  type UploadFileInput,
  type UploadGrantInput,
  uploadFile,
} from './upload-operations.js';
import { processJob } from './worker.js';

export type { EngineOptions, JobPortName, WorkerStatus } from './engine-context.js';
export type { EngineStats } from './engine-stats.js';

export interface FormatSupport extends FormatDefinition {
  /** Formats this one converts to with the converters available here. */
  targets: FormatName[];
}

export interface ConverterStatus extends Availability {
  name: string;
  /** Number of conversion edges the converter offers. */
  edges: number;
}

/** A document operation of the engine and whether it can run here. */
export interface OperationStatus extends Availability {
  name: string;
  description: string;
  /** The format its inputs must have. */
  input: FormatName;
  minInputs: number;
  maxInputs: number;
  /** Its options' schema (for API descriptions). */
  optionsSchema: DocumentOperation['optionsSchema'];
}

export interface Engine {
  /** The storage the engine was given (the HTTP adapter presigns with it when it can). */
  readonly storage: Storage | undefined;
  /** Which of the ports jobs need (uploads, jobs, the HTTP service) the engine was given. */
  readonly ports: Readonly<Record<JobPortName, boolean>>;
  /** Converts a local file into `outputPath` (target from its extension unless `to` is given). */
  convertFile(
    inputPath: string,
    outputPath: string,
    options?: DirectConvertOptions,
  ): Promise<ConversionReport>;
  /** Converts bytes in memory. */
  convertBuffer(input: Uint8Array, options: DirectConvertOptions & { to: string }): Promise<Buffer>;
  /** Converts a stream, spooling through a temp file; returns the result as a stream. */
  convertStream(
    input: import('node:stream').Readable,
    options: DirectConvertOptions & { to: string },
  ): Promise<StreamConversion>;

  /** Flow B: streams an upload into storage and records it. */
  uploadFile(input: UploadFileInput): Promise<FileRecord>;
  /** Flow A: a pending file record for one later upload of exactly the declared size and type. */
  createUploadGrant(input: UploadGrantInput): Promise<FileRecord>;
  /** Flow A: stores the bytes of a pending upload. */
  receiveUpload(input: ReceiveUploadInput): Promise<FileRecord>;
  getFile(id: string, owner?: string): Promise<FileRecord>;
  /**
   * Resumable (tus) upload, step 1: a pending file record for `size` bytes that arrive in
   * pieces (needs Storage.resumable); it expires after `resumableUploadTtlMs`.
   */
  createResumableUpload(input: CreateResumableInput): Promise<FileRecord>;
  /** An owner's resumable upload (pending or finished); UPLOAD_EXPIRED past its expiry (its bytes dropped). */
  getResumableUpload(id: string, owner: string): Promise<FileRecord>;
  /**
   * Stores bytes at the upload's offset and commits the new offset (OFFSET_MISMATCH,
   * CHECKSUM_MISMATCH, FILE_TOO_LARGE refuse them); the last byte makes it an uploaded file.
   */
  appendResumable(input: AppendResumableInput): Promise<FileRecord>;
  /** Drops an unfinished resumable upload (or deletes the finished file) and its record. */
  terminateResumable(id: string, owner: string): Promise<void>;
  /** Deletes an upload's bytes and record. */
  deleteFile(id: string, owner?: string): Promise<void>;
  /**
   * Flow A with presigning storage: a pending upload whose object is now in storage becomes
   * `uploaded` (SIZE_MISMATCH, object deleted, when its size is not the declared one;
   * NOT_UPLOADED when there is no object). Jobs do this themselves; the presigned multipart
   * upload's completion does it at once.
   */
  confirmUpload(id: string, owner?: string): Promise<FileRecord>;
  createJob(input: CreateJobInput | CreateOperationJobInput): Promise<Job>;
  /** Creates several jobs all-or-nothing: all are checked before any is stored. */
  createJobs(inputs: readonly (CreateJobInput | CreateOperationJobInput)[]): Promise<Job[]>;
  getJob(id: string, owner?: string): Promise<Job>;
  cancelJob(id: string, owner?: string): Promise<Job>;
  /** Cancels a queued or running job, or deletes a completed job's result. */
  discardJob(id: string, owner?: string): Promise<Job>;
  waitForJob(id: string, options?: WaitOptions): Promise<Job>;
  openResult(id: string, owner?: string): Promise<JobResult>;

  /**
   * Calls `listener` with every job event of this process: `created` and `canceled` where the
   * API runs, `started`, `progress`, `completed` and `failed` where the worker runs, `expired`
   * where the sweeper runs. Each event carries the job record as saved. Listeners run
   * synchronously in the order added; a throw (or rejection) goes to onError, never to the job.
   * Returns the function that removes the listener.
   */
  onJobEvent(listener: JobEventListener): () => void;
  /**
   * Records how a job's webhook delivery went (adapters/webhooks/http calls it); never changes
   * the job's status. Resolves with the saved job, or null when the job is gone or has no webhook.
   */
  recordWebhookOutcome(jobId: string, outcome: WebhookOutcome): Promise<Job | null>;

  /** The chain a conversion would take, with options validated; throws what a conversion would. */
  plan(from: string, to: string, options?: Record<string, unknown>): Promise<ConversionPlan>;
  /** Every registered format with the targets reachable from it here. */
  formats(): Promise<FormatSupport[]>;
  /** The schema of the options a conversion from `from` to `to` accepts; undefined when it takes none. */
  optionsSchema(from: string, to: string): Promise<ZodType<Record<string, unknown>> | undefined>;
  /** Each converter and whether its engine can run here. */
  converters(): Promise<ConverterStatus[]>;
  /** The document operations jobs may run (merge, split...), available or not. */
  operations(): Promise<OperationStatus[]>;
  /**
   * Whether this process can work right now: each port answers a cheap read within the deadline,
   * the required converters are available, and the engine is not closing (src/readiness.ts).
   */
  readiness(options?: ReadinessOptions): Promise<ReadinessReport>;
  /**
   * Queue depth, this process's running conversions and the converters' own stats: cheap enough
   * for every metrics scrape (one Queue.size call; no job store reads, no engine checks).
   */
  stats(): Promise<EngineStats>;

  /**
   * Who will run a job created now: 'running' (this process's worker), 'none' (nobody ever: an
   * in-process queue and start() not called, or no queue), 'unknown' (a shared queue and no
   * worker here: workers may run elsewhere), 'stopping' (close() was called).
   */
  workerStatus(): WorkerStatus;

  /**
   * Recovers interrupted jobs, starts this process's worker (unless `worker: false`, for API-only
   * nodes) and the sweeper of expired results and uploads.
   */
  start(options?: { worker?: boolean }): Promise<void>;
  /** Runs one job by id (what the worker does for each queued id); for custom workers and tests. */
  processJob(jobId: string): Promise<void>;
  recoverJobs(): Promise<number>;
  sweepExpired(): Promise<number>;
  /**
   * Stops taking jobs, lets running conversions finish for up to `graceMs` (default: forever),
   * then aborts the rest and puts them back in the queue; stops the sweeper; closes the ports.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

export function createEngine(options: EngineOptions): Engine {
  const context = createEngineContext(options);
  let sweeper: NodeJS.Timeout | undefined;
  let started = false;

  return {
    storage: context.storage,
    ports: { storage: !!context.storage, jobs: !!context.jobs, queue: !!context.queue },
    convertFile: (input, output, convertOptions) => convertFile(context, input, output, convertOptions),
    convertBuffer: (input, convertOptions) => convertBuffer(context, input, convertOptions),
    convertStream: (input, convertOptions) => convertStream(context, input, convertOptions),

    uploadFile: (input) => uploadFile(context, input),
    createUploadGrant: (input) => createUploadGrant(context, input),
    receiveUpload: (input) => receiveUpload(context, input),
    getFile: (id, owner) => getFile(context, id, owner),
    createResumableUpload: (input) => createResumableUpload(context, input),
    getResumableUpload: (id, owner) => getResumableUpload(context, id, owner),
    appendResumable: (input) => appendResumable(context, input),
    terminateResumable: (id, owner) => terminateResumable(context, id, owner),
    createJob: (input) => createJob(context, input),
    createJobs: (inputs) => createJobs(context, inputs),
    getJob: (id, owner) => getJob(context, id, owner),
    cancelJob: (id, owner) => cancelJob(context, id, owner),
    discardJob: (id, owner) => discardJob(context, id, owner),
    deleteFile: (id, owner) => deleteFile(context, id, owner),
    confirmUpload: async (id, owner) => confirmUpload(context, await getFile(context, id, owner)),
    waitForJob: (id, waitOptions) => waitForJob(context, id, waitOptions),
    openResult: (id, owner) => openResult(context, id, owner),
    onJobEvent: (listener) => context.lifecycle.subscribe(listener),
    recordWebhookOutcome: (jobId, outcome) => recordWebhookOutcome(context, jobId, outcome),

    async plan(from, to, convertOptions) {
      return (await planConversion(context, from, to, convertOptions)).plan;
    },
    async formats() {
      const graph = await context.graph();
      return FORMATS.map((format) => ({
        ...format,
        targets: graph.targetsOf(format.name, { maxSteps: context.maxSteps }),
      }));
    },
    async optionsSchema(from, to) {
      const target = requireFormat(to).name;
      const last = (await context.findPath(requireFormat(from).name, target)).steps.at(-1);
      return last
        ? context.converters.declarationOf(last.converter, false)?.optionsSchema?.(target)
        : undefined;
    },
    async converters() {
      const availability = await context.availability();
      return context.converters.registrations.map((converter) => ({
        name: converter.name,
        edges: converter.edges.length,
        ...(availability.get(converter.name) ?? { ok: false }),
      }));
    },

    async operations() {
      return Promise.all(
        [...context.operations.values()].map(async (operation) => ({
          name: operation.name,
          description: operation.description,
          input: operation.input,
          minInputs: operation.minInputs,
          maxInputs: operation.maxInputs,
          optionsSchema: operation.optionsSchema,
          ...(await context.operationAvailability(operation)),
        })),
      );
    },

    readiness: (readinessOptions) => checkReadiness(context, readinessOptions),
    stats: () => collectStats(context),
    workerStatus: () => workerStatus(context),

    async start(startOptions = {}) {
      if (started) return;
      const { queue } = jobPorts(context);
      started = true;
      if (startOptions.worker !== false) {
        // An in-process queue's worker takes the next job while a result is being stored (the
        // next start requeues a job left processing by a crash). A durable queue keeps its own
        // record of a job until its outcome is saved, so there each job is seen to the end.
        const detach = !queue.durable;
        queue.process((jobId, delivery) => processJob(context, jobId, { delivery, detach }), {
          concurrency: context.concurrency,
        });
        context.workerStarted = true;
        await recoverJobs(context);
      }
      if (context.sweepIntervalMs > 0) {
        sweeper = setInterval(() => {
          sweepExpired(context).catch((error: unknown) => context.onError(error, 'sweep'));
        }, context.sweepIntervalMs);
        sweeper.unref();
      }
    },
    processJob: (jobId) => processJob(context, jobId),
    recoverJobs: () => recoverJobs(context),
    sweepExpired: () => sweepExpired(context),
    async close(closeOptions = {}) {
      if (sweeper) clearInterval(sweeper);
      context.stopping = true;
      const drained = context.queue?.close() ?? Promise.resolve();
      if (closeOptions.graceMs !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        const graceOver = new Promise<'grace-over'>((resolve) => {
          timer = setTimeout(() => resolve('grace-over'), closeOptions.graceMs);
        });
        if ((await Promise.race([drained, graceOver])) === 'grace-over') {
          const reason = new FileconvError('CANCELED', 'The server is shutting down.');
          context.halt.abort(reason);
          for (const controller of context.running.values()) controller.abort(reason);
        }
        clearTimeout(timer);
      }
      await drained;
      // Results of finished conversions still being stored (see processJob).
      while (context.finishing.size > 0) await Promise.all([...context.finishing]);
      await Promise.all([
        context.converters.close(),
        ...[...context.operations.values()].map((operation) => operation.close?.()),
      ]);
      await context.jobs?.close?.();
      await context.storage?.close?.();
    },
  };
}
