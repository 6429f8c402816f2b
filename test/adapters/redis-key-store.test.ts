import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createRedisKeyStore } from '../../src/adapters/keys/redis.js';
import { authenticate, createApiKey, revokeApiKey } from '../../src/core/policy/api-keys.js';
import { sampleApiKeyRecord, testKeyStore } from '../../src/testing/index.js';
import { describeWithRedis, freshPrefix } from '../helpers/redis-server.js';

describe('createRedisKeyStore options', () => {
  it('validates options naming the option, expected and given', () => {
    expect(() => createRedisKeyStore({ prefix: 7 as never })).toThrow(
      /option "prefix" must be a non-empty string, got 7/,
    );
    expect(() => createRedisKeyStore({ url: 'mysql://x' })).toThrow(
      /option "url" must be a redis:\/\/ or rediss:\/\//,
    );
  });
});

describeWithRedis('Redis key store', { persistent: true }, (server) => {
  testKeyStore('redis', () => createRedisKeyStore({ url: server.url, prefix: freshPrefix() }));

  describe('createRedisKeyStore', () => {
    it('sees keys made and revoked by another process at once', async () => {
      const prefix = freshPrefix();
      const server1 = createRedisKeyStore({ url: server.url, prefix });
      const cli = createRedisKeyStore({ url: server.url, prefix });
      try {
        const { key, record } = await createApiKey(cli, { accountId: 'acc_1', plan: 'pro' });
        expect(await authenticate(server1, `Bearer ${key}`)).toMatchObject({
          accountId: 'acc_1',
          plan: 'pro',
        });
        await revokeApiKey(cli, record.id);
        await expect(authenticate(server1, `Bearer ${key}`)).rejects.toMatchObject({
          code: 'UNAUTHORIZED',
          message: expect.stringContaining('revoked'),
        });
      } finally {
        await server1.close();
        await cli.close();
      }
    });

    it('lets one of two concurrent creates with the same hash win, from two processes', async () => {
      const prefix = freshPrefix();
      const nodes = [
        createRedisKeyStore({ url: server.url, prefix }),
        createRedisKeyStore({ url: server.url, prefix }),
      ];
      try {
        for (let round = 0; round < 10; round++) {
          const first = sampleApiKeyRecord();
          const second = { ...sampleApiKeyRecord(), hash: first.hash };
          const results = await Promise.allSettled([nodes[0]!.create(first), nodes[1]!.create(second)]);
          expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
          const found = await nodes[0]!.findByHash(first.hash);
          expect([first.id, second.id]).toContain(found?.id);
        }
        expect(await nodes[1]!.list()).toHaveLength(10);
      } finally {
        await Promise.all(nodes.map((node) => node.close()));
      }
    });

    it('keeps the first revocation instant when two processes revoke at once', async () => {
      const prefix = freshPrefix();
      const nodes = [
        createRedisKeyStore({ url: server.url, prefix }),
        createRedisKeyStore({ url: server.url, prefix }),
      ];
      try {
        const record = sampleApiKeyRecord();
        await nodes[0]!.create(record);
        const results = await Promise.all([
          nodes[0]!.revoke(record.id, '2026-02-01T00:00:00.000Z'),
          nodes[1]!.revoke(record.id, '2026-03-01T00:00:00.000Z'),
        ]);
        expect(results[0]!.revokedAt).toBe(results[1]!.revokedAt);
        expect((await nodes[1]!.findByHash(record.hash))?.revokedAt).toBe(results[0]!.revokedAt);
      } finally {
        await Promise.all(nodes.map((node) => node.close()));
      }
    });

    it('stores hashes only, under the documented keys', async () => {
      const prefix = freshPrefix();
      const store = createRedisKeyStore({ url: server.url, prefix });
      const inspect = new Redis(server.url);
      try {
        const { key, record } = await createApiKey(store, { accountId: 'acc_9', plan: 'plus' });
        const keys = (await inspect.keys(`${prefix}:*`)).sort();
        expect(keys).toEqual(
          [
            `${prefix}:apikey:${record.id}`,
            `${prefix}:apikey-hash:${record.hash}`,
            `${prefix}:apikeys`,
            `${prefix}:apikeys:account:acc_9`,
          ].sort(),
        );
        for (const name of keys) {
          const type = await inspect.type(name);
          const content =
            type === 'string' ? await inspect.get(name) : (await inspect.zrange(name, 0, '-1')).join(' ');
          expect(content).not.toContain(key);
          expect(content).not.toContain(key.slice(-32));
        }
      } finally {
        await store.close();
        inspect.disconnect();
      }
    });

    it('keeps keys over a Redis restart and reconnects by itself', async () => {
      const store = createRedisKeyStore({ url: server.url, prefix: freshPrefix(), onError: () => {} });
      try {
        const record = sampleApiKeyRecord();
        await store.create(record);
        await server.restart();
        expect(await store.findByHash(record.hash)).toEqual(record);
        const other = sampleApiKeyRecord();
        await store.create(other);
        expect(await store.list()).toEqual([record, other].sort((a, b) => (a.id < b.id ? -1 : 1)));
      } finally {
        await store.close();
      }
    });
  });
});
