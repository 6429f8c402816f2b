/**
 * The worker: takes a job id from the queue and converts it. Storage -> private temp dir ->
 * converter chain -> storage, moving the job processing -> completed | failed, recording the
 * measured CPU time, and removing the temp dir whatever happens.
 *
 * Delivery is at-least-once, so a job id may arrive twice or after a cancel: anything that is
 * not queued is skipped, and winning the queued -> processing update is what claims the job.
 *
 * A backing service that is briefly away (storage or job store answering UNAVAILABLE) is waited
 * out right here, with backoff, within one budget per job (unavailableRetryMs, see retry.ts);
 * past it the job fails with UNAVAILABLE, a service fault that is refunded. Waiting in place
 * rather than putting the job back on the queue with a delay is the simpler design that holds:
 * - the job stays `processing` with its attempt and its converted output, so an outage during
 *   the upload of a result never converts it again, and `attempts` keeps counting real runs;
 * - the Queue port needs no delayed delivery, and the memory and BullMQ queues behave alike;
 * - a requeue is itself a job-store write, which is exactly what fails while Redis is away;
 * - the queue's own retries (BullMQ's `attempts`) stay for what they are for, a handler that
 *   crashed, instead of being burnt in seconds by an outage that lasts a minute.
 * The cost is a worker slot held while waiting, which buys nothing from a service that is away.
 * A cancel still stops the job: between attempts the worker re-reads it (a cancel on another
 * node) and its abort signal ends the wait at once (a cancel or a shutdown in this process).
 *
 * A full disk is not waited out by the conversion: the work dir, a converter's output or the
 * stored result that finds no room fails the job at once with NO_SPACE, a service fault that is
 * refunded (507 with Retry-After over HTTP), its input kept for a retry. Only the job record's
 * own writes wait for room within the budget, so a job is never left neither failed nor done.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { abortError } from '../core/abort.js';
import { FileconvError, isFileconvError, toFileconvError } from '../core/errors.js';
import type { ConversionPlan } from '../core/graph/index.js';
import type { JobEvent } from '../core/jobs/state.js';
import type { Job, JobError } from '../core/jobs/types.js';
import type { QueueDelivery, Storage } from '../core/ports/index.js';
import { createOutageBudget } from '../core/retry.js';
import { withWorkLimits } from '../core/work-limits.js';
import { noSpaceError } from '../kit/local-files.js';
import { linkInto } from '../kit/place-file.js';
import { conversionSignal, resultMimeType, runChain } from './conversion.js';
import { conversionFailure, failureOf } from './conversion-failure.js';
import type { JobContext } from './engine-context.js';
import { applyJobEvent } from './job-operations.js';
import { runOperation, stagedInputPath } from './operation-jobs.js';
import { abortIfCanceled, discardOutput, type Patiently, patience, recordOutcome } from './worker-outage.js';

/**
 * What the job-record writes wait out besides UNAVAILABLE: a full disk under an embedded job
 * store. The conversion's own work (its work dir, the result) is not waited for: it fails at once
 * with NO_SPACE, refunded, since the room it needs is the size of the file, not a few KB.
 */
const RECORD_RETRY = ['NO_SPACE'] as const;

/**
 * Runs job `jobId` as the queue delivered it. With `detach`, it resolves once the conversion is
 * done, while the result is stored and the outcome saved in the background (tracked in
 * context.finishing): the worker loop of an in-process queue uses it so that the next conversion
 * starts meanwhile.
 */
