/**
 * The webhook data a job carries: the URL check at job creation (syntax and scheme only; the
 * address rules need DNS and live in the dispatcher adapter) and the recording of a delivery's
 * outcome on the job record, through the job store's optimistic versioning.
 */

import { FileconvError, isFileconvError } from '../core/errors.js';
import type { Job, JobWebhook } from '../core/jobs/types.js';
import type { JobContext } from './engine-context.js';

/** Longest webhook URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Checks a webhook URL (http or https, no credentials, at most 2048 chars); INVALID_REQUEST otherwise. */
export function checkWebhookUrl(url: unknown): URL {
  const refuse = (why: string) =>
    new FileconvError('INVALID_REQUEST', `webhookUrl ${why}.`, { details: { field: 'webhookUrl' } });
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_WEBHOOK_URL_LENGTH) {
    throw refuse(`must be a URL of 1-${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('is not a valid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw refuse('must use http or https');
  // Credentials in a URL end up in logs and job views; receivers authenticate by the signature.
  if (parsed.username || parsed.password) throw refuse('must not contain credentials');
  if (!parsed.hostname) throw refuse('must name a host');
  return parsed;
}

/** The webhook a new job starts with. */
export function pendingWebhook(url: string): JobWebhook {
  return {
    url: checkWebhookUrl(url).href,
    status: 'pending',
    attempts: 0,
    lastError: null,
    deliveredAt: null,
  };
}

export type WebhookOutcome = Pick<JobWebhook, 'status' | 'attempts' | 'lastError' | 'deliveredAt'>;

/**
 * Records a delivery outcome on the job's webhook (never touching its status), re-reading and
 * retrying when another writer (an expiry sweep) changed the job first. Returns the saved job,
 * or null when the job is gone or has no webhook.
 */
export async function recordWebhookOutcome(
  context: JobContext,
  jobId: string,
  outcome: WebhookOutcome,
): Promise<Job | null> {
  const { jobs } = context;
  for (let attempt = 0; ; attempt++) {
    const current = await jobs.getJob(jobId);
    if (!current?.webhook) return null;
    const next: Job = {
      ...current,
      version: current.version + 1,
      webhook: { ...current.webhook, ...outcome },
    };
    try {
      await jobs.updateJob(next);
      context.watch.notify(next);
      return next;
    } catch (error) {
      if (!isFileconvError(error, 'VERSION_CONFLICT') || attempt >= 5) throw error;
    }
  }
}
