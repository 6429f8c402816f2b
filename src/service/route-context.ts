/**
 * What every route of the HTTP service shares: the engine, the access settings (plans, keys,
 * counters), the link settings (signing), and small helpers used by both flows (request
 * parsing, streaming a result). What a route charges goes through its call's meter (metering.ts).
 */

import { create as contentDisposition } from 'content-disposition';
import { z } from 'zod';
import { FileconvError } from '../core/errors.js';
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
