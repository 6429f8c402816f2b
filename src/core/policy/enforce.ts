/**
 * Enforcement: the only policy code that touches a CounterStore (passed in, never imported).
 * Each check adds to its window's counter, decides from the new value, and hands back the
 * decision, the response headers and, when refused, the error to throw. The caller sets the
 * headers on every response, then throws `error` if there is one.
 *
 * Quotas give the unit back when they refuse, so a refused request never burns quota, and a
 * conversion that fails through the service's fault is given back with `refundQuota`. Rate
 * limits keep refused requests counted: a client hammering a limit gains nothing either way
 * within a fixed window, and not refunding spares the store a second write per refused request.
 * Under a burst at the edge of a quota, the add-then-give-back order can briefly refuse a
 * request that would fit once a concurrent refusal gives its unit back; it never lets one over.
 * Store failures (a Redis outage) propagate: failing open or closed is the host's decision.
 */
import { FileconvError, isFileconvError } from '../errors.js';
import type { JobCharge } from '../jobs/types.js';
import type { CounterStore } from '../ports/index.js';
import { backoffDelay } from '../retry.js';
import { type RateLimitHeaderEntry, rateLimitHeaders, windowSeconds } from './headers.js';
import {
  type Decision,
  decide,
  type QuotaKind,
  quotaExceededError,
  quotaLimit,
  quotaSlot,
  RATE_LIMITS,
  type RateLimitClass,
  type RateLimitRule,
  rateLimitedError,
  rateLimitSlot,
} from './limits.js';
import type { Plan } from './plans.js';

export interface LimitOutcome {
  allowed: boolean;
  decision: Decision;
  /** This policy's entry, to merge several policies into one set of headers. */
  entry: RateLimitHeaderEntry;
  /** RateLimit-Policy, RateLimit, X-RateLimit-* (and Retry-After when refused) for this policy alone. */
  headers: Record<string, string>;
  /** RATE_LIMITED or QUOTA_EXCEEDED when refused, else null. */
  error: FileconvError | null;
}

/**
 * Proof of consumed quota units: enough to give them back to the same window. JSON-safe; a job
 * keeps its share as its `charge` (JobCharge is this shape with an untyped kind).
 */
export interface QuotaTicket extends JobCharge {
  kind: QuotaKind;
}

export interface QuotaOutcome extends Omit<LimitOutcome, 'decision' | 'entry'> {
  /** Null when the plan has no limit for this quota (nothing was counted). */
  decision: Decision | null;
  entry: RateLimitHeaderEntry | null;
  /** What to pass to refundQuota; null when refused or unlimited. */
  ticket: QuotaTicket | null;
}

function checkAmount(amount: number): number {
  if (!Number.isSafeInteger(amount) || amount < 1) {
    throw new FileconvError('INVALID_REQUEST', `A quota amount must be a positive integer; got ${amount}.`);
  }
  return amount;
}

/**
 * Counts one request against the per-IP (or per-account) rate limit of its class. `rule` is a
 * class name ('upload', 'default') or a rule of the host's own.
 */
export async function enforceRateLimit(
  counters: CounterStore,
  input: { rule: RateLimitClass | RateLimitRule; clientKey: string; now: number },
): Promise<LimitOutcome> {
  const rule = typeof input.rule === 'string' ? RATE_LIMITS[input.rule] : input.rule;
  const slot = rateLimitSlot({ rule, clientKey: input.clientKey, now: input.now });
  const count = await counters.increment(slot.key, 1, slot.expiresAt);
  const decision = decide({ limit: rule.limit, count, windowEnd: slot.window.end, now: input.now });
  const entry = { policy: rule.name, decision, windowSeconds: windowSeconds(slot.window) };
  return {
    allowed: decision.allowed,
    decision,
    entry,
    headers: rateLimitHeaders(entry, input.now),
    error: decision.allowed ? null : rateLimitedError(rule, decision),
  };
}

/**
 * Whether `clientKey` has already used up `rule` in the window of `now`, counting nothing. For a
 * check that must not spend the budget it guards (a valid key must not spend the failed-sign-in
 * budget). Concurrent requests may all see room, so the budget can be passed by the requests in
 * flight when it runs out; the caller counts each failure with enforceRateLimit.
 */
export async function rateLimitSpent(
  counters: CounterStore,
  input: { rule: RateLimitRule; clientKey: string; now: number },
): Promise<boolean> {
  const slot = rateLimitSlot(input);
  return (await counters.get(slot.key)) >= input.rule.limit;
}

