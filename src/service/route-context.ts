/**
 * What every route of the HTTP service shares: the engine, the access settings (plans, keys,
 * counters), the link settings (signing), and small helpers used by both flows (request
 * parsing, streaming a result). What a route charges goes through its call's meter (metering.ts).
 */

import { create as contentDisposition } from 'content-disposition';
import { z } from 'zod';
import { FileconvError } from '../core/errors.js';
import { assertQueueRoom } from '../core/policy/overload.js';
import { NO_WORKER_MESSAGE } from '../engine/engine-context.js';
import type { ReadinessOptions } from '../engine/readiness.js';
import type { AccessSettings } from './access.js';
import type { HttpAnswer } from './exchange.js';
import { invalidRequest } from './http-errors.js';
import type { LinkSettings } from './links.js';
import type { ServiceEngine } from './service-engine.js';

export interface RouteContext {
  engine: ServiceEngine;
  access: AccessSettings;
  links: LinkSettings;
  convertTimeoutMs: number;
  /** The bound on waiting jobs (HttpServiceOptions.maxQueuedJobs); undefined: none. */
  maxQueuedJobs: number | undefined;
  readiness: ReadinessOptions;
  now(): number;
}

/** Upload URLs live exactly as long as the specification says: `expiresIn` is the constant 600. */
export const UPLOAD_URL_EXPIRES_IN = 600;

export const jobIdParam = z.string().min(1).max(100);

/**
 * Refuses a new job nobody would ever run (an in-process queue and engine.start() not called)
 * at once, before anything is read, stored or charged: waiting for it would hang the request.
 */
export function assertWorkerRunning(engine: ServiceEngine): void {
  if (engine.workerStatus() === 'none') {
    throw new FileconvError('UNAVAILABLE', NO_WORKER_MESSAGE, { details: { check: 'worker' } });
  }
}

/**
 * Refuses `adding` new jobs with OVERLOADED when the queue already holds the most waiting jobs the
 * service takes (core/policy/overload.ts), before anything is stored or charged (and, but for a
 * batch, whose length is what it adds, before the body is read): a refused create spends only the
 * rate every request spends. The count is the queue's own (Queue.size, via
 * engine.stats(), the number /metrics reports as fileconv_queue_depth), so on Redis (BullMQ)
 * every API node sees the same backlog. The check and the enqueue that follows are not atomic: a
 * burst of creates on several nodes (or concurrent ones on this node) may each see room and
 * overshoot the bound by at most their number. Taking a slot atomically would cost a counter kept
 * beside the queue in step with every worker's take; a bound that bends by a burst is enough to
 * shed load.
 */
export async function assertQueueHasRoom(ctx: RouteContext, adding: number): Promise<void> {
  const { maxQueuedJobs } = ctx;
  // No bound (the default): no queue read on the way to every job.
  if (maxQueuedJobs === undefined) return;
  const { queued } = await ctx.engine.stats();
  assertQueueRoom({ waiting: queued, adding, maxQueuedJobs });
}

/** A completed job's result as a download: its type, length and a name safe for any characters. */
export async function resultAnswer(engine: ServiceEngine, jobId: string): Promise<HttpAnswer> {
  const result = await engine.openResult(jobId);
  return {
    status: 200,
    headers: {
      'content-type': result.contentType,
      'content-length': String(result.size),
      'content-disposition': contentDisposition(result.fileName),
      'cache-control': 'private, no-store',
    },
    body: result.stream,
  };
}

export function parse<T>(schema: z.ZodType<T>, value: unknown, what?: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw invalidRequest(parsed.error, what);
  return parsed.data;
}

export { mediaType } from './json-body.js';
