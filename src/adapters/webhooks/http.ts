/**
 * Webhook delivery over HTTP: subscribes to an engine's completed, failed and canceled job
 * events and POSTs each one to the job's webhookUrl, signed as Standard Webhooks (webhook-id,
 * webhook-timestamp, webhook-signature) and, for one more release, with the deprecated
 * Fileconv-Signature. Retries network errors, timeouts, 5xx and 429 (honouring Retry-After)
 * with doubling, jittered backoff; never follows redirects; refuses private, loopback,
 * link-local and other non-public addresses (checked after DNS, and the connection pinned to the
 * checked address). The outcome is recorded on the job's `webhook` field, never on its status.
 * Every delivery is written to a WebhookOutbox before its first attempt and stays there until it
 * is settled, so retries survive a restart (and, on a shared outbox, the death of the process
 * that owed them): a poller claims due deliveries, each for a lease, and sends them. Receivers
 * may see a delivery twice after a crash; they dedupe by its id (webhook-id).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FileconvError } from '../../core/errors.js';
import type { Job } from '../../core/jobs/types.js';
import type { WebhookDelivery, WebhookEventType, WebhookOutbox } from '../../core/ports/index.js';
import { standardWebhookHeaders, webhookSigningKeys } from '../../core/standard-webhooks.js';
import { signWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../core/webhook-signature.js';
import type { JobEngine } from '../../engine/job-engine.js';
import type { JobLifecycleEvent } from '../../engine/job-events.js';
import { BlockedAddressError } from '../../kit/net/addresses.js';
import { jobView } from '../../service/views.js';
import { createMemoryOutbox } from '../outbox/memory.js';
import { type PostResult, postWebhook } from './transport.js';

export type { WebhookEventType } from '../../core/ports/index.js';

/** The JSON body of a delivery. */
export interface WebhookPayload {
  /** Delivery id, the same on every retry (also in webhook-id): receivers dedupe by it. */
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
  /**
   * Signs every delivery. Required: `whsec_` + base64 of 24+ random bytes (the Standard Webhooks
   * format), or at least 32 bytes of text or bytes, which are then the key itself.
   */
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
  /**
   * Where deliveries wait for their next attempt. Default: in memory (a restart drops pending
   * retries); `fileconv serve` passes its database's, a scaled-out deployment its Redis's.
   */
  outbox?: WebhookOutbox;
  /** How often the outbox is asked for due deliveries (other processes' and a restart's), ms. Default 1000. */
  pollIntervalMs?: number;
  /** How long a claimed delivery is this dispatcher's before another may take it, ms. Default 60000. */
  leaseMs?: number;
}