/**
 * Consumes `amount` units (default 1) of a plan quota: daily conversions, hourly files or
 * monthly API calls. Refused units are given back at once; an unlimited (null) quota always
 * passes without touching the store.
 */
export async function consumeQuota(
  counters: CounterStore,
  input: { plan: Readonly<Plan>; kind: QuotaKind; clientKey: string; now: number; amount?: number },
): Promise<QuotaOutcome> {
  const amount = checkAmount(input.amount ?? 1);
  const slot = quotaSlot({ kind: input.kind, clientKey: input.clientKey, now: input.now });
  const limit = quotaLimit(input.plan, input.kind);
  if (limit === null) {
    return { allowed: true, decision: null, entry: null, headers: {}, error: null, ticket: null };
  }
  const count = await counters.increment(slot.key, amount, slot.expiresAt);
  const decision = decide({ limit, count, windowEnd: slot.window.end, now: input.now });
  if (!decision.allowed) await counters.increment(slot.key, -amount, slot.expiresAt);
  const entry = { policy: input.kind, decision, windowSeconds: windowSeconds(slot.window) };
  return {
    allowed: decision.allowed,
    decision,
    entry,
    headers: rateLimitHeaders(entry, input.now),
    error: decision.allowed ? null : quotaExceededError(input.plan, input.kind, decision),
    ticket: decision.allowed ? { kind: input.kind, key: slot.key, expiresAt: slot.expiresAt, amount } : null,
  };
}

/**
 * Gives consumed units back (a conversion that failed through the service's fault). Returns
 * false, doing nothing, once the ticket's window has ended: the units belong to a quota that
 * has already reset; false too when a full disk refused it, and it goes on in the background.
 * A refund never leaves the counter below zero.
 */
export async function refundQuota(
  counters: CounterStore,
  ticket: QuotaTicket,
  now: number,
  retry: RefundRetryOptions = {},
): Promise<boolean> {
  const amount = checkAmount(ticket.amount);
  if (now >= ticket.expiresAt) return false;
  const apply = async () => {
    const value = await counters.increment(ticket.key, -amount, ticket.expiresAt);
    // Below zero means units were refunded twice or the store lost the counter: clamp back to 0.
    if (value < 0) await counters.increment(ticket.key, -value, ticket.expiresAt);
  };
  try {
    await apply();
    return true;
  } catch (error) {
    // A full disk (found by the soak: it failed a job, then refused the job's refund) wrote
    // nothing, so the refund is safe to repeat: again in the background, with the caller's own
    // error answered now. Anything else (a Redis timeout may have applied it) is not repeated.
    if (!isFileconvError(error, 'NO_SPACE')) throw error;
    void retryRefund(apply, retry);
    return false;
  }
}

export interface RefundRetryOptions {
  /** How long to keep trying a refund a full disk refused. Default 2 minutes. */
  patienceMs?: number;
  sleep?(ms: number): Promise<void>;
  /** Told when the refund finally lands (true) or is given up (false). */
  onSettled?(refunded: boolean): void;
}

/** Sleeps without keeping the process alive: a pending refund never holds up a shutdown. */
function unrefSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

async function retryRefund(apply: () => Promise<void>, options: RefundRetryOptions): Promise<void> {
  const sleep = options.sleep ?? unrefSleep;
  const deadline = Date.now() + (options.patienceMs ?? REFUND_PATIENCE_MS);
  for (let attempt = 1; Date.now() < deadline; attempt++) {
    await sleep(backoffDelay(attempt));
    try {
      await apply();
      options.onSettled?.(true);
      return;
    } catch (error) {
      if (!isFileconvError(error, 'NO_SPACE')) break;
    }
  }
  options.onSettled?.(false);
}

const REFUND_PATIENCE_MS = 120_000;

export interface QuotaStatus {
  kind: QuotaKind;
  limit: number;
  used: number;
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
}

/** Current use of a quota without consuming any; null when the plan has no limit for it. */
export async function quotaStatus(
  counters: CounterStore,
  input: { plan: Readonly<Plan>; kind: QuotaKind; clientKey: string; now: number },
): Promise<QuotaStatus | null> {
  const limit = quotaLimit(input.plan, input.kind);
  if (limit === null) return null;
  const slot = quotaSlot({ kind: input.kind, clientKey: input.clientKey, now: input.now });
  const used = Math.max(0, await counters.get(slot.key));
  return { kind: input.kind, limit, used, remaining: Math.max(0, limit - used), resetAt: slot.window.end };
}
