/**
 * The job side of the engine, transport-free: create jobs (one or a batch, all-or-nothing),
 * read, cancel, wait for them, open their results, and the housekeeping (recovery after a
 * restart, expiry). Uploads are in upload-operations.ts; the HTTP adapter is a thin layer over both.
 */
import type { Readable } from 'node:stream';
import { FileconvError, isFileconvError } from '../core/errors.js';
import { isTerminal, type JobEvent, transition } from '../core/jobs/state.js';
import type { Job, JobCharge } from '../core/jobs/types.js';
import { outputNameFor } from '../core/names.js';
import type { WorkLimits } from '../core/ports/index.js';
import { resultExtension, resultMimeType } from './conversion.js';
import type { JobContext } from './engine-context.js';
import { readStoredHead } from './file-head.js';
import { lifecycleEventOf } from './job-events.js';
import { queuedJob } from './job-record.js';
import { settledOptions } from './job-secrets.js';
import { pendingWebhook } from './job-webhook.js';
import { type CreateOperationJobInput, isOperationJobInput, prepareOperationJob } from './operation-jobs.js';
import { planConversion, resolveSourceFormat } from './planning.js';
import { confirmUpload, getFile } from './upload-operations.js';

export interface CreateJobInput {
  owner: string;
  /** The uploaded file to convert. */
  fileId: string;
  /** Declared source format; must agree with the content. Detected when omitted. */
  sourceFormat?: string;
  targetFormat: string;
  /** Declared size; SIZE_MISMATCH when the stored file differs. */
  fileSize?: number;
  options?: Record<string, unknown>;
  /** Higher runs first. Default 0. */
  priority?: number;
  /** Stored on the job as `charge` (see Job.charge). */
  charge?: JobCharge | null;
  /** http(s) URL to POST job.completed / job.failed / job.canceled to (see adapters/webhooks/http). */
  webhookUrl?: string;
  /** The work budgets the job's conversion must stay within (a plan's; see WorkLimits). */
  limits?: WorkLimits;
}

/**
 * Checks everything a job needs (the file is the owner's and uploaded, its size and content
 * match, a conversion path exists, the options are valid) and returns the queued job record
 * it would be, without storing anything.
 */
export async function prepareJob(
  context: JobContext,
  input: CreateJobInput | CreateOperationJobInput,
): Promise<Job> {
  if (isOperationJobInput(input)) return prepareOperationJob(context, input);
  const { storage } = context;
  // Checked first: a bad URL is the cheapest refusal.
  const webhook = input.webhookUrl === undefined ? undefined : pendingWebhook(input.webhookUrl);
  const file = await confirmUpload(context, await getFile(context, input.fileId, input.owner));
  if (input.fileSize !== undefined && input.fileSize !== file.size) {
    throw new FileconvError('SIZE_MISMATCH', `The file has ${file.size} bytes, not ${input.fileSize}.`, {
      details: { declared: input.fileSize, actual: file.size },
    });
  }
  const head = await readStoredHead(storage, file.key, file.size);
  const from = await resolveSourceFormat(head, input.sourceFormat, file.fileName, context.conversion.formats);
  const { plan, options, packaging } = await planConversion(
    context.conversion,
    from,
    input.targetFormat,
    input.options,
    // An API client hears which engine is missing and its install line too (ENGINE_UNAVAILABLE),
    // not "no converter": the conversion exists, this server lacks what makes it.
    { declared: context.plansOnDeclaredEdges, explainMissing: true },
  );
  return queuedJob(
    context,
    {
      owner: input.owner,
      fileId: file.id,
      inputKey: file.key,
      sourceFormat: from,
      targetFormat: plan.to,
      fileName: file.fileName,
      outputName: outputNameFor(
        file.fileName,
        resultExtension(context.conversion.formats, plan.to, packaging),
      ),
      packaging,
      options,
      path: [from, ...plan.steps.map((step) => step.to)],
    },
    { priority: input.priority, charge: input.charge, webhook, limits: input.limits },
  );
}

/** Checks the input and the plan, stores a queued job and enqueues it. */
export async function createJob(
  context: JobContext,
  input: CreateJobInput | CreateOperationJobInput,
): Promise<Job> {
  return (await createJobs(context, [input]))[0]!;
}