export async function processJob(
  context: JobContext,
  jobId: string,
  options: { delivery?: QueueDelivery; detach?: boolean } = {},
): Promise<void> {
  const { jobs } = context;
  const budget = createOutageBudget(context.unavailableRetryMs);
  // Until the job is claimed nothing but a shutdown ends a wait. Writes of the job's record wait
  // out a full disk too (an embedded database that cannot write): failing them would leave the
  // job neither run nor failed.
  const claiming = patience(context, budget, `job ${jobId}`, context.halt.signal, undefined, RECORD_RETRY);
  const stored = await claiming(() => jobs.getJob(jobId));
  if (!stored) return;
  let queued = stored;
  if (
    stored.status === 'processing' &&
    context.queue?.durable &&
    !context.running.has(stored.id) &&
    options.delivery?.redelivered !== false
  ) {
    // A durable queue redelivers a processing job when its worker lost the job's lock (it died)
    // or its handler threw: take it over. A first delivery of a second entry (recovery on a
    // start enqueues ids whose first entry is being claimed) is not one: its worker is alive,
    // perhaps waiting out an outage. Should the old run still finish, the job has a new attempt
    // by then and each attempt writes its own result key, so neither deletes the other's file.
    queued = await claiming(() => applyJobEvent(context, stored, { type: 'requeue' })).catch(
      (error: unknown) => {
        // Someone else moved it first. Anything else (the store away past the budget) goes back
        // to the queue, which delivers again; swallowing it would strand the job processing.
        if (isFileconvError(error, 'INVALID_STATE')) return stored;
        throw error;
      },
    );
  }
  if (queued.status !== 'queued') return;
  let job: Job;
  try {
    job = await claiming(() => applyJobEvent(context, queued, { type: 'start' }));
  } catch (error) {
    // Another worker claimed it (or it was canceled) between our read and our write.
    if (isFileconvError(error, 'INVALID_STATE')) return;
    throw error;
  }
  const controller = new AbortController();
  context.running.set(job.id, controller);
  // Handed in while the engine closes, after running jobs were aborted: this one goes back too.
  if (context.halt.signal.aborted) controller.abort(context.halt.signal.reason);
  const converting = patience(context, budget, `job ${job.id}`, controller.signal, () =>
    abortIfCanceled(context, job, controller),
  );
  let workDir: string | undefined;
  let converted: Converted | FileconvError;
  // The CPU the run's steps used, failed ones included; null until a step has ended.
  let cpuMs: number | null = null;
  const onCpuSpent = (ms: number) => {
    cpuMs = (cpuMs ?? 0) + ms;
  };
  const startedAt = performance.now();
  try {
    workDir = await makeWorkDir(context.conversion.tempDir);
    converted = await convertJob(
      context,
      { job, workDir, cancel: controller.signal, onCpuSpent },
      converting,
    );
  } catch (error) {
    // Judged before the work dir is removed: what a converter wrote there still fills the disk.
    converted = await conversionFailure(context.conversion.tempDir, error, startedAt);
  }
  // Storing the result and recording the outcome wait on disks and networks, not the CPU: when
  // detached, the next job starts converting meanwhile.
  const finishing = finishJob(context, {
    job,
    controller,
    workDir,
    converted,
    cpuMs: cpuMs === null ? null : Math.round(cpuMs),
    budget,
    converting,
  });
  if (!options.detach) return finishing;
  const tracked = finishing
    .catch((error: unknown) => context.onError(error, 'finishJob'))
    .finally(() => context.finishing.delete(tracked));
  context.finishing.add(tracked);
}

interface Converted {
  outputPath: string;
  cpuMs: number;
}

interface Finish {
  job: Job;
  controller: AbortController;
  workDir: string | undefined;
  converted: Converted | FileconvError;
  /** The CPU the conversion used, ms, whether it succeeded or not; null when no step ran. */
  cpuMs: number | null;
  budget: ReturnType<typeof createOutageBudget>;
  converting: Patiently;
}

