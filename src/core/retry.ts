/**
 * Waiting out a backing service that is briefly away. Adapters map their libraries' failures to
 * error codes (a refused connection, a timeout, an S3 503 or an unreachable Redis is UNAVAILABLE);
 * this module retries on that code alone, so the core knows nothing about any library.
 *
 * Attempts back off exponentially with jitter (see backoffDelay) and share one budget per job
 * (OutageBudget): the budget counts the time spent failing and waiting, across every call a job
 * makes, so however many services a job touches, an outage delays it by at most the budget.
 * Once the budget is spent the last error is thrown, still UNAVAILABLE, naming the attempts.
 * Any other error (NOT_FOUND included) is thrown at once: it will not get better by waiting.
 *
 * Pure timing logic: the clock, the sleep and the randomness are injectable for tests.
 */
import { type ErrorCode, FileconvError, isFileconvError } from './errors.js';

/** The time a job may spend waiting for backing services, shared by all its calls. */
export interface OutageBudget {
  /** The most it may spend, ms; 0 means fail at the first UNAVAILABLE. */
  readonly limitMs: number;
  /** Spent so far, ms: failed attempts plus the waits after them. */
  spentMs: number;
}

export function createOutageBudget(limitMs: number): OutageBudget {
  return { limitMs, spentMs: 0 };
}

/** First wait, ms; it doubles with every further failure up to MAX_DELAY_MS. */
export const INITIAL_DELAY_MS = 250;
/**
 * Longest wait, ms. Also how late a job may notice that the service is back: 5 s keeps that
 * short while a long outage costs each waiting job only one request every few seconds.
 */
export const MAX_DELAY_MS = 5_000;

/**
 * The wait after the `attempt`-th failure (1-based): "equal jitter", half of the exponential step
 * fixed, so a retry never comes at once, and half random, so the workers that all failed at the
 * same moment do not all come back at the same moment either.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const step = Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** Math.min(attempt - 1, 30));
  return Math.round(step / 2 + (random() * step) / 2);
}

export interface RetryOptions {
  budget: OutageBudget;
  /** Aborts the wait between attempts (a cancel, a shutdown); its reason is thrown. */
  signal?: AbortSignal;
  /** Called before each wait; must not throw. The worker uses it to notice a cancel made elsewhere. */
  onRetry?(error: FileconvError, attempt: number, delayMs: number): void | Promise<void>;
  sleep?(ms: number, signal: AbortSignal | undefined): Promise<void>;
  now?(): number;
  random?(): number;
  /**
   * Codes besides UNAVAILABLE that waiting may cure for this call: the worker's job-record writes
   * also wait out NO_SPACE (a full disk, which a few freed KB cure), rather than leave the job
   * neither failed nor done. Given up on, they keep their own code.
   */
  alsoRetry?: readonly ErrorCode[];
}

/** A timer that rejects with the signal's reason when it aborts. */
export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** True for failures that waiting may cure: a backing service out of reach. */
export function isTransient(error: unknown): error is FileconvError {
  return isFileconvError(error, 'UNAVAILABLE');
}

function isWaitable(error: unknown, alsoRetry: readonly ErrorCode[] | undefined): error is FileconvError {
  return isTransient(error) || (isFileconvError(error) && alsoRetry?.includes(error.code) === true);
}

/**
 * Runs `work` until it succeeds, fails with something other than UNAVAILABLE (or `alsoRetry`), or
 * the budget is spent. `work` is called afresh each time, so it must be safe to repeat (a put
 * re-opens its body).
 */
export async function retryWhileUnavailable<T>(work: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { budget, signal } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt++) {
    const started = now();
    try {
      return await work();
    } catch (error) {
      if (!isWaitable(error, options.alsoRetry)) throw error;
      budget.spentMs += Math.max(0, now() - started);
      const remaining = budget.limitMs - budget.spentMs;
      if (remaining <= 0) throw gaveUp(error, attempt, budget);
      // Never past the budget: the last attempt comes when it ends, not a backoff step later.
      const delayMs = Math.min(remaining, backoffDelay(attempt, options.random));
      await options.onRetry?.(error, attempt, delayMs);
      const waitStarted = now();
      await sleep(delayMs, signal);
      budget.spentMs += Math.max(0, now() - waitStarted);
    }
  }
}

function gaveUp(error: FileconvError, attempts: number, budget: OutageBudget): FileconvError {
  if (budget.limitMs === 0) return error;
  const seconds = Math.round(budget.spentMs / 100) / 10;
  return new FileconvError(
    error.code,
    `${error.message} (still failing after ${attempts} attempts; the job waited ${seconds} s in all)`,
    { cause: error, details: { ...error.details, attempts, waitedMs: budget.spentMs } },
  );
}
