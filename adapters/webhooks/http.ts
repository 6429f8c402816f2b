/**
 * Webhook delivery over HTTP: subscribes to an engine's completed, failed and canceled job
 * events and POSTs each one, signed, to the job's webhookUrl. Retries network errors, timeouts,
 * 5xx and 429 (honouring Retry-After) with doubling, jittered backoff; never follows redirects;
 * refuses private, loopback, link-local and other non-public addresses (checked after DNS, and
 * the connection pinned to the checked address). The outcome is recorded on the job's `webhook`
 * field, never on its status. Deliveries live in memory: a process that stops drops its retries.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Engine } from '../../src/engine.js';
import { FileconvError } from '../../src/errors.js';
import type { JobLifecycleEvent } from '../../src/job-events.js';
import type { Job } from '../../src/jobs/types.js';
import { MIN_SECRET_BYTES } from '../../src/signing.js';
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../src/webhook-signature.js';
import { jobView } from '../http/views.js';
import { BlockedAddressError } from './addresses.js';
import { type PostResult, postWebhook } from './transport.js';

export type WebhookEventType = 'job.completed' | 'job.failed' | 'job.canceled';

/** The JSON body of a delivery. */
export interface WebhookPayload {
  /** Delivery id, the same on every retry (also in Fileconv-Delivery): receivers dedupe by it. */
  id: string;
  type: WebhookEventType;
  createdAt: string;
  /** The job as GET /api/jobs/{jobId} shows it, with downloadUrl null: fetch the job for a fresh URL. */
  job: ReturnType<typeof jobView>;
}

/** What onDelivery is told once a delivery is settled. */
export interface WebhookDeliveryReport {
  deliveryId: string;
  jobId: string;
  type: WebhookEventType;
  url: string;
  ok: boolean;
  attempts: number;
  /** The last HTTP status received, when there was one. */
  status: number | null;
  error: string | null;
}

export interface WebhookDispatcherOptions {
  /** Signs every delivery (Fileconv-Signature); at least 32 bytes. Required. */
  secret: string | Uint8Array;
  /** Allows loopback, private and other non-public targets (tests, trusted networks). Default false. */
  allowPrivateAddresses?: boolean;
  /** Attempts per delivery, the first included. Default 5. */
  maxAttempts?: number;
  /** Wait before the second attempt, ms; doubled after each further one, with jitter. Default 1000. */
  backoffMs?: number;
  /** Longest wait for one attempt's response headers, ms. Default 10000. */
  timeoutMs?: number;
  /** Called once per settled delivery (delivered or given up); errors are ignored. */
  onDelivery?: (report: WebhookDeliveryReport) => void;
  /**
   * Sends with this fetch instead of node:http. The host is then checked before each attempt but
   * the connection is not pinned to the checked address (the fetch resolves again). Default: none.
   */
  fetchImpl?: typeof fetch;
}

export interface WebhookDispatcher {
  /** Resolves when no delivery is in progress (tests, graceful shutdown). */
  idle(): Promise<void>;
  /** Stops listening, abandons waiting retries (the job's webhook stays pending) and waits for the rest. */
  close(): Promise<void>;
}

/** Longest Retry-After honoured, ms: a receiver must not park a delivery for hours. */
const MAX_RETRY_AFTER_MS = 300_000;

const EVENT_TYPES: Partial<Record<JobLifecycleEvent['type'], WebhookEventType>> = {
  completed: 'job.completed',
  failed: 'job.failed',
  canceled: 'job.canceled',
};

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `createWebhookDispatcher: ${name} must be a positive integer, got ${String(value)}.`,
    );
  }
  return value;
}

type AttemptResult =
  | { ok: true; status: number }
  | { ok: false; retry: boolean; status: number | null; error: string; waitMs?: number };