export interface WebhookDispatcher {
  /** Resolves once every delivery this dispatcher started or claimed is settled (tests). */
  idle(): Promise<void>;
  /**
   * Stops listening and polling and waits for attempts in progress; deliveries waiting for a
   * retry stay in the outbox (the job's webhook stays pending) for the next dispatcher.
   */
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
  engine: Pick<JobEngine, 'onJobEvent' | 'recordWebhookOutcome'>,
  options: WebhookDispatcherOptions,
): WebhookDispatcher {
  const keys = webhookSigningKeys(options?.secret);
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
          ...standardWebhookHeaders(keys.standard, { id: deliveryId, timestamp, body }),
          // Deprecated (the Standard Webhooks headers replace it); kept one release for existing receivers.
          [WEBHOOK_SIGNATURE_HEADER]: signWebhook(keys.legacy, body, timestamp),
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

  const ownOutbox = options.outbox ? undefined : createMemoryOutbox();
  const outbox = options.outbox ?? ownOutbox!;
  const pollIntervalMs = positiveInteger('pollIntervalMs', options.pollIntervalMs, 1000);
  const leaseMs = positiveInteger('leaseMs', options.leaseMs, 60_000);
  /** Deliveries this dispatcher made or claimed and has not settled: what idle() waits for. */
  const owed = new Set<string>();
  const wakeUps = new Set<NodeJS.Timeout>();
  const report = (error: unknown) => console.error('fileconv: webhook delivery:', error);

  /** Runs `work` tracked, so close() and idle() can wait for it; errors are reported, never thrown. */
  function track(work: Promise<void>): void {
    const running = work.catch(report).finally(() => inFlight.delete(running));
    inFlight.add(running);
  }

  function nextWait(attempts: number, result: AttemptResult): number {
    // Doubling backoff with +-25% jitter, so receivers recovering from an outage are not hit in lockstep.
    const backoff = backoffMs * 2 ** (attempts - 1) * (0.75 + Math.random() * 0.5);
    return Math.max(backoff, result.ok ? 0 : (result.waitMs ?? 0));
  }

  /** One attempt of a delivery this dispatcher holds, and what follows from it. */
  async function attemptDelivery(delivery: WebhookDelivery): Promise<void> {
    if (closing.signal.aborted) return;
    const attempts = delivery.attempts + 1;
    const result = await attempt(new URL(delivery.url), delivery.body, delivery.id);
    // Closed mid-attempt: the delivery stays in the outbox, due again once its lease ends.
    if (!result.ok && closing.signal.aborted) return;
    if (!result.ok && result.retry && attempts < maxAttempts) {
      const dueAt = Date.now() + Math.ceil(nextWait(attempts, result));
      await outbox.reschedule({ ...delivery, attempts, dueAt, lastError: result.error });
      scheduleWakeUp(dueAt);
      return;
    }
    await outbox.remove(delivery.id);
    owed.delete(delivery.id);
    await settle(delivery, attempts, result);
  }

  /** Records the outcome on the job and tells onDelivery. */
  async function settle(delivery: WebhookDelivery, attempts: number, result: AttemptResult): Promise<void> {
    await engine.recordWebhookOutcome(delivery.jobId, {
      status: result.ok ? 'delivered' : 'failed',
      attempts,
      lastError: result.ok ? null : result.error,
      deliveredAt: result.ok ? new Date().toISOString() : null,
    });
    try {
      options.onDelivery?.({
        deliveryId: delivery.id,
        jobId: delivery.jobId,
        type: delivery.type,
        url: delivery.url,
        ok: result.ok,
        attempts,
        status: result.status,
        error: result.ok ? null : result.error,
      });
    } catch {
      // A reporting hook must not turn a settled delivery into an unhandled rejection.
    }
  }

  /** A job's delivery: stored first, so a crash after this point cannot lose it, then attempted. */
  async function start(job: Job, type: WebhookEventType): Promise<void> {
    const id = randomUUID();
    const payload: WebhookPayload = {
      id,
      type,
      createdAt: new Date().toISOString(),
      job: jobView(job, null),
    };
    const delivery: WebhookDelivery = {
      id,
      jobId: job.id,
      type,
      url: job.webhook!.url,
      body: JSON.stringify(payload),
      attempts: 0,
      // Stored as claimed by this dispatcher: no poller elsewhere sends it while this one does.
      dueAt: Date.now() + leaseMs,
      lastError: null,
    };
    try {
      await outbox.add(delivery);
    } catch (error) {
      // The outbox is out of reach (Redis down): one attempt now beats none, but there is
      // nowhere to keep a retry, so its outcome is final.
      report(error);
      await settle(delivery, 1, await attempt(new URL(delivery.url), delivery.body, delivery.id));
      return;
    }
    owed.add(id);
    await attemptDelivery(delivery);
  }

  let polling = false;
  /** Claims due deliveries (retries, other processes' leftovers, those from before a restart) and sends them. */
  async function poll(): Promise<void> {
    if (polling || closing.signal.aborted) return;
    polling = true;
    try {
      for (;;) {
        const due = await outbox.claimDue(Date.now(), leaseMs, 20);
        for (const delivery of due) {
          owed.add(delivery.id);
          track(attemptDelivery(delivery));
        }
        if (due.length < 20 || closing.signal.aborted) return;
      }
    } finally {
      polling = false;
    }
  }

  /** A retry due sooner than the next poll is picked up at its time. */
  function scheduleWakeUp(dueAt: number): void {
    if (closing.signal.aborted) return;
    const timer = setTimeout(
      () => {
        wakeUps.delete(timer);
        track(poll());
      },
      Math.max(0, dueAt - Date.now()),
    );
    timer.unref();
    wakeUps.add(timer);
  }

  const poller = setInterval(() => track(poll()), pollIntervalMs);
  poller.unref();
  // Deliveries owed from before a restart go out now, not a poll interval later.
  track(poll());

  const unsubscribe = engine.onJobEvent((event) => {
    const type = EVENT_TYPES[event.type];
    if (!type || event.job.webhook?.status !== 'pending') return;
    track(start(event.job, type));
  });

  async function settled(): Promise<void> {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  }

  return {
    async idle() {
      for (;;) {
        await settled();
        if (owed.size === 0 || closing.signal.aborted) return;
        await sleep(5);
      }
    },
    async close() {
      unsubscribe();
      clearInterval(poller);
      for (const timer of wakeUps) clearTimeout(timer);
      closing.abort();
      await settled();
      await ownOutbox?.close?.();
    },
  };
}
