/**
 * The IdempotencyStore conformance suite against the memory, SQLite and Redis stores, plus what
 * each adds: the memory store's clock and sweep, a SQLite answer surviving a reopen of the file,
 * and one claim among concurrent claims from two Redis clients (two API nodes).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryIdempotencyStore } from '../../src/adapters/idempotency/memory.js';
import { createRedisIdempotencyStore } from '../../src/adapters/idempotency/redis.js';
import { createSqliteIdempotencyStore } from '../../src/adapters/idempotency/sqlite.js';
import { testIdempotencyStore } from '../../src/testing/index.js';
import { describeWithRedis, freshPrefix } from '../helpers/redis-server.js';
import { makeTempDir } from './tmp-dirs.js';

testIdempotencyStore('memory', () => createMemoryIdempotencyStore());

testIdempotencyStore('sqlite', async () => {
  const { dir, remove } = await makeTempDir('idempotency');
  return { adapter: createSqliteIdempotencyStore({ path: path.join(dir, 'fileconv.db') }), cleanup: remove };
});

describeWithRedis('Redis idempotency store', (server) => {
  testIdempotencyStore('redis', () =>
    createRedisIdempotencyStore({ url: server.url, prefix: freshPrefix() }),
  );

  it('grants one claim among concurrent claims from two clients', async () => {
    const prefix = freshPrefix();
    const nodes = [
      createRedisIdempotencyStore({ url: server.url, prefix }),
      createRedisIdempotencyStore({ url: server.url, prefix }),
    ];
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 40 }, (_, n) =>
          nodes[n % 2]!.claim('shared', { token: `t${n}`, fingerprint: 'fp', leaseMs: 60_000 }),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.state === 'claimed')).toHaveLength(1);
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  });
});

describe('createMemoryIdempotencyStore', () => {
  it('validates options and arguments', async () => {
    expect(() => createMemoryIdempotencyStore({ sweepIntervalMs: 0 })).toThrow(/"sweepIntervalMs"/);
    const store = createMemoryIdempotencyStore();
    await expect(store.claim('', { token: 't', fingerprint: 'f', leaseMs: 1 })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(store.claim('k', { token: 't', fingerprint: 'f', leaseMs: 0 })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await store.close();
  });

  it('follows its clock and sweeps expired entries', async () => {
    let now = 1_000;
    const store = createMemoryIdempotencyStore({ now: () => now });
    await store.claim('a', { token: 't', fingerprint: 'f', leaseMs: 100 });
    await store.claim('b', { token: 't', fingerprint: 'f', leaseMs: 10_000 });
    now = 1_100;
    expect(store.sweep()).toBe(1);
    expect(store.size()).toBe(1);
    expect(await store.claim('a', { token: 'u', fingerprint: 'g', leaseMs: 100 })).toEqual({
      state: 'claimed',
    });
    await store.close();
  });
});

describe('createSqliteIdempotencyStore', () => {
  it('replays an answer stored before the database was reopened', async () => {
    const { dir, remove } = await makeTempDir('idempotency-reopen');
    const file = path.join(dir, 'fileconv.db');
    try {
      const first = createSqliteIdempotencyStore({ path: file });
      await first.claim('k', { token: 't', fingerprint: 'f', leaseMs: 60_000 });
      await first.complete('k', { token: 't', fingerprint: 'f2', answer: 'a', ttlMs: 60_000 });
      await first.close();
      const second = createSqliteIdempotencyStore({ path: file });
      expect(await second.claim('k', { token: 'u', fingerprint: 'x', leaseMs: 1 })).toEqual({
        state: 'done',
        fingerprint: 'f2',
        answer: 'a',
      });
      expect(await second.sweep()).toBe(0);
      await second.close();
    } finally {
      await remove();
    }
  });
});
