/**
 * createJobEngine: jobs over storage, a job store and a queue, as the HTTP flows use them
 * (uploads, resumable uploads, jobs, their events and results), with start() running this
 * process's worker over the queue, converting with the converter engine it was given
 * (createConverter). Its ports are required by its type: nothing inside checks them again.
 *
 *   const converter = createConverter({ converters: defaultConverters() });
 *   const jobs = createJobEngine({ converter, storage, jobs: jobStore, queue });
 *   await jobs.start();
 *
 * An API node of a scale-out deployment is one with `worker: false`: it plans jobs on the declared
 * edges of its converters and loads no engine, so it needs none installed.
 */
import type { ZodType } from 'zod';
import { FileconvError } from '../core/errors.js';
import type { ConversionPlan } from '../core/graph/index.js';
import type { FileRecord, Job } from '../core/jobs/types.js';
import type { Storage } from '../core/ports/index.js';
import {
  createJobContext,
  type JobContext,
  type JobEngineOptions,
  type WorkerStatus,
  workerStatusOf,
} from './engine-context.js';
import { collectStats, type EngineStats } from './engine-stats.js';
import {
  type ConverterStatus,
  converterStatuses,
  type FileConverter,
  type FormatSupport,
  formatsOf,
  type OperationStatus,
  operationStatuses,
  optionsSchemaOf,
  planOf,
} from './file-converter.js';
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

export type { JobEngineOptions, WorkerStatus } from './engine-context.js';

export interface JobEngine {
  /** The storage the engine was given (the HTTP adapter presigns with it when it can). */
  readonly storage: Storage;
  /** The converter engine its jobs convert with. */
  readonly converter: FileConverter;

  /** Flow B: streams an upload into storage and records it. */
  uploadFile(input: UploadFileInput): Promise<FileRecord>;
  /** Flow A: a pending file record for one later upload of exactly the declared size and type. */
  createUploadGrant(input: UploadGrantInput): Promise<FileRecord>;
  /** Flow A: stores the bytes of a pending upload. */
  receiveUpload(input: ReceiveUploadInput): Promise<FileRecord>;
  getFile(id: string, owner?: string): Promise<FileRecord>;
  /**
   * Resumable (tus) upload, step 1: a pending file record for `size` bytes that arrive in
   * pieces (needs Storage.resumable); unfinished, it expires `retentionMs` after its last byte,
   * and at the latest `resumableUploadTtlMs` after its creation.
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

  /**
   * The chain a job's conversion would take, with options validated; throws what creating the job
   * would. On an API node (`worker: false`), over the converters' declared edges.
   */
  plan(from: string, to: string, options?: Record<string, unknown>): Promise<ConversionPlan>;
  /** Every registered format with the targets jobs may ask for here (API node: the declared ones). */
  formats(): Promise<FormatSupport[]>;
  /** The schema of the options a conversion from `from` to `to` accepts; undefined when it takes none. */
  optionsSchema(from: string, to: string): Promise<ZodType<Record<string, unknown>> | undefined>;
  /** Each converter and whether its engine can run in this process (asking loads it). */
  converters(): Promise<ConverterStatus[]>;
  /** The document operations jobs may run (API node: every one configured, unchecked). */
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
   * in-process queue and start() not called), 'unknown' (a shared queue and no worker here:
   * workers may run elsewhere), 'stopping' (close() was called).
   */
  workerStatus(): WorkerStatus;
  /**
   * Recovers interrupted jobs, starts this process's worker (unless `worker: false`, for API-only
   * nodes: the option, or here) and the sweeper of expired results and uploads.
   */
  start(options?: { worker?: boolean }): Promise<void>;
  /** Runs one job by id (what the worker does for each queued id); for custom workers and tests. */
  processJob(jobId: string): Promise<void>;
  recoverJobs(): Promise<number>;
  sweepExpired(): Promise<number>;
  /**
   * Stops taking jobs, lets running conversions finish for up to `graceMs` (default: forever),
   * then aborts the rest and puts them back in the queue; stops the sweeper; closes the
   * converter engine and the ports.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** The job engine of `options`; a bad option throws INVALID_OPTIONS naming it. */
export function createJobEngine(options: JobEngineOptions): JobEngine {
  return buildJobEngine(options, 'createJobEngine');
}

/** createJobEngine, with `who` named in its option errors (createEngine builds one too). */
export function buildJobEngine(options: JobEngineOptions, who: string): JobEngine {
  return jobEngineOf(createJobContext(options, who), options.converter);
}

function jobEngineOf(context: JobContext, converter: FileConverter): JobEngine {
  const { conversion } = context;
  let sweeper: NodeJS.Timeout | undefined;
  let started = false;
  const declared = () => context.plansOnDeclaredEdges;

  return {
    storage: context.storage,
    converter,
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

    plan: (from, to, planOptions) => planOf(conversion, from, to, planOptions, declared()),
    formats: () => formatsOf(conversion, declared()),
    optionsSchema: (from, to) => optionsSchemaOf(conversion, from, to, declared()),
    converters: () => converterStatuses(conversion),
    operations: () => operationStatuses(conversion, declared()),

    readiness: (readinessOptions) =>
      checkReadiness(
        {
          stopping: context.stopping,
          tempDir: conversion.tempDir,
          storage: context.storage,
          jobs: context.jobs,
          queue: context.queue,
          workerStatus: workerStatusOf(context.queue, context),
          availability: () => conversion.availability(),
        },
        readinessOptions,
      ),
    stats: () =>
      collectStats({
        conversion,
        queue: context.queue,
        processing: context.running.size,
        onError: context.onError,
      }),
    workerStatus: () => workerStatusOf(context.queue, context),

    async start(startOptions = {}) {
      if (started) return;
      started = true;
      const { queue } = context;
      if (startOptions.worker === false) context.plansOnDeclaredEdges = true;
      if ((startOptions.worker ?? context.runsWorker) !== false) {
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
      const drained = context.queue.close();
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
      await converter.close();
      await context.jobs.close?.();
      await context.storage.close?.();
    },
  };
}