/** Stores the result, cleans up, and moves the job to where the conversion left it. */
async function finishJob(context: JobContext, finish: Finish): Promise<void> {
  const { job, controller, workDir, converted, converting } = finish;
  const { storage } = context;
  let outcome:
    | { ok: true; outputKey: string; outputSize: number; cpuMs: number }
    | { ok: false; error: FileconvError };
  try {
    if (converted instanceof FileconvError) throw converted;
    // One key per attempt: a run that lost the job to another worker deletes only its own output.
    const outputKey = `results/${job.id}/${job.attempts}`;
    const contentType = resultMimeType(context.conversion.formats, job.targetFormat, job.packaging);
    // Moved in where the storage can (a rename on the same disk), streamed in where it cannot
    // (a fresh stream per try: a failed put has consumed and destroyed the last one). The type
    // is stored with the object only where the storage itself serves downloads (presignGet):
    // fileconv serves a result with the type its job names (openResult), and on the fs store a
    // type kept is a meta file beside every result, written and renamed into place for nothing.
    const stored = storage.presignGet ? { contentType } : {};
    const { size } = await converting(() =>
      storage.putFile
        ? storage.putFile(outputKey, converted.outputPath, stored)
        : storage.put(outputKey, createReadStream(converted.outputPath), stored),
    );
    outcome = { ok: true, outputKey, outputSize: size, cpuMs: converted.cpuMs };
  } catch (error) {
    outcome = { ok: false, error: failureOf(error, 'Storing the result') };
  } finally {
    // Cleaned up before the job is marked done, so whoever waits for it finds nothing left behind.
    context.running.delete(job.id);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }
  // Stopped by a shutdown: the job goes back to the queue for the next start, nothing is lost.
  const interrupted = !outcome.ok && context.stopping && controller.signal.aborted;
  const event: JobEvent = interrupted
    ? { type: 'requeue' }
    : outcome.ok
      ? {
          type: 'complete',
          outputKey: outcome.outputKey,
          outputSize: outcome.outputSize,
          cpuMs: outcome.cpuMs,
          expiresAt: new Date(context.nowMs() + context.resultTtlMs).toISOString(),
        }
      : { type: 'fail', error: jobErrorOf(outcome.error), cpuMs: finish.cpuMs };
  // The outcome is worth waiting for (a completed result is not thrown away over a Redis
  // restart); only a shutdown past its grace stops that wait.
  const recording = patience(
    context,
    finish.budget,
    `job ${job.id}`,
    context.halt.signal,
    undefined,
    RECORD_RETRY,
  );
  let settled: Job | null;
  try {
    settled = await recordOutcome(context, job, event, recording);
  } catch (error) {
    // Not recorded: the job stays processing and is run again (the durable queue redelivers it,
    // the in-process one on the next start); this attempt's output would be an orphan.
    if (outcome.ok) await discardOutput(context, outcome.outputKey);
    throw error;
  }
  if (!settled) {
    // Canceled while running, or taken over by a newer attempt: what this run made is not wanted.
    if (outcome.ok) await discardOutput(context, outcome.outputKey);
  } else if (settled.status === 'completed' || settled.status === 'failed') {
    await context.onJobSettled(settled);
  }
}

/**
 * The error a failed job records: its code and message, and whose fault it was where the code
 * alone does not tell (a deadline that struck while waiting for a busy engine, core/abort.ts).
 */
function jobErrorOf(error: FileconvError): JobError {
  const recorded: JobError = { code: error.code, message: error.message };
  if (error.details?.fault === 'service') recorded.details = { fault: 'service' };
  return recorded;
}

/**
 * The job's one work dir, made with one call. Only when the temp parent has been cleaned away
 * under a long-running worker is the parent made again first.
 */
async function makeWorkDir(tempDir: string): Promise<string> {
  const prefix = join(tempDir, 'fileconv-');
  try {
    return await mkdtemp(prefix);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(tempDir, { recursive: true });
    return mkdtemp(prefix);
  }
}

/** One run of a job: its record, its private work dir, the signal that cancels it, and where its CPU time is told. */
interface Run {
  job: Job;
  workDir: string;
  cancel: AbortSignal;
  onCpuSpent: (cpuMs: number) => void;
}

async function convertJob(context: JobContext, run: Run, patiently: Patiently): Promise<Converted> {
  const { job, workDir, cancel, onCpuSpent } = run;
  const { storage } = context;
  if (job.operation) {
    const inputs = job.inputs ?? [
      { fileId: job.fileId ?? '', inputKey: job.inputKey, fileName: job.fileName },
    ];
    const inputPaths = inputs.map((_, index) => stagedInputPath(workDir, job, index));
    for (const [index, input] of inputs.entries()) {
      await patiently(() => stageInput(storage, input.inputKey, inputPaths[index]!));
    }
    const signal = conversionSignal(context.conversion.timeoutMs, cancel);
    const result = await runOperation(context, {
      job,
      inputPaths,
      workDir,
      signal,
      limits: withWorkLimits(context.conversion.limits, job.limits),
      onCpuSpent,
    });
    if (signal.aborted) throw abortError(signal);
    return result;
  }
  const inputPath = join(workDir, `input.${context.conversion.formats.extensionOf(job.sourceFormat)}`);
  await patiently(() => stageInput(storage, job.inputKey, inputPath));
  const signal = conversionSignal(context.conversion.timeoutMs, cancel);
  const result = await runChain(context.conversion, {
    plan: await replan(context, job),
    inputPath,
    workDir,
    options: job.options,
    signal,
    limits: withWorkLimits(context.conversion.limits, job.limits),
    onProgress: throttledProgress(context, job),
    onCpuSpent,
  });
  if (signal.aborted) throw abortError(signal);
  return { outputPath: result.outputPath, cpuMs: result.cpuMs };
}

