/**
 * createEngine (deprecated): the one object a host held before the engine was split in two. It
 * builds a converter engine (createConverter: direct conversions, formats, plans) and, when
 * storage, a job store and a queue are all given, a job engine over it (createJobEngine: uploads,
 * jobs, the worker), and answers for both. Deprecated in 0.2.0 and removed in 0.3.0; new code
 * makes the two itself.
 */

import type { JobStore, Queue, Storage } from '../core/ports/index.js';
import type { ConversionOptions } from './conversion-context.js';
import { createConversionContext } from './conversion-context.js';
import { type JobEngineOptions, workerStatusOf } from './engine-context.js';
import { collectStats } from './engine-stats.js';
import { converterOf, type FileConverter } from './file-converter.js';
import { buildJobEngine, type JobEngine } from './job-engine.js';
import { type JobPortName, missingJobPorts, missingPortsError } from './job-ports.js';
import { checkReadiness } from './readiness.js';

export type { ConversionReport, DirectConvertOptions, StreamConversion } from './direct.js';
export type { JobEngineOptions, WorkerStatus } from './engine-context.js';
export type { EngineStats } from './engine-stats.js';
export type {
  ConverterStatus,
  FileConverter,
  FileConverterOptions,
  FormatSupport,
  OperationStatus,
} from './file-converter.js';
export type { JobEngine } from './job-engine.js';
export type { JobPortName } from './job-ports.js';

/** @deprecated Removed in 0.3.0. Use createConverter's and createJobEngine's options. */
export interface EngineOptions
  extends ConversionOptions,
    Omit<JobEngineOptions, 'converter' | 'storage' | 'jobs' | 'queue'> {
  /** Where uploads and results live. Required for jobs; the direct API works without it. */
  storage?: Storage;
  /** Where file and job records live. Required for jobs. */
  jobs?: JobStore;
  /** Hands job ids to workers. Required for jobs. */
  queue?: Queue;
}

/**
 * @deprecated Removed in 0.3.0. Use createConverter (direct conversions) and createJobEngine
 * (jobs): what both offer, with the job members throwing CONFIG when the engine has no storage,
 * job store or queue.
 */
export interface Engine extends Omit<FileConverter, 'close'>, Omit<JobEngine, 'storage' | 'converter'> {
  /** The storage the engine was given (the HTTP adapter presigns with it when it can). */
  readonly storage: Storage | undefined;
  /** Which of the ports jobs need (uploads, jobs, the HTTP service) the engine was given. */
  readonly ports: Readonly<Record<JobPortName, boolean>>;
}

/**
 * @deprecated Removed in 0.3.0. Use createConverter and createJobEngine. The engine of `options`:
 * a converter engine, plus a job engine when storage, jobs and queue are all given.
 */
export function createEngine(options: EngineOptions): Engine {
  const conversion = createConversionContext(options, 'createEngine');
  const converter = converterOf(conversion);
  const { storage, jobs: jobStore, queue } = options;
  if (storage && jobStore && queue) {
    return engineOf(
      converter,
      buildJobEngine({ ...options, converter, storage, jobs: jobStore, queue }, 'createEngine'),
    );
  }
  const missing = missingJobPorts(options);
  /** What every job member does here: CONFIG naming the ports the host did not give. */
  const noJobs = async (): Promise<never> => {
    throw missingPortsError('Jobs need storage, a job store and a queue', missing);
  };
  let closed = false;
  const workerStatus = () => workerStatusOf(queue, { stopping: closed, workerStarted: false });
  return {
    storage,
    ports: { storage: !!storage, jobs: !!jobStore, queue: !!queue },
    ...directMembers(converter),
    uploadFile: noJobs,
    createUploadGrant: noJobs,
    receiveUpload: noJobs,
    getFile: noJobs,
    createResumableUpload: noJobs,
    getResumableUpload: noJobs,
    appendResumable: noJobs,
    terminateResumable: noJobs,
    deleteFile: noJobs,
    confirmUpload: noJobs,
    createJob: noJobs,
    createJobs: noJobs,
    getJob: noJobs,
    cancelJob: noJobs,
    discardJob: noJobs,
    waitForJob: noJobs,
    openResult: noJobs,
    // Without the ports no job is ever created here, so no event ever comes.
    onJobEvent: () => () => {},
    recordWebhookOutcome: noJobs,
    readiness: (readinessOptions) =>
      checkReadiness(
        {
          stopping: closed,
          tempDir: conversion.tempDir,
          storage,
          jobs: jobStore,
          queue,
          workerStatus: workerStatus(),
          availability: () => conversion.availability(),
        },
        readinessOptions,
      ),
    stats: () => collectStats({ conversion, queue, processing: 0, onError: options.onError ?? (() => {}) }),
    workerStatus,
    start: noJobs,
    processJob: noJobs,
    recoverJobs: noJobs,
    sweepExpired: noJobs,
    async close() {
      closed = true;
      // The ports it was given, though too few for jobs, are its to close.
      await queue?.close();
      await converter.close();
      await jobStore?.close?.();
      await storage?.close?.();
    },
  };
}

/** The direct conversions of `converter`, as an Engine has them. */
function directMembers(
  converter: FileConverter,
): Pick<
  Engine,
  | 'convertFile'
  | 'convertBuffer'
  | 'convertStream'
  | 'plan'
  | 'formats'
  | 'optionsSchema'
  | 'converters'
  | 'operations'
> {
  return {
    convertFile: (input, output, convertOptions) => converter.convertFile(input, output, convertOptions),
    convertBuffer: (input, convertOptions) => converter.convertBuffer(input, convertOptions),
    convertStream: (input, convertOptions) => converter.convertStream(input, convertOptions),
    plan: (from, to, planOptions) => converter.plan(from, to, planOptions),
    formats: () => converter.formats(),
    optionsSchema: (from, to) => converter.optionsSchema(from, to),
    converters: () => converter.converters(),
    operations: () => converter.operations(),
  };
}

/**
 * For hosts that hold createEngine's engine: `converter`'s direct conversions and everything of
 * `jobs` (which converts with it), as one object that is both an Engine and the job engine. What
 * jobs may ask for (plan, formats, options, operations) is the job engine's answer.
 */
export function engineOf(converter: FileConverter, jobs: JobEngine): Engine & JobEngine {
  return {
    ...directMembers(converter),
    ...jobs,
    ports: { storage: true, jobs: true, queue: true },
  };
}