/**
 * Creates several jobs all-or-nothing: every input is checked first (an error names the index
 * of the failing one), and only then are they stored and enqueued.
 */
export async function createJobs(
  context: JobContext,
  inputs: readonly (CreateJobInput | CreateOperationJobInput)[],
): Promise<Job[]> {
  const { jobs, queue } = context;
  const prepared: Job[] = [];
  for (const [index, input] of inputs.entries()) {
    try {
      prepared.push(await prepareJob(context, input));
    } catch (error) {
      if (inputs.length === 1 || !(error instanceof FileconvError)) throw error;
      throw new FileconvError(error.code, `jobs[${index}]: ${error.message}`, {
        details: { ...error.details, index },
        cause: error,
      });
    }
  }
  for (const job of prepared) await jobs.createJob(job);
  for (const job of prepared) {
    context.watch.notify(job);
    context.lifecycle.emit({ type: 'created', job });
    await queue.enqueue(job.id, { priority: job.priority, firstTime: true });
  }
  return prepared;
}

/** An owner's job; NOT_FOUND for a missing id and for another owner's. */
export async function getJob(context: JobContext, id: string, owner?: string): Promise<Job> {
  const job = await context.jobs.getJob(id);
  if (!job || (owner !== undefined && job.owner !== owner)) {
    throw new FileconvError('NOT_FOUND', 'No such job.', { details: { jobId: id } });
  }
  return job;
}

/**
 * Applies `event` to the stored job and saves it, re-reading and retrying when another writer
 * got there first. Returns the saved job; throws INVALID_STATE when the event no longer applies.
 */
export async function applyJobEvent(context: JobContext, job: Job, event: JobEvent): Promise<Job> {
  const { jobs } = context;
  let current = job;
  let options: Record<string, unknown> | undefined;
  for (let attempt = 0; ; attempt++) {
    let next = transition(current, event, context.now());
    // A job over keeps no secret option (a cookie, a password): its worker has no more use for it.
    if (isTerminal(next.status) && !isTerminal(current.status)) {
      options ??= await settledOptions(context, next);
      next = { ...next, options };
    }
    try {
      await jobs.updateJob(next);
      announceJobEvent(context, next, event.type);
      return next;
    } catch (error) {
      if (!isFileconvError(error, 'VERSION_CONFLICT') || attempt >= 5) throw error;
      const reread = await jobs.getJob(job.id);
      if (!reread) throw new FileconvError('NOT_FOUND', 'No such job.', { details: { jobId: job.id } });
      current = reread;
    }
  }
}

/** Tells this process's listeners that `job` (as saved) went through `event`. */
export function announceJobEvent(context: JobContext, job: Job, event: JobEvent['type']): void {
  context.watch.notify(job);
  const type = lifecycleEventOf(event);
  if (type) context.lifecycle.emit({ type, job });
}

/** Cancels a queued or running job (a running conversion in this process is aborted at once). */
export async function cancelJob(context: JobContext, id: string, owner?: string): Promise<Job> {
  const job = await getJob(context, id, owner);
  const canceled = await applyJobEvent(context, job, { type: 'cancel' });
  context.running.get(id)?.abort(new FileconvError('CANCELED', 'The job was canceled.'));
  return canceled;
}

/**
 * Ends a job for good: a queued or running one is canceled, a completed one has its result
 * deleted (it then reads `expired`). Failed, canceled and expired jobs are left as they are.
 */
export async function discardJob(context: JobContext, id: string, owner?: string): Promise<Job> {
  const job = await getJob(context, id, owner);
  if (job.status === 'queued' || job.status === 'processing') return cancelJob(context, id, owner);
  if (job.status !== 'completed') return job;
  if (job.outputKey) await context.storage.delete(job.outputKey);
  return applyJobEvent(context, job, { type: 'expire' });
}

export interface WaitOptions {
  /** Give up after this long (CONVERSION_TIMEOUT). Default: the engine's timeoutMs plus a minute. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** How often to re-read the store, for jobs run by other processes, ms. Default 500. */
  pollMs?: number;
}