/**
 * The job stores the planned format path; the converters for each step are looked up again
 * here, so a worker with a different set of engines than the API node still runs the same chain.
 * A step no converter of this worker can make (an API node plans on declared edges, without
 * knowing what is installed where) fails the job with ENGINE_UNAVAILABLE: the service's fault.
 */
async function replan(context: JobContext, job: Job): Promise<ConversionPlan> {
  const steps = await Promise.all(
    job.path.slice(1).map(async (to, index) => {
      const from = job.path[index]!;
      const plan = await context.conversion
        .findPath(from, to, 1, { explainMissing: true })
        .catch((error: unknown) => {
          if (!isFileconvError(error, 'UNSUPPORTED_CONVERSION')) throw error;
          throw new FileconvError(
            'ENGINE_UNAVAILABLE',
            `This worker has no converter that turns ${from} into ${to}.`,
            { details: { sourceFormat: from, targetFormat: to }, cause: error },
          );
        });
      return plan.steps[0]!;
    }),
  );
  return {
    from: job.sourceFormat,
    to: job.targetFormat,
    steps,
    cost: steps.reduce((sum, step) => sum + step.cost, 0),
    lossySteps: steps.filter((step) => step.lossy).length,
  };
}

function throttledProgress(context: JobContext, job: Job): (fraction: number) => void {
  // Progress is a hint, not a log: written at most once an interval, and not in the first one
  // (a conversion that ends within it, as most do, costs no store write for progress).
  let lastWrite = Date.now();
  let current = job;
  let writing = false;
  return (fraction) => {
    const now = Date.now();
    if (writing || fraction >= 1 || now - lastWrite < context.progressIntervalMs) return;
    lastWrite = now;
    writing = true;
    applyJobEvent(context, current, { type: 'progress', progress: fraction })
      .then((saved) => {
        current = saved;
      })
      .catch((error: unknown) => {
        // A cancel wins over progress: abort the running conversion.
        if (isFileconvError(error, 'INVALID_STATE'))
          context.running.get(job.id)?.abort(new FileconvError('CANCELED', 'The job was canceled.'));
        // A progress write lost to an outage is not worth a log line a second.
        else if (!isFileconvError(error, 'UNAVAILABLE')) context.onError(error, 'progress');
      })
      .finally(() => {
        writing = false;
      });
  };
}

/**
 * Puts the stored input in the work dir under `inputPath`: where the storage keeps it as a local
 * file, a symlink to it (the converter reads the upload in place, as convertFile reads a caller's
 * file; an engine that writes beside its input stages a copy of its own), else a stream from
 * storage. Copying a small upload cost more CPU than converting some of them (issue 28).
 * Only a missing object means the upload is gone; any other failure keeps its own code (an
 * unreachable storage is UNAVAILABLE and waited out, never taken for a deleted file).
 */
async function stageInput(storage: Storage, key: string, inputPath: string): Promise<void> {
  const gone = (error: unknown) =>
    new FileconvError('NOT_FOUND', 'The uploaded file is gone (it expired or was deleted).', {
      cause: error,
    });
  const local = await storage.localPath?.(key);
  if (local) {
    await linkInto(local, inputPath).catch((error: unknown) => {
      // Deleted between localPath and the copy a file system without symlinks makes.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw gone(error);
      throw (
        noSpaceError(error, 'Linking the uploaded file into the work folder failed') ??
        toFileconvError(error, 'INTERNAL', `Linking the uploaded file failed: ${String(error)}`)
      );
    });
    return;
  }
  const input = await storage.get(key).catch((error: unknown) => {
    throw isFileconvError(error, 'NOT_FOUND') ? gone(error) : error;
  });
  await pipeline(input, createWriteStream(inputPath)).catch((error: unknown) => {
    throw noSpaceError(error, 'Copying the uploaded file into the work folder failed') ?? error;
  });
}
