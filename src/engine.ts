/**
 * createEngine: the one object a host application holds. It wires the injected ports
 * (storage, job store, queue, converters) into two APIs:
 *
 * - direct, in-process conversions: convertFile, convertBuffer, convertStream;
 * - jobs, as the HTTP flows use them: uploadFile, createJob, getJob, waitForJob, openResult,
 *   cancelJob, with start() running this process's worker over the queue.
 */
import {
  type ConversionReport,
  convertBuffer,
  convertFile,
  convertStream,
  type DirectConvertOptions,
  type StreamConversion,
} from './direct.js';
import { createEngineContext, type EngineOptions, jobPorts } from './engine-context.js';
import { FORMATS } from './formats/index.js';
import type { FormatDefinition, FormatName } from './formats/types.js';
import type { ConversionPlan } from './graph/index.js';
import {
  type CreateJobInput,
  cancelJob,
  createJob,
  getFile,
  getJob,
  type JobResult,
  openResult,
  recoverJobs,
  sweepExpired,
  type UploadFileInput,
  uploadFile,
  type WaitOptions,
  waitForJob,
} from './job-operations.js';
import type { FileRecord, Job } from './jobs/types.js';
import { planConversion } from './planning.js';
import type { Availability } from './ports.js';
import { processJob } from './worker.js';

export type { EngineOptions } from './engine-context.js';

export interface FormatSupport extends FormatDefinition {
  /** Formats this one converts to with the converters available here. */
  targets: FormatName[];
}

export interface ConverterStatus extends Availability {
  name: string;
  /** Number of conversion edges the converter offers. */
  edges: number;
}

export interface Engine {
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

  uploadFile(input: UploadFileInput): Promise<FileRecord>;
  getFile(id: string, owner?: string): Promise<FileRecord>;
  createJob(input: CreateJobInput): Promise<Job>;
  getJob(id: string, owner?: string): Promise<Job>;
  cancelJob(id: string, owner?: string): Promise<Job>;
  waitForJob(id: string, options?: WaitOptions): Promise<Job>;
  openResult(id: string, owner?: string): Promise<JobResult>;

  /** The chain a conversion would take, with options validated; throws what a conversion would. */
  plan(from: string, to: string, options?: Record<string, unknown>): Promise<ConversionPlan>;
  /** Every registered format with the targets reachable from it here. */
  formats(): Promise<FormatSupport[]>;
  /** Each converter and whether its engine can run here. */
  converters(): Promise<ConverterStatus[]>;

  /** Recovers interrupted jobs, starts converting queued ones and sweeping expired results. */
  start(): Promise<void>;
  /** Runs one job by id (what the worker does for each queued id); for custom workers and tests. */
  processJob(jobId: string): Promise<void>;
  recoverJobs(): Promise<number>;
  sweepExpired(): Promise<number>;
  /** Stops the worker (waiting for running conversions) and the sweeper, and closes the ports. */
  close(): Promise<void>;
}

export function createEngine(options: EngineOptions): Engine {
  const context = createEngineContext(options);
  let sweeper: NodeJS.Timeout | undefined;
  let started = false;

  return {
    convertFile: (input, output, convertOptions) => convertFile(context, input, output, convertOptions),
    convertBuffer: (input, convertOptions) => convertBuffer(context, input, convertOptions),
    convertStream: (input, convertOptions) => convertStream(context, input, convertOptions),

    uploadFile: (input) => uploadFile(context, input),
    getFile: (id, owner) => getFile(context, id, owner),
    createJob: (input) => createJob(context, input),
    getJob: (id, owner) => getJob(context, id, owner),
    cancelJob: (id, owner) => cancelJob(context, id, owner),
    waitForJob: (id, waitOptions) => waitForJob(context, id, waitOptions),
    openResult: (id, owner) => openResult(context, id, owner),

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
    async converters() {
      const availability = await context.availability();
      return [...context.converters.values()].map((converter) => ({
        name: converter.name,
        edges: converter.edges.length,
        ...(availability.get(converter.name) ?? { ok: false }),
      }));
    },

    async start() {
      if (started) return;
      const { queue } = jobPorts(context);
      started = true;
      queue.process((jobId) => processJob(context, jobId), { concurrency: context.concurrency });
      await recoverJobs(context);
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
    async close() {
      if (sweeper) clearInterval(sweeper);
      await context.queue?.close();
      await context.jobs?.close?.();
      await context.storage?.close?.();
    },
  };
}
