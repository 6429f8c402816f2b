/**
 * The scale-out setup end to end, in one process: an API-only engine and a worker engine that
 * share nothing but Redis (job store, BullMQ queue) and the storage, as two machines would.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSharpConverter } from '../../adapters/converters/sharp.js';
import { createRedisJobStore } from '../../adapters/jobs/redis.js';
import { createBullmqQueue } from '../../adapters/queue/bullmq.js';
import { createMemoryStorage } from '../../adapters/storage/memory.js';
import { createEngine, type Engine } from '../../src/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  REDIS_INSTALL_HINT,
  type RedisServer,
  redisServerAvailable,
  startRedisServer,
} from '../helpers/redis-server.js';
import { fixture, tempDir } from '../helpers/temp.js';

describeWithEngine('redis-server', redisServerAvailable, REDIS_INSTALL_HINT, 'engine on Redis', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer({ persistent: true });
  });
  afterAll(() => server?.close());

  it('converts a job created on an API node on a separate worker node', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const storage = createMemoryStorage();
    const node = async () =>
      createEngine({
        storage,
        jobs: createRedisJobStore({ url: server.url, prefix }),
        queue: createBullmqQueue({ url: server.url, prefix }),
        converters: [createSharpConverter()],
        tempDir: await tempDir(),
        sweepIntervalMs: 0,
      });
    const engines: Engine[] = [await node(), await node()];
    const [api, worker] = engines as [Engine, Engine];
    try {
      await api.start({ worker: false });
      await worker.start();
      const file = await api.uploadFile({
        owner: 'acct_1',
        fileName: 'photo.png',
        body: await readFile(fixture('fixture.png')),
      });
      const jobs = await api.createJobs(
        ['webp', 'jpg', 'avif'].map((targetFormat) => ({ owner: 'acct_1', fileId: file.id, targetFormat })),
      );
      for (const job of jobs) {
        const done = await api.waitForJob(job.id, { timeoutMs: 30_000, pollMs: 50 });
        expect(done).toMatchObject({ status: 'completed', attempts: 1 });
        expect((await api.openResult(job.id, 'acct_1')).size).toBeGreaterThan(0);
      }
    } finally {
      await Promise.all(engines.map((engine) => engine.close()));
    }
  });
});
