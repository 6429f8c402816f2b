import { describe, expect, it } from 'vitest';
import { createMemoryOutbox } from '../../src/adapters/outbox/memory.js';
import { createRedisOutbox } from '../../src/adapters/outbox/redis.js';
import { sampleDelivery, testWebhookOutbox } from '../../src/testing/index.js';
import { describeWithRedis, freshPrefix } from '../helpers/redis-server.js';

testWebhookOutbox('memory', () => createMemoryOutbox());

describeWithRedis('Redis webhook outbox', (server) => {
  testWebhookOutbox('redis', () => createRedisOutbox({ url: server.url, prefix: freshPrefix() }));

  describe('createRedisOutbox', () => {
    it('shares deliveries between processes: what one adds, another claims, once', async () => {
      const prefix = freshPrefix();
      const [api, worker] = [
        createRedisOutbox({ url: server.url, prefix }),
        createRedisOutbox({ url: server.url, prefix }),
      ];
      try {
        const now = Date.now();
        const delivery = sampleDelivery({ dueAt: now });
        await api.add(delivery);
        await api.close();
        const [claimed] = await worker.claimDue(now, 30_000, 10);
        expect(claimed).toEqual({ ...delivery, dueAt: now + 30_000 });
        expect(await worker.claimDue(now + 1, 30_000, 10)).toEqual([]);
      } finally {
        await Promise.all([api.close(), worker.close()]);
      }
    });

    it('says UNAVAILABLE when Redis cannot be reached', async () => {
      const outbox = createRedisOutbox({
        url: 'redis://127.0.0.1:1',
        prefix: freshPrefix(),
        commandTimeoutMs: 500,
      });
      try {
        await expect(outbox.add(sampleDelivery())).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      } finally {
        await outbox.close();
      }
    });
  });
});