/** Resolves with the job once it is completed, failed or canceled. */
export function waitForJob(context: JobContext, id: string, options: WaitOptions = {}): Promise<Job> {
  const timeoutMs = options.timeoutMs ?? context.conversion.timeoutMs + 60_000;
  return new Promise<Job>((resolve, reject) => {
    let done = false;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(poll);
      unwatch();
      options.signal?.removeEventListener('abort', onAbort);
      settle();
    };
    const onJob = (job: Job) => {
      if (isTerminal(job.status)) finish(() => resolve(job));
    };
    const read = () =>
      getJob(context, id).then(onJob, (error: unknown) => {
        // The job store briefly out of reach: the job goes on (its worker waits it out), and
        // so does the wait; the timeout still bounds it.
        if (!isFileconvError(error, 'UNAVAILABLE')) finish(() => reject(error));
      });
    const onAbort = () => finish(() => reject(new FileconvError('CANCELED', 'Stopped waiting for the job.')));
    // Watching starts before the first read, so a job that settles in between is not missed.
    const unwatch = context.watch.watch(id, onJob);
    const timer = setTimeout(
      () => finish(() => reject(new FileconvError('CONVERSION_TIMEOUT', 'The job did not finish in time.'))),
      timeoutMs,
    );
    // For jobs that other processes run: their changes reach this process only through the store.
    const poll = setInterval(read, options.pollMs ?? 500);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    void read();
  });
}

export interface JobResult {
  stream: Readable;
  size: number;
  contentType: string;
  fileName: string;
}

/** The result of a completed job: RESULT_EXPIRED once deleted, INVALID_STATE before it exists. */
export async function openResult(context: JobContext, id: string, owner?: string): Promise<JobResult> {
  const job = await getJob(context, id, owner);
  if (job.status === 'expired')
    throw new FileconvError('RESULT_EXPIRED', 'The result has expired and was deleted.');
  if (job.status !== 'completed' || !job.outputKey) {
    throw new FileconvError('INVALID_STATE', `The job is ${job.status}: there is no result to download.`, {
      details: { status: job.status, error: job.error },
    });
  }
  const stream = await context.storage.get(job.outputKey);
  return {
    stream,
    size: job.outputSize ?? 0,
    contentType: resultMimeType(context.conversion.formats, job.targetFormat, job.packaging),
    fileName: job.outputName,
  };
}

/**
 * After a restart: jobs left processing by a dead worker go back to queued, and every queued
 * job is enqueued again (an in-process queue lost them; a durable one dedupes by job state).
 */
export async function recoverJobs(context: JobContext): Promise<number> {
  const { jobs, queue } = context;
  let recovered = 0;
  // A durable queue keeps its ids and hands a dead worker's job to another worker itself:
  // requeueing processing jobs here would run jobs that live workers on other nodes are running.
  const statuses = queue.durable ? (['queued'] as const) : (['processing', 'queued'] as const);
  for (const job of await jobs.listJobs({ status: statuses })) {
    if (context.running.has(job.id)) continue;
    const queued = job.status === 'processing' ? await applyJobEvent(context, job, { type: 'requeue' }) : job;
    await queue.enqueue(queued.id, { priority: queued.priority });
    recovered++;
  }
  return recovered;
}

/**
 * Deletes results and uploads whose retention has ended; returns how many were deleted.
 * An upload still used by a queued or running job is kept until that job is done.
 */
export async function sweepExpired(context: JobContext): Promise<number> {
  const { storage, jobs } = context;
  const now = context.nowMs();
  let expired = 0;
  const expiringFiles = await jobs.listFiles({ expiresBefore: new Date(now).toISOString() });
  if (expiringFiles.length > 0) {
    const active = await jobs.listJobs({ status: ['queued', 'processing'] });
    const inUse = new Set(
      active.flatMap((job) => [job.fileId, ...(job.inputs ?? []).map((input) => input.fileId)]),
    );
    for (const file of expiringFiles) {
      if (inUse.has(file.id)) continue;
      // An unfinished resumable upload's bytes live in the storage's own state, not at its key.
      if (file.resumable) await storage.resumable?.abort(file.key, file.resumable.state);
      await storage.delete(file.key);
      await jobs.deleteFile(file.id);
      expired++;
    }
  }
  for (const job of await jobs.listJobs({ status: ['completed'] })) {
    if (!job.expiresAt || Date.parse(job.expiresAt) > now) continue;
    if (job.outputKey) await storage.delete(job.outputKey);
    await applyJobEvent(context, job, { type: 'expire' }).catch((error: unknown) =>
      context.onError(error, 'expire'),
    );
    expired++;
  }
  return expired;
}