export function createWebhookDispatcher(
  engine: Engine,
  options: WebhookDispatcherOptions,
): WebhookDispatcher {
  const given = options?.secret;
  const secret = given === undefined || given === '' ? Buffer.alloc(0) : Buffer.from(given);
  // The same floor as the URL-signing secret: shorter secrets make signatures guessable.
  if (secret.length < MIN_SECRET_BYTES) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `createWebhookDispatcher: secret is required, at least ${MIN_SECRET_BYTES} bytes (got ${secret.length}).`,
    );
  }
  const maxAttempts = positiveInteger('maxAttempts', options.maxAttempts, 5);
  const backoffMs = positiveInteger('backoffMs', options.backoffMs, 1000);
  const timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, 10_000);
  const allowPrivateAddresses = options.allowPrivateAddresses ?? false;
  const closing = new AbortController();
  const inFlight = new Set<Promise<void>>();

  async function attempt(url: URL, body: string, deliveryId: string): Promise<AttemptResult> {
    const timestamp = Math.floor(Date.now() / 1000);
    let result: PostResult;
    try {
      result = await postWebhook({
        url,
        body,
        allowPrivateAddresses,
        fetchImpl: options.fetchImpl,
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), closing.signal]),
        headers: {
          'Content-Type': 'application/json',
          // Signed per attempt, so a retry after a long backoff is not refused as a replay.
          [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, body, timestamp),
          'Fileconv-Delivery': deliveryId,
          'User-Agent': 'fileconv-webhooks',
        },
      });
    } catch (error) {
      const blocked = error instanceof BlockedAddressError;
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, retry: !blocked, status: null, error: message };
    }
    const { status } = result;
    if (status >= 200 && status < 300) return { ok: true, status };
    const retry = status >= 500 || status === 429;
    const error =
      status >= 300 && status < 400 ? `redirect ${status} not followed` : `receiver answered ${status}`;
    return {
      ok: false,
      retry,
      status,
      error,
      ...(result.retryAfterMs === null ? {} : { waitMs: Math.min(result.retryAfterMs, MAX_RETRY_AFTER_MS) }),
    };
  }

  async function deliver(job: Job, type: WebhookEventType): Promise<void> {
    const webhook = job.webhook!;
    const deliveryId = randomUUID();
    const payload: WebhookPayload = {
      id: deliveryId,
      type,
      createdAt: new Date().toISOString(),
      job: jobView(job, null),
    };
    const body = JSON.stringify(payload);
    const url = new URL(webhook.url);
    let attempts = 0;
    let last: AttemptResult = { ok: false, retry: false, status: null, error: 'not attempted' };
    while (attempts < maxAttempts && !closing.signal.aborted) {
      attempts++;
      last = await attempt(url, body, deliveryId);
      if (last.ok || !last.retry || attempts >= maxAttempts) break;
      // Doubling backoff with +-25% jitter, so receivers recovering from an outage are not hit in lockstep.
      const backoff = backoffMs * 2 ** (attempts - 1) * (0.75 + Math.random() * 0.5);
      const wait = Math.max(backoff, last.waitMs ?? 0);
      await sleep(wait, undefined, { signal: closing.signal }).catch(() => {});
    }
    // Closed during a backoff: leave the webhook pending rather than record a failure that was ours.
    if (!last.ok && closing.signal.aborted) return;
    await engine.recordWebhookOutcome(job.id, {
      status: last.ok ? 'delivered' : 'failed',
      attempts,
      lastError: last.ok ? null : last.error,
      deliveredAt: last.ok ? new Date().toISOString() : null,
    });
    try {
      options.onDelivery?.({
        deliveryId,
        jobId: job.id,
        type,
        url: webhook.url,
        ok: last.ok,
        attempts,
        status: last.status,
        error: last.ok ? null : last.error,
      });
    } catch {
      // A reporting hook must not turn a settled delivery into an unhandled rejection.
    }
  }

  const unsubscribe = engine.onJobEvent((event) => {
    const type = EVENT_TYPES[event.type];
    if (!type || event.job.webhook?.status !== 'pending') return;
    const delivery = deliver(event.job, type)
      .catch((error: unknown) => console.error('fileconv: webhook delivery failed to record:', error))
      .finally(() => inFlight.delete(delivery));
    inFlight.add(delivery);
  });

  async function idle(): Promise<void> {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  }

  return {
    idle,
    async close() {
      unsubscribe();
      closing.abort();
      await idle();
    },
  };
}
