/**
 * The worker: takes a job id from the queue and converts it. Storage -> private temp dir ->
 * converter chain -> storage, moving the job processing -> completed | failed, recording the
 * measured CPU time, and removing the temp dir whatever happens.
 *
 * Delivery is at-least-once, so a job id may arrive twice or after a cancel: anything that is
 * not queued is skipped, and winning the queued -> processing update is what claims the job.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { abortError } from './abort.js';
import { conversionSignal, resultMimeType, runChain } from './conversion.js';
import { type EngineContext, jobPorts } from './engine-context.js';
import { FileconvError, isFileconvError, toFileconvError } from './errors.js';
import { extensionOf } from './formats/index.js';
import type { ConversionPlan } from './graph/index.js';
import { applyJobEvent } from './job-operations.js';
import type { JobEvent } from './jobs/state.js';
import type { Job } from './jobs/types.js';
import type { Storage } from './ports.js';

/** How often progress is written to the job store at most, ms: progress is a hint, not a log. */
const PROGRESS_WRITE_INTERVAL_MS = 1000;

export async function processJob(context: EngineContext, jobId: string): Promise<void> {
  const { jobs } = jobPorts(context);
  const stored = await jobs.getJob(jobId);
  if (!stored) return;
  let queued = stored;
  if (stored.status === 'processing' && context.queue?.durable && !context.running.has(stored.id)) {
    // A durable queue redelivers a processing job only when its worker lost the job's lock
    // (it died): take it over. Should that worker still finish, the job has a new attempt by
    // then and each attempt writes its own result key, so neither run deletes the other's file.
    queued = await applyJobEvent(context, stored, { type: 'requeue' }).catch(() => stored);
  }
  if (queued.status !== 'queued') return;
  let job: Job;
  try {
    job = await applyJobEvent(context, queued, { type: 'start' });
  } catch (error) {
    // Another worker claimed it (or it was canceled) between our read and our write.
    if (isFileconvError(error, 'INVALID_STATE')) return;
    throw error;
  }
  const controller = new AbortController();
  context.running.set(job.id, controller);
  let outcome:
    | { ok: true; outputKey: string; outputSize: number; cpuMs: number }
    | { ok: false; error: FileconvError };
  let workDir: string | undefined;
  try {
    // The temp parent may have been cleaned away under a long-running worker: make it again.
    await mkdir(context.tempDir, { recursive: true });
    workDir = await mkdtemp(join(context.tempDir, 'fileconv-'));
    outcome = { ok: true, ...(await convertJob(context, job, workDir, controller.signal)) };
  } catch (error) {
    outcome = { ok: false, error: toFileconvError(error, 'CONVERSION_FAILED') };
  } finally {
    // Cleaned up before the job is marked done, so whoever waits for it finds nothing left behind.
    context.running.delete(job.id);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }
  const current = (await jobs.getJob(job.id)) ?? job;
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
      : { type: 'fail', error: { code: outcome.error.code, message: outcome.error.message } };
  try {
    const settled = await applyJobEvent(context, current, event);
    if (settled.status === 'completed' || settled.status === 'failed') await context.onJobSettled(settled);
  } catch (error) {
    // Canceled while running: whatever was produced is not wanted.
    if (outcome.ok) await jobPorts(context).storage.delete(outcome.outputKey);
    if (!isFileconvError(error, 'INVALID_STATE')) throw error;
  }
}

async function convertJob(
  context: EngineContext,
  job: Job,
  workDir: string,
  cancel: AbortSignal,
): Promise<{ outputKey: string; outputSize: number; cpuMs: number }> {
  const { storage } = jobPorts(context);
  const inputPath = join(workDir, `input.${extensionOf(job.sourceFormat)}`);
  await stageInput(storage, job.inputKey, inputPath);
  const signal = conversionSignal(context.timeoutMs, cancel);
  const result = await runChain({
    plan: await replan(context, job),
    converters: context.converters,
    inputPath,
    workDir,
    options: job.options,
    signal,
    limits: context.limits,
    onProgress: throttledProgress(context, job),
  });
  if (signal.aborted) throw abortError(signal);
  // One key per attempt: a run that lost the job to another worker deletes only its own output.
  const outputKey = `results/${job.id}/${job.attempts}`;
  const { size } = await stat(result.outputPath);
  await storage.put(outputKey, createReadStream(result.outputPath), {
    contentType: resultMimeType(job.targetFormat, job.packaging),
  });
  return { outputKey, outputSize: size, cpuMs: result.cpuMs };
}

/**
 * The job stores the planned format path; the converters for each step are looked up again
 * here, so a worker with a different set of engines than the API node still runs the same chain.
 */
async function replan(context: EngineContext, job: Job): Promise<ConversionPlan> {
  const graph = await context.graph();
  const steps = job.path.slice(1).map((to, index) => {
    const from = job.path[index]!;
    return graph.findPath(from, to, { maxSteps: 1 }).steps[0]!;
  });
  return {
    from: job.sourceFormat,
    to: job.targetFormat,
    steps,
    cost: steps.reduce((sum, step) => sum + step.cost, 0),
    lossySteps: steps.filter((step) => step.lossy).length,
  };
}

function throttledProgress(context: EngineContext, job: Job): (fraction: number) => void {
  let lastWrite = 0;
  let current = job;
  let writing = false;
  return (fraction) => {
    const now = Date.now();
    if (writing || fraction >= 1 || now - lastWrite < PROGRESS_WRITE_INTERVAL_MS) return;
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
        else context.onError(error, 'progress');
      })
      .finally(() => {
        writing = false;
      });
  };
}

/**
 * Copies the stored input into the work dir: a kernel-side file copy when the storage keeps it
 * as a local file, else a stream from storage. The converter gets a private file either way.
 */
async function stageInput(storage: Storage, key: string, inputPath: string): Promise<void> {
  const gone = (error: unknown) =>
    new FileconvError('NOT_FOUND', 'The uploaded file is gone (it expired or was deleted).', {
      cause: error,
    });
  const local = await storage.localPath?.(key);
  if (local) {
    await copyFile(local, inputPath).catch((error: unknown) => {
      throw gone(error);
    });
    return;
  }
  const input = await storage.get(key).catch((error: unknown) => {
    throw gone(error);
  });
  await pipeline(input, createWriteStream(inputPath));
}
