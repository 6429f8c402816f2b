/**
 * Without ioredis or bullmq installed, the Redis adapters still import and validate their options
 * (nothing heavy is loaded up front); the first use fails with ENGINE_UNAVAILABLE naming the
 * install command.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

function missing(name: string) {
  return () => {
    throw Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' });
  };
}

describe('Redis adapters without their packages', () => {
  afterEach(() => {
    vi.doUnmock('ioredis');
    vi.doUnmock('bullmq');
    vi.resetModules();
  });

  it('report a missing ioredis on first use, naming `npm install bullmq ioredis`', async () => {
    vi.resetModules();
    vi.doMock('ioredis', missing('ioredis'));
    const { createRedisJobStore } = await import('../../src/adapters/jobs/redis.js');
    const { createRedisCounterStore } = await import('../../src/adapters/counters/redis.js');
    const { createRedisKeyStore } = await import('../../src/adapters/keys/redis.js');
    const expected = {
      code: 'ENGINE_UNAVAILABLE',
      message: expect.stringContaining('`npm install bullmq ioredis`'),
      details: expect.objectContaining({ package: 'ioredis', install: 'npm install bullmq ioredis' }),
    };
    await expect(createRedisJobStore({ url: 'redis://127.0.0.1:1' }).getJob('job_1')).rejects.toMatchObject(
      expected,
    );
    await expect(createRedisCounterStore({ url: 'redis://127.0.0.1:1' }).get('k')).rejects.toMatchObject(
      expected,
    );
    await expect(createRedisKeyStore({ url: 'redis://127.0.0.1:1' }).list()).rejects.toMatchObject(expected);
  });

  it('report a missing bullmq on the first enqueue and through onError for process()', async () => {
    vi.resetModules();
    vi.doMock('bullmq', missing('bullmq'));
    const { createBullmqQueue } = await import('../../src/adapters/queue/bullmq.js');
    const errors: unknown[] = [];
    const queue = createBullmqQueue({ url: 'redis://127.0.0.1:1', onError: (error) => errors.push(error) });
    await expect(queue.enqueue('job_1')).rejects.toMatchObject({
      code: 'ENGINE_UNAVAILABLE',
      message: expect.stringMatching(/needs the npm package 'bullmq'.*npm install bullmq ioredis/),
    });
    queue.process(async () => {});
    await vi.waitFor(() =>
      expect(errors).toContainEqual(expect.objectContaining({ code: 'ENGINE_UNAVAILABLE' })),
    );
    await queue.close();
  });
});
