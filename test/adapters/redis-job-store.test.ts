import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisJobStore, type RedisJobStore } from '../../src/adapters/jobs/redis.js';
import { sampleFile, sampleJob, testJobStore } from '../../src/testing/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  describeWithRedis,
  freshPrefix,
  REDIS_INSTALL_HINT,
  type RedisServer,
  redisServerAvailable,
  startRedisServer,
} from '../helpers/redis-server.js';

describe('createRedisJobStore options', () => {
  it('validates options naming the option, expected and given', () => {
    expect(() => createRedisJobStore({ url: 'http://localhost' })).toThrow(
      /option "url" must be a redis:\/\/ or rediss:\/\/ URL, got "http:\/\/localhost\/"/,
    );
    expect(() => createRedisJobStore({ url: 'redis://u:secret@host:1', prefix: 'a b' })).toThrow(
      /option "prefix" must be at most 100 characters without spaces, got "a b"/,
    );
    expect(() => createRedisJobStore({ url: 'not a url' })).not.toThrow(/secret/);
    expect(() => createRedisJobStore({ connection: {} as never })).toThrow(
      /option "connection" must be an ioredis client, got an object/,
    );
    expect(() => createRedisJobStore({ commandTimeoutMs: 0 })).toThrow(
      /option "commandTimeoutMs" must be a positive integer, got 0/,
    );
    expect(() => createRedisJobStore({ onError: 'log' as never })).toThrow(
      /option "onError" must be a function/,
    );
    expect(() => createRedisJobStore([] as never)).toThrow(/option "options" must be an object/);
  });

  it('never puts a password into an error message', () => {
    expect(() => createRedisJobStore({ url: 'redis://user:s3cret@[bad' })).toThrow(/unparsable/);
  });
});

describeWithRedis('Redis job store', (server) => {
  testJobStore('redis', () => createRedisJobStore({ url: server.url, prefix: freshPrefix() }));

  describe('createRedisJobStore', () => {
    it('lets exactly one of two processes win an update from the same version', async () => {
      const prefix = freshPrefix();
      const apiNode = createRedisJobStore({ url: server.url, prefix });
      const workerNode = createRedisJobStore({ url: server.url, prefix });
      try {
        for (let round = 0; round < 20; round++) {
          const job = sampleJob();
          await apiNode.createJob(job);
          const contenders = Array.from({ length: 6 }, (_, index) => ({
            ...job,
            version: 2,
            status: index % 2 ? ('canceled' as const) : ('processing' as const),
            owner: `node_${index}`,
          }));
          const results = await Promise.allSettled(
            contenders.map((next, index) => (index % 2 ? apiNode : workerNode).updateJob(next)),
          );
          const winners = contenders.filter((_, index) => results[index]!.status === 'fulfilled');
          expect(winners).toHaveLength(1);
          for (const result of results) {
            if (result.status === 'rejected')
              expect(result.reason).toMatchObject({ code: 'VERSION_CONFLICT' });
          }
          expect(await workerNode.getJob(job.id)).toEqual(winners[0]);
          // The status index follows the winner: the job is listed once, under its new status.
          const listed = await apiNode.listJobs({ status: ['queued', 'processing', 'canceled'] });
          expect(listed.filter((entry) => entry.id === job.id)).toEqual([winners[0]]);
        }
      } finally {
        await apiNode.close();
        await workerNode.close();
      }
    });

    it('keeps the layout documented: JSON records and sorted-set indexes under the prefix', async () => {
      const prefix = freshPrefix();
      const store = createRedisJobStore({ url: server.url, prefix });
      const inspect = new Redis(server.url);
      try {
        const job = sampleJob({ id: 'job_layout', createdAt: '2026-01-01T00:00:01.000Z' });
        const file = sampleFile({ id: 'file_layout', expiresAt: '2026-01-02T00:00:00.000Z' });
        await store.createJob(job);
        await store.createFile(file);
        expect(JSON.parse((await inspect.get(`${prefix}:job:job_layout`))!)).toEqual(job);
        expect(JSON.parse((await inspect.get(`${prefix}:file:file_layout`))!)).toEqual(file);
        expect(await inspect.zscore(`${prefix}:jobs:queued`, 'job_layout')).toBe(
          String(Date.parse(job.createdAt)),
        );
        expect(await inspect.zscore(`${prefix}:files:expiring`, 'file_layout')).toBe(
          String(Date.parse(file.expiresAt)),
        );
        await store.updateJob({ ...job, version: 2, status: 'processing' });
        expect(await inspect.zscore(`${prefix}:jobs:queued`, 'job_layout')).toBeNull();
        expect(await inspect.zscore(`${prefix}:jobs:processing`, 'job_layout')).not.toBeNull();
        await store.updateFile({ ...file, version: 2, expiresAt: '2026-01-03T00:00:00.000Z' });
        expect(await inspect.zscore(`${prefix}:files:expiring`, 'file_layout')).toBe(
          String(Date.parse('2026-01-03T00:00:00.000Z')),
        );
        await store.deleteFile(file.id);
        expect(await inspect.exists(`${prefix}:file:file_layout`)).toBe(0);
        expect(await inspect.zscore(`${prefix}:files:expiring`, 'file_layout')).toBeNull();
        expect((await inspect.keys(`${prefix}:*`)).sort()).toEqual(
          [`${prefix}:job:job_layout`, `${prefix}:jobs:processing`].sort(),
        );
      } finally {
        await store.close();
        inspect.disconnect();
      }
    });

    it('refuses ids that are not storable, on create and update, without touching Redis keys', async () => {
      const store = createRedisJobStore({ url: server.url, prefix: freshPrefix() });
      try {
        for (const id of ['', '../escape', 'a/b', '.hidden', 'x\0y', 'a:b', 'x'.repeat(201)]) {
          await expect(store.createJob(sampleJob({ id }))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
          await expect(store.updateFile(sampleFile({ id, version: 2 }))).rejects.toMatchObject({
            code: 'INVALID_REQUEST',
          });
        }
        await expect(store.listJobs({ status: ['nope' as never] })).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
        });
        await expect(store.listJobs({ status: ['queued'], limit: -1 })).rejects.toMatchObject({
          code: 'INVALID_REQUEST',
        });
      } finally {
        await store.close();
      }
    });

    it('reports a damaged record as INTERNAL instead of reading it as missing', async () => {
      const prefix = freshPrefix();
      const store = createRedisJobStore({ url: server.url, prefix });
      const inspect = new Redis(server.url);
      try {
        await inspect.set(`${prefix}:job:job_broken`, '{not json');
        await expect(store.getJob('job_broken')).rejects.toMatchObject({ code: 'INTERNAL' });
      } finally {
        await store.close();
        inspect.disconnect();
      }
    });

    it('lists many jobs across statuses in order, the oldest first', async () => {
      const store = createRedisJobStore({ url: server.url, prefix: freshPrefix() });
      try {
        const jobs = Array.from({ length: 1200 }, (_, index) =>
          sampleJob({
            id: `job_${String(index).padStart(4, '0')}`,
            status: index % 3 === 0 ? 'processing' : 'queued',
            createdAt: new Date(Date.UTC(2026, 0, 1) + (index % 600) * 1000).toISOString(),
          }),
        );
        await Promise.all(jobs.map((job) => store.createJob(job)));
        const listed = await store.listJobs({ status: ['queued', 'processing'] });
        expect(listed).toHaveLength(1200);
        const expected = [...jobs].sort(
          (a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : 1),
        );
        expect(listed.map((job) => job.id)).toEqual(expected.map((job) => job.id));
        const first = await store.listJobs({ status: ['processing', 'queued'], limit: 7 });
        expect(first.map((job) => job.id)).toEqual(expected.slice(0, 7).map((job) => job.id));
      } finally {
        await store.close();
      }
    });

    it('shares a given ioredis connection and leaves it open on close', async () => {
      const connection = new Redis(server.url);
      const prefix = freshPrefix();
      try {
        const store = createRedisJobStore({ connection, prefix });
        const job = sampleJob();
        await store.createJob(job);
        await store.close();
        expect(connection.status).toBe('ready');
        const again = createRedisJobStore({ connection, prefix });
        expect(await again.getJob(job.id)).toEqual(job);
        await again.close();
      } finally {
        connection.disconnect();
      }
    });
  });
});

