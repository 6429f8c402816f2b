/**
 * What every route of the HTTP adapter shares: the engine, the access settings (plans, keys,
 * counters), the link settings (signing), the JSON body parser, and small helpers used by
 * both flows (request parsing, charging conversions, streaming a result).
 */
import { pipeline } from 'node:stream/promises';
import type { RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { Engine } from '../../src/engine.js';
import { type QuotaTicket, refundQuota } from '../../src/policy/enforce.js';
import { type AccessSettings, chargeQuota } from './access.js';
import { invalidRequest } from './http-errors.js';
import type { LinkSettings } from './links.js';

export interface RouteContext {
  engine: Engine;
  access: AccessSettings;
  links: LinkSettings;
  json: RequestHandler;
  convertTimeoutMs: number;
  now(): number;
}

/** Upload URLs live exactly as long as the specification says: `expiresIn` is the constant 600. */
export const UPLOAD_URL_EXPIRES_IN = 600;

export const jobIdParam = z.string().min(1).max(100);

/** Charges `amount` conversions, runs `create`, and gives the charge back if `create` fails. */
export async function withCharge<T>(
  ctx: RouteContext,
  res: Response,
  amount: number,
  create: (charge: QuotaTicket | null) => Promise<T>,
): Promise<T> {
  const ticket = await chargeQuota(ctx.access, res, 'conversions', amount);
  try {
    // One ticket covers the batch; each job carries a one-unit share, so a failed job refunds one.
    return await create(ticket && { ...ticket, amount: 1 });
  } catch (error) {
    if (ctx.access.counters && ticket) await refundQuota(ctx.access.counters, ticket, ctx.now());
    throw error;
  }
}

/** Streams a completed job's result with its type, length and a download name safe for any characters. */
export async function sendResult(res: Response, engine: Engine, jobId: string): Promise<void> {
  const result = await engine.openResult(jobId);
  res.status(200);
  res.set('Content-Type', result.contentType);
  res.set('Content-Length', String(result.size));
  res.attachment(result.fileName);
  res.set('Cache-Control', 'private, no-store');
  try {
    await pipeline(result.stream, res);
  } catch (error) {
    // The client went away mid-download: nothing failed on our side, and nobody is left to answer.
    if (
      res.destroyed &&
      !res.writableFinished &&
      (error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE'
    )
      return;
    throw error;
  }
}

export function parse<T>(schema: z.ZodType<T>, value: unknown, what?: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw invalidRequest(parsed.error, what);
  return parsed.data;
}

/** `image/png; charset=x` -> `image/png`, lowercase; '' when absent. */
export function mediaType(value: string | undefined): string {
  return (value ?? '').split(';')[0]!.trim().toLowerCase();
}
