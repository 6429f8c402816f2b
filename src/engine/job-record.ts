/**
 * A new job record: what the caller decided (input, target, options, path...) plus the fields
 * every queued job starts with. Shared by conversion jobs and document operation jobs.
 */
import { randomUUID } from 'node:crypto';
import type { Job, JobCharge, JobWebhook } from '../core/jobs/types.js';
import type { WorkLimits } from '../core/ports/index.js';
import { checkWorkLimits } from '../core/work-limits.js';
import type { JobContext } from './engine-context.js';

/** What a job's creator decides; the rest of a queued record is the same for every job. */
export type JobDecisions = Pick<
  Job,
  | 'owner'
  | 'fileId'
  | 'inputKey'
  | 'sourceFormat'
  | 'targetFormat'
  | 'fileName'
  | 'outputName'
  | 'packaging'
  | 'options'
  | 'path'
  | 'operation'
  | 'inputs'
>;

export interface JobExtras {
  priority?: number | undefined;
  charge?: JobCharge | null | undefined;
  webhook?: JobWebhook | undefined;
  limits?: WorkLimits | undefined;
}

export function queuedJob(context: JobContext, decided: JobDecisions, extras: JobExtras): Job {
  const defined = Object.fromEntries(
    Object.entries(decided).filter(([, value]) => value !== undefined),
  ) as JobDecisions;
  return {
    id: randomUUID(),
    version: 1,
    status: 'queued',
    outputKey: null,
    ...defined,
    priority: extras.priority ?? 0,
    attempts: 0,
    progress: 0,
    error: null,
    cpuMs: null,
    outputSize: null,
    createdAt: context.now(),
    startedAt: null,
    completedAt: null,
    expiresAt: null,
    charge: extras.charge ?? null,
    ...(extras.webhook ? { webhook: extras.webhook } : {}),
    ...(extras.limits ? { limits: checkWorkLimits(extras.limits) } : {}),
  };
}