describeWithEngine(
  'redis-server',
  redisServerAvailable,
  REDIS_INSTALL_HINT,
  'Redis job store outages',
  () => {
    let server: RedisServer;
    let store: RedisJobStore;
    const errors: unknown[] = [];
    beforeAll(async () => {
      server = await startRedisServer({ persistent: true });
      store = createRedisJobStore({
        url: server.url,
        prefix: freshPrefix(),
        commandTimeoutMs: 1500,
        onError: (error) => errors.push(error),
      });
    });
    afterAll(async () => {
      await store?.close();
      await server?.close();
    });

    it('fails fast with a clear error while Redis is down, and works again once it is back', async () => {
      const job = sampleJob();
      await store.createJob(job);
      await server.stop();
      const started = Date.now();
      const failure = await store.getJob(job.id).catch((error: unknown) => error);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(failure).toMatchObject({
        code: 'UNAVAILABLE',
        details: expect.objectContaining({ retryAfterSeconds: 5 }),
        message: expect.stringContaining('Redis at redis://127.0.0.1'),
      });
      expect((failure as Error).message).toContain('could not read job records');
      expect(errors.length).toBeGreaterThan(0);
      await server.start();
      await expect(store.getJob(job.id)).resolves.toEqual(job);
      await store.updateJob({ ...job, version: 2, status: 'processing' });
      expect((await store.listJobs({ status: ['processing'] })).map((entry) => entry.id)).toEqual([job.id]);
    });

    it('reconnects after a restart, keeping records and scripts working', async () => {
      const job = sampleJob();
      await store.createJob(job);
      await server.restart();
      // The restart emptied Redis's script cache: the update script is sent again by itself.
      await store.updateJob({ ...job, version: 2, progress: 0.5 });
      expect(await store.getJob(job.id)).toMatchObject({ version: 2, progress: 0.5 });
    });
  },
);
