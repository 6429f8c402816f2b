/**
 * Redis CounterStore: rate-limit and quota counters shared by every API process of a deployment.
 * A counter is one integer key, `<prefix>:counter:<key>`; an increment is INCRBY and PEXPIREAT in
 * one MULTI, so concurrent increments from any number of processes never lose an update and a
 * counter can never be left without its expiry. Redis drops expired counters by itself.
 */
import { FileconvError } from '../../core/errors.js';
import type { CounterStore } from '../../core/ports/index.js';
import {
  checkErrorReporter,
  openRedis,
  type RedisConnectionOptions,
  resolveRedisSettings,
} from '../redis/connection.js';
import { checkOptionsObject } from '../validate-options.js';

const ADAPTER = 'createRedisCounterStore';

export interface RedisCounterStoreOptions extends RedisConnectionOptions {
  /** Called with connection errors while the client reconnects. Default: a process warning, at most one a minute. */
  onError?: (error: unknown) => void;
}

export interface RedisCounterStore extends CounterStore {
  /** Closes the store's own Redis client (a given `connection` stays open). */
  close(): Promise<void>;
}

function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key === '') {
    throw new FileconvError('INVALID_REQUEST', 'A counter key must be a non-empty string.');
  }
}

function checkIncrement(amount: unknown, expiresAt: unknown): void {
  if (!Number.isSafeInteger(amount)) {
    throw new FileconvError('INVALID_REQUEST', `A counter amount must be an integer; got ${String(amount)}.`);
  }
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `A counter expiry must be epoch ms; got ${String(expiresAt)}.`,
    );
  }
}

/** A CounterStore on Redis, shared by every process of a deployment. */
export function createRedisCounterStore(options?: RedisCounterStoreOptions): RedisCounterStore {
  const given = checkOptionsObject(ADAPTER, options);
  const settings = resolveRedisSettings(ADAPTER, given);
  const redis = openRedis(settings, 'counters', checkErrorReporter(ADAPTER, given.onError));
  const counterKey = (key: string) => redis.key(`counter:${key}`);

  return {
    async increment(key, amount, expiresAt) {
      checkKey(key);
      checkIncrement(amount, expiresAt);
      const replies = await redis.run('increment a counter', (client) =>
        client
          .multi()
          .incrby(counterKey(key), amount)
          // An instant already past deletes the key: the caller gets the new value, then it is gone.
          .pexpireat(counterKey(key), Math.ceil(expiresAt))
          .exec(),
      );
      const [incremented] = replies ?? [];
      if (!incremented || incremented[0]) {
        throw new FileconvError('INTERNAL', `${ADAPTER}: Redis did not increment the counter.`, {
          cause: incremented?.[0],
        });
      }
      return Number(incremented[1]);
    },

    async get(key) {
      checkKey(key);
      const value = await redis.run('read a counter', (client) => client.get(counterKey(key)));
      return value === null ? 0 : Number(value);
    },

    close: () => redis.close(),
  };
}
