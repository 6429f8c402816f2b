import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { createRedisJobStore } from '../../src/adapters/jobs/redis.js';
import { createBullmqQueue } from '../../src/adapters/queue/bullmq.js';
import { createMemoryStorage } from '../../src/adapters/storage/memory.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { createEngine, type Engine } from '../../src/index.js';
import { describeWithRedis, freshPrefix } from '../helpers/redis-server.js';
import { fixture, tempDir } from '../helpers/temp.js';

describeWithRedis('engine on Redis', { persistent: true }, (server) => {
  it('converts a job created on an API node on a separate worker node', async () => {
    const prefix = freshPrefix();
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
