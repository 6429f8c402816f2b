/**
 * In-memory CounterStore for one process (the embedded and one-machine setups): counters in a
 * Map with their expiry. An expired counter is treated as absent the moment its time passes and
 * is dropped when next touched; a periodic sweep (unref'd, so it never keeps the process alive)
 * drops the ones nobody touches again, so a stream of one-off client IPs cannot grow the Map
 * without bound. Every method finishes synchronously, so increments are atomic.
 */
import type { CounterStore } from '../../core/ports/index.js';
import { checkFunction, checkOptionsObject, checkPositiveInteger } from '../validate-options.js';
import { checkCounterArguments } from './counter-rules.js';

const ADAPTER = 'createMemoryCounterStore';

export interface MemoryCounterStoreOptions {
  /** How often expired counters are swept out, ms. Default 60000. */
  sweepIntervalMs?: number;
  /** The clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

export interface MemoryCounterStore extends CounterStore {
  /** Counters held, expired ones not yet swept included (for tests and health). */
  size(): number;
  /** Drops expired counters now; returns how many. */
  sweep(): number;
  /** Stops the sweep and forgets every counter. */
  close(): Promise<void>;
}

interface Counter {
  value: number;
  expiresAt: number;
}

export function createMemoryCounterStore(options?: MemoryCounterStoreOptions): MemoryCounterStore {
  const given = checkOptionsObject(ADAPTER, options);
  const sweepIntervalMs = checkPositiveInteger(ADAPTER, 'sweepIntervalMs', given.sweepIntervalMs, 60_000);
  const now = checkFunction(ADAPTER, 'now', given.now, Date.now);
  const counters = new Map<string, Counter>();

  const live = (key: string, at: number): Counter | undefined => {
    const counter = counters.get(key);
    if (counter && counter.expiresAt <= at) {
      counters.delete(key);
      return undefined;
    }
    return counter;
  };

  function sweep(): number {
    const at = now();
    let dropped = 0;
    for (const [key, counter] of counters) {
      if (counter.expiresAt <= at) {
        counters.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  let timer: NodeJS.Timeout | undefined = setInterval(sweep, sweepIntervalMs);
  timer.unref();

  return {
    async increment(key, amount, expiresAt) {
      checkCounterArguments(key, amount, expiresAt);
      const at = now();
      const value = (live(key, at)?.value ?? 0) + amount;
      // Like Redis PEXPIREAT with a past instant: the new value is returned, then it is gone.
      if (expiresAt <= at) counters.delete(key);
      else counters.set(key, { value, expiresAt });
      return value;
    },
    async get(key) {
      checkCounterArguments(key);
      return live(key, now())?.value ?? 0;
    },
    size: () => counters.size,
    sweep,
    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      counters.clear();
    },
  };
}
