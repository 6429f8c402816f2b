import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisCounterStore, type RedisCounterStore } from '../../src/adapters/counters/redis.js';
import { testCounterStore } from '../../src/testing/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  describeWithRedis,
  freshPrefix,
  REDIS_INSTALL_HINT,
  type RedisServer,
  redisServerAvailable,
  startRedisServer,
} from '../helpers/redis-server.js';

describe('createRedisCounterStore options', () => {
  it('validates options naming the option, expected and given', () => {
    expect(() => createRedisCounterStore({ url: 5 as never })).toThrow(
      /option "url" must be a non-empty string, got 5/,
    );
    expect(() => createRedisCounterStore({ prefix: '' })).toThrow(
      /option "prefix" must be a non-empty string/,
    );
    expect(() =>
      createRedisCounterStore({ url: 'redis://127.0.0.1:1', connection: new Redis({ lazyConnect: true }) }),
    ).toThrow(/option "url" must be left out when "connection" is given/);
  });
});

describeWithRedis('Redis counter store', (server) => {
  testCounterStore('redis', () => createRedisCounterStore({ url: server.url, prefix: freshPrefix() }));

  describe('createRedisCounterStore', () => {
    it('sums 500 concurrent increments from each of two processes exactly', async () => {
      const prefix = freshPrefix();
      const nodes = [
        createRedisCounterStore({ url: server.url, prefix }),
        createRedisCounterStore({ url: server.url, prefix }),
      ];
      try {
        const key = `rate:upload:ip:203.0.113.7:${randomUUID()}`;
        const expiresAt = Date.now() + 60_000;
        const values = await Promise.all(
          Array.from({ length: 1000 }, (_, index) => nodes[index % 2]!.increment(key, 1, expiresAt)),
        );
        expect(await nodes[0]!.get(key)).toBe(1000);
        expect(await nodes[1]!.get(key)).toBe(1000);
        // Every caller got its own value: no two requests were both let through as "the 7th".
        expect(new Set(values).size).toBe(1000);
      } finally {
        await Promise.all(nodes.map((node) => node.close()));
      }
    });

    it('keeps each counter as one key with its absolute expiry', async () => {
      const prefix = freshPrefix();
      const store = createRedisCounterStore({ url: server.url, prefix });
      const inspect = new Redis(server.url);
      try {
        const expiresAt = Date.now() + 30_000;
        await store.increment('quota:day:acc_1:20260101', 3, expiresAt);
        expect(await inspect.get(`${prefix}:counter:quota:day:acc_1:20260101`)).toBe('3');
        const expiry = await inspect.pexpiretime(`${prefix}:counter:quota:day:acc_1:20260101`);
        expect(expiry).toBe(expiresAt);
      } finally {
        await store.close();
        inspect.disconnect();
      }
    });

    it('refuses a bad key, amount or expiry with INVALID_REQUEST before asking Redis', async () => {
      const store = createRedisCounterStore({ url: server.url, prefix: freshPrefix() });
      try {
        await expect(store.increment('', 1, Date.now() + 1000)).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
        });
        await expect(store.increment('k', 1.5, Date.now() + 1000)).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
        });
        await expect(store.increment('k', 1, Number.NaN)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
        await expect(store.get(42 as never)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      } finally {
        await store.close();
      }
    });
  });
});

describeWithEngine(
  'redis-server',
  redisServerAvailable,
  REDIS_INSTALL_HINT,
  'Redis counter store outages',
  () => {
    let server: RedisServer;
    let store: RedisCounterStore;
    beforeAll(async () => {
      server = await startRedisServer({ persistent: true });
      store = createRedisCounterStore({
        url: server.url,
        prefix: freshPrefix(),
        commandTimeoutMs: 1500,
        onError: () => {},
      });
    });
    afterAll(async () => {
      await store?.close();
      await server?.close();
    });

    it('fails fast while Redis is down and counts on after a restart', async () => {
      const key = `rate:${randomUUID()}`;
      const expiresAt = Date.now() + 60_000;
      expect(await store.increment(key, 2, expiresAt)).toBe(2);
      await server.stop();
      const started = Date.now();
      await expect(store.increment(key, 1, expiresAt)).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        status: 503,
        message: expect.stringContaining('could not increment a counter'),
      });
      expect(Date.now() - started).toBeLessThan(5000);
      await server.start();
      expect(await store.increment(key, 1, expiresAt)).toBe(3);
      await server.restart();
      expect(await store.get(key)).toBe(3);
    });
  },
);
