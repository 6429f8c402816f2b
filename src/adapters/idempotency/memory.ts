/**
 * In-memory IdempotencyStore for one process (the default of a service given none): each key's
 * pending claim or done answer in a Map with its expiry. Every method finishes synchronously, so
 * of concurrent claims exactly one wins. Expired entries are dropped when touched and by a
 * periodic sweep (unref'd), so a stream of one-off keys cannot grow the Map without bound.
 * Several API nodes must share a SQLite (one machine) or Redis store instead.
 */
import type { IdempotencyClaim, IdempotencyStore } from '../../core/ports/index.js';
import { checkFunction, checkOptionsObject, checkPositiveInteger } from '../validate-options.js';
import { checkDuration, checkIdempotencyKey, checkText } from './idempotency-rules.js';

const ADAPTER = 'createMemoryIdempotencyStore';

export interface MemoryIdempotencyStoreOptions {
  /** How often expired entries are swept out, ms. Default 60000. */
  sweepIntervalMs?: number;
  /** The clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

export interface MemoryIdempotencyStore extends IdempotencyStore {
  /** Entries held, expired ones not yet swept included (for tests). */
  size(): number;
  /** Drops expired entries now; returns how many. */
  sweep(): number;
  /** Stops the sweep and forgets every entry. */
  close(): Promise<void>;
}

interface Entry {
  token: string;
  fingerprint: string;
  /** Set once the request is done. */
  answer?: string;
  expiresAt: number;
}

export function createMemoryIdempotencyStore(
  options?: MemoryIdempotencyStoreOptions,
): MemoryIdempotencyStore {
  const given = checkOptionsObject(ADAPTER, options);
  const sweepIntervalMs = checkPositiveInteger(ADAPTER, 'sweepIntervalMs', given.sweepIntervalMs, 60_000);
  const now = checkFunction(ADAPTER, 'now', given.now, Date.now);
  const entries = new Map<string, Entry>();

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const ownPending = (key: string, token: string): Entry | undefined => {
    const entry = live(key);
    return entry && entry.answer === undefined && entry.token === token ? entry : undefined;
  };

  function sweep(): number {
    const at = now();
    let dropped = 0;
    for (const [key, entry] of entries) {
      if (entry.expiresAt <= at) {
        entries.delete(key);
        dropped++;
      }
    }
    return dropped;
  }
  let timer: NodeJS.Timeout | undefined = setInterval(sweep, sweepIntervalMs);
  timer.unref();

  return {
    async claim(key, { token, fingerprint, leaseMs }): Promise<IdempotencyClaim> {
      checkIdempotencyKey(key, token);
      checkText('fingerprint', fingerprint);
      const lease = checkDuration('lease', leaseMs);
      const entry = live(key);
      if (entry?.answer !== undefined)
        return { state: 'done', fingerprint: entry.fingerprint, answer: entry.answer };
      if (entry) return { state: 'pending', fingerprint: entry.fingerprint };
      entries.set(key, { token, fingerprint, expiresAt: now() + lease });
      return { state: 'claimed' };
    },
    async renew(key, token, leaseMs) {
      checkIdempotencyKey(key, token);
      const lease = checkDuration('lease', leaseMs);
      const entry = ownPending(key, token);
      if (!entry) return false;
      entry.expiresAt = now() + lease;
      return true;
    },
    async complete(key, { token, fingerprint, answer, ttlMs }) {
      checkIdempotencyKey(key, token);
      checkText('fingerprint', fingerprint);
      checkText('answer', answer);
      const ttl = checkDuration('lifetime', ttlMs);
      const entry = ownPending(key, token);
      if (!entry) return false;
      entries.set(key, { token, fingerprint, answer, expiresAt: now() + ttl });
      return true;
    },
    async release(key, token) {
      checkIdempotencyKey(key, token);
      if (ownPending(key, token)) entries.delete(key);
    },
    size: () => entries.size,
    sweep,
    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      entries.clear();
    },
  };
}
