import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type BullmqQueueOptions,
  createBullmqQueue,
  toBullmqPriority,
} from '../../src/adapters/queue/bullmq.js';
import type { Queue } from '../../src/core/ports/index.js';
import { deferred, waitUntil } from '../../src/testing/fresh-instance.js';
import { testQueue } from '../../src/testing/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  describeWithRedis,
  REDIS_INSTALL_HINT,
  type RedisServer,
  redisServerAvailable,
  startRedisServer,
} from '../helpers/redis-server.js';

const root = join(import.meta.dirname, '..', '..');
const freshPrefix = () => `t${randomUUID().slice(0, 8)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createBullmqQueue options', () => {
  it('validates options naming the option, expected and given', () => {
    expect(() => createBullmqQueue({ name: 'a:b' })).toThrow(
      /option "name" must be a name without ":", got "a:b"/,
    );
    expect(() => createBullmqQueue({ attempts: 0 })).toThrow(
      /option "attempts" must be a positive integer, got 0/,
    );
    expect(() => createBullmqQueue({ backoffMs: 1.5 })).toThrow(
      /option "backoffMs" must be a positive integer/,
    );
    expect(() => createBullmqQueue({ lockDurationMs: -1 })).toThrow(/option "lockDurationMs"/);
    expect(() => createBullmqQueue({ stalledIntervalMs: 0 })).toThrow(/option "stalledIntervalMs"/);
    expect(() => createBullmqQueue({ maxStalledCount: -1 })).toThrow(/option "maxStalledCount"/);
    expect(() => createBullmqQueue({ onError: 1 as never })).toThrow(/option "onError" must be a function/);
    const queue = createBullmqQueue();
    expect(() => queue.process(async () => {}, { concurrency: 0 })).toThrow(
      /"concurrency" must be a positive integer, got 0/,
    );
  });

  it('maps "higher first" priorities onto BullMQ\'s "lower first" range', () => {
    const plans = [0, 5, 10, 15, 20].map(toBullmqPriority);
    expect(plans).toEqual([...plans].sort((a, b) => b - a));
    expect(toBullmqPriority(1_000_000)).toBeGreaterThanOrEqual(1);
    expect(toBullmqPriority(-1_048_575)).toBeLessThanOrEqual(2 ** 21 - 1);
    for (const bad of [1.5, Number.NaN, 2 ** 20, -(2 ** 20), '3']) {
      expect(() => toBullmqPriority(bad)).toThrow(/priority must be an integer/);
    }
  });
});

describeWithRedis('BullMQ queue', (server) => {
  testQueue('bullmq', () => createBullmqQueue({ url: server.url, prefix: freshPrefix(), onError: () => {} }));

  describe('createBullmqQueue', () => {
    const opened: Queue[] = [];
    const open = (options: BullmqQueueOptions = {}) => {
      const queue = createBullmqQueue({ url: server.url, onError: () => {}, ...options });
      opened.push(queue);
      return queue;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((queue) => queue.close()));
    });

    it('runs plan priorities highest first across an API node and a worker node', async () => {
      const prefix = freshPrefix();
      const api = open({ prefix });
      const plan: [string, number][] = [
        ['free_1', 0],
        ['plus_1', 5],
        ['enterprise_1', 20],
        ['free_2', 0],
        ['pro_1', 10],
        ['business_1', 15],
        ['enterprise_2', 20],
      ];
      for (const [id, priority] of plan) await api.enqueue(id, { priority });
      expect(await api.size!()).toBe(plan.length);
      const delivered: string[] = [];
      open({ prefix }).process(async (jobId) => void delivered.push(jobId));
      await waitUntil(() => delivered.length === plan.length, 10_000, 'every id');
      expect(delivered).toEqual([
        'enterprise_1',
        'enterprise_2',
        'business_1',
        'pro_1',
        'plus_1',
        'free_1',
        'free_2',
      ]);
    });

    it('refuses ids BullMQ or a job store could not hold, and bad priorities', async () => {
      const queue = open({ prefix: freshPrefix() });
      for (const id of ['', 'a:b', '../x', 'x'.repeat(201)]) {
        await expect(queue.enqueue(id)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      }
      await expect(queue.enqueue('job_1', { priority: 0.5 })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
      // An all-digit id is fine for us; BullMQ refuses integer ids, which the fc. prefix avoids.
      await queue.enqueue('12345');
      expect(await queue.size!()).toBe(1);
    });

    it('adds an id that is still waiting only once', async () => {
      const queue = open({ prefix: freshPrefix() });
      await queue.enqueue('job_twice');
      await queue.enqueue('job_twice', { priority: 5 });
      expect(await queue.size!()).toBe(1);
      const delivered: string[] = [];
      queue.process(async (jobId) => void delivered.push(jobId));
      await waitUntil(() => delivered.length === 1, 10_000, 'the id');
      await sleep(300);
      expect(delivered).toEqual(['job_twice']);
    });

    it('adds a new job (firstTime) with one Redis command, as raw BullMQ does; a repeat is checked first', async () => {
      const client = new Redis(server.url);
      let commands = 0;
      const send = client.sendCommand.bind(client);
      client.sendCommand = ((...args: Parameters<typeof send>) => {
        commands++;
        return send(...args);
      }) as typeof client.sendCommand;
      try {
        const queue = createBullmqQueue({ prefix: freshPrefix(), connection: client, onError: () => {} });
        opened.push(queue);
        await queue.enqueue('job_warm', { firstTime: true }); // opens the producer
        let before = commands;
        await queue.enqueue('job_new', { firstTime: true });
        expect(commands - before).toBe(1);
        before = commands;
        // A repeat of a waiting id: the state check, and nothing added.
        await queue.enqueue('job_new', { priority: 5 });
        expect(commands - before).toBe(1);
        expect(await queue.size!()).toBe(2);
        const delivered: string[] = [];
        queue.process(async (jobId) => void delivered.push(jobId));
        await waitUntil(() => delivered.length === 2, 10_000, 'both ids');
        await sleep(300);
        expect([...delivered].sort()).toEqual(['job_new', 'job_warm']);
      } finally {
        await Promise.all(opened.splice(0).map((queue) => queue.close()));
        client.disconnect();
      }
    });

    it('delivers an id again when it is enqueued after an earlier delivery finished (recovery)', async () => {
      const queue = open({ prefix: freshPrefix() });
      const delivered: string[] = [];
      queue.process(async (jobId) => void delivered.push(jobId));
      await queue.enqueue('job_again');
      await waitUntil(() => delivered.length === 1, 10_000, 'the first delivery');
      await sleep(100); // lets BullMQ finish (and remove) the first copy
      await queue.enqueue('job_again');
      await waitUntil(() => delivered.length === 2, 10_000, 'the second delivery');
      expect(delivered).toEqual(['job_again', 'job_again']);
    });

    it('delivers an id again when it is enqueued while an earlier copy still runs', async () => {
      const queue = open({ prefix: freshPrefix() });
      const release = deferred();
      const delivered: string[] = [];
      queue.process(
        async (jobId) => {
          delivered.push(jobId);
          if (delivered.length === 1) await release.promise;
        },
        { concurrency: 2 },
      );
      await queue.enqueue('job_busy');
      await waitUntil(() => delivered.length === 1, 10_000, 'the first delivery');
      await queue.enqueue('job_busy');
      await waitUntil(() => delivered.length === 2, 10_000, 'the repeat delivery');
      release.resolve();
    });

    it('retries a rejecting handler with exponential backoff, then reports the id to onError', async () => {
      const errors: [unknown, string | null][] = [];
      const queue = open({
        prefix: freshPrefix(),
        attempts: 3,
        backoffMs: 200,
        onError: (error, jobId) => errors.push([error, jobId]),
      });
      const deliveries: number[] = [];
      queue.process(async () => {
        deliveries.push(Date.now());
        throw new Error('storage is down');
      });
      await queue.enqueue('job_flaky');
      await waitUntil(() => errors.length === 1, 10_000, 'the give-up report');
      expect(deliveries).toHaveLength(3);
      expect(deliveries[1]! - deliveries[0]!).toBeGreaterThanOrEqual(190);
      expect(deliveries[2]! - deliveries[1]!).toBeGreaterThanOrEqual(390);
      expect(errors[0]![1]).toBe('job_flaky');
      expect((errors[0]![0] as Error).message).toBe('storage is down');
      await sleep(300);
      expect(deliveries).toHaveLength(3);
      expect(await queue.size!()).toBe(0);
    });

    it('does not report an id whose retry succeeds', async () => {
      const errors: unknown[] = [];
      const queue = open({ prefix: freshPrefix(), backoffMs: 50, onError: (error) => errors.push(error) });
      let calls = 0;
      queue.process(async () => {
        calls++;
        if (calls === 1) throw new Error('once');
      });
      await queue.enqueue('job_recovers');
      await waitUntil(() => calls === 2, 10_000, 'the retry');
      await sleep(200);
      expect(errors).toEqual([]);
    });

    it('counts delayed retries as waiting in size()', async () => {
      const queue = open({ prefix: freshPrefix(), backoffMs: 60_000 });
      let calls = 0;
      queue.process(async () => {
        calls++;
        throw new Error('later');
      });
      await queue.enqueue('job_delayed');
      await waitUntil(() => calls === 1, 10_000, 'the first attempt');
      await waitUntil(async () => (await queue.size!()) === 1, 10_000, 'the delayed retry');
    });

    it('keeps its keys under <prefix>:queue:<name>', async () => {
      const prefix = freshPrefix();
      const queue = open({ prefix, name: 'convert-jobs' });
      await queue.enqueue('job_layout');
      const inspect = new Redis(server.url);
      try {
        const keys = await inspect.keys(`${prefix}*`);
        expect(keys.length).toBeGreaterThan(0);
        for (const key of keys) expect(key.startsWith(`${prefix}:queue:convert-jobs:`)).toBe(true);
        expect(keys).toContain(`${prefix}:queue:convert-jobs:fc.job_layout`);
      } finally {
        inspect.disconnect();
      }
    });

    it('hands a job whose worker was killed to another worker', async () => {
      const prefix = freshPrefix();
      const timing = { lockDurationMs: 1000, stalledIntervalMs: 500 };
      const dead = await startWorkerProcess(server.url, prefix, timing);
      try {
        const api = open({ prefix });
        await api.enqueue('job_orphaned');
        await dead.started('job_orphaned');
        dead.kill();
        const killedAt = Date.now();
        const delivered: string[] = [];
        open({ prefix, ...timing }).process(async (jobId) => void delivered.push(jobId));
        await waitUntil(() => delivered.length === 1, 15_000, 'the redelivery');
        expect(delivered).toEqual(['job_orphaned']);
        // lock (1 s) + two stalled checks (0.5 s each), with slack for a loaded machine.
        expect(Date.now() - killedAt).toBeLessThan(6000);
        await sleep(1500);
        expect(delivered).toEqual(['job_orphaned']);
      } finally {
        dead.kill();
      }
    });

    it('close() waits for a running handler and then takes no more ids', async () => {
      const prefix = freshPrefix();
      const queue = open({ prefix });
      const release = deferred();
      const delivered: string[] = [];
      queue.process(async (jobId) => {
        delivered.push(jobId);
        await release.promise;
      });
      await queue.enqueue('job_running');
      await queue.enqueue('job_left');
      await waitUntil(() => delivered.length === 1, 10_000, 'the first id');
      const closing = queue.close();
      await sleep(50);
      release.resolve();
      await closing;
      expect(delivered).toEqual(['job_running']);
      await expect(queue.size!()).rejects.toMatchObject({ code: 'INVALID_STATE' });
      // The id left waiting is still in Redis for the next worker.
      const next = open({ prefix });
      expect(await next.size!()).toBe(1);
    });
  });
});

describeWithEngine(
  'redis-server',
  redisServerAvailable,
  REDIS_INSTALL_HINT,
  'BullMQ queue and Redis restarts',
  () => {
    let server: RedisServer;
    beforeAll(async () => {
      // BullMQ needs a persistent Redis: without it a restart forgets every waiting id.
      server = await startRedisServer({ persistent: true });
    });
    afterAll(() => server?.close());

    it('loses no waiting id over a restart, and a running worker picks up ids enqueued after it', async () => {
      const prefix = freshPrefix();
      const api = createBullmqQueue({ url: server.url, prefix, onError: () => {} });
      const worker = createBullmqQueue({ url: server.url, prefix, onError: () => {} });
      try {
        for (const id of ['before_1', 'before_2', 'before_3']) await api.enqueue(id);
        await server.restart();
        expect(await api.size!()).toBe(3);
        const delivered: string[] = [];
        worker.process(async (jobId) => void delivered.push(jobId));
        await waitUntil(() => delivered.length === 3, 15_000, 'the ids from before the restart');
        expect(delivered).toEqual(['before_1', 'before_2', 'before_3']);
        await server.restart();
        await api.enqueue('after_1');
        await api.enqueue('after_2');
        await waitUntil(() => delivered.length === 5, 20_000, 'the ids from after the restart');
        expect(delivered.slice(3)).toEqual(['after_1', 'after_2']);
      } finally {
        await worker.close();
        await api.close();
      }
    });

    it('fails an enqueue fast while Redis is down and accepts one once it is back', async () => {
      const api = createBullmqQueue({
        url: server.url,
        prefix: freshPrefix(),
        commandTimeoutMs: 1500,
        onError: () => {},
      });
      try {
        await api.enqueue('job_up');
        await server.stop();
        const started = Date.now();
        await expect(api.enqueue('job_down')).rejects.toMatchObject({
          code: 'UNAVAILABLE',
          message: expect.stringContaining('could not enqueue a job'),
        });
        expect(Date.now() - started).toBeLessThan(5000);
        await server.start();
        await api.enqueue('job_back');
        expect(await api.size!()).toBe(2);
      } finally {
        await api.close();
      }
    });

    it('fails the first enqueue fast when Redis is down from the start, and works once it is up', async () => {
      await server.stop();
      const api = createBullmqQueue({
        url: server.url,
        prefix: freshPrefix(),
        commandTimeoutMs: 1500,
        onError: () => {},
      });
      try {
        await expect(api.enqueue('job_early')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
        await server.start();
        await api.enqueue('job_early');
        expect(await api.size!()).toBe(1);
      } finally {
        await server.start();
        await api.close();
      }
    });

    for (const when of ['before', 'during'] as const) {
      it(`close() waits for the running handler and returns when Redis goes down ${when} the close`, async () => {
        const prefix = freshPrefix();
        const worker = createBullmqQueue({
          url: server.url,
          prefix,
          commandTimeoutMs: 1000,
          onError: () => {},
        });
        const release = deferred();
        let finished = false;
        try {
          worker.process(async () => {
            await release.promise;
            finished = true;
          });
          await worker.enqueue('job_held');
          await waitUntil(async () => (await worker.size!()) === 0, 10_000, 'the job to start');
          if (when === 'before') await server.stop();
          else setTimeout(() => void server.stop(), 200);
          setTimeout(release.resolve, 800);
          const started = Date.now();
          await worker.close();
          expect(finished).toBe(true);
          expect(Date.now() - started).toBeLessThan(10_000);
        } finally {
          release.resolve();
          await server.start();
        }
        // The job BullMQ could not mark finished is still in Redis: at least once, not lost.
        const inspect = new Redis(server.url);
        try {
          expect(await inspect.exists(`${prefix}:queue:fileconv-jobs:fc.job_held`)).toBe(1);
        } finally {
          inspect.disconnect();
        }
      });
    }
  },
);

/**
 * A worker in a child process whose handler never returns: killing it with SIGKILL leaves its
 * job active with a lock nobody renews, which is what a crashed worker machine looks like.
 */
async function startWorkerProcess(
  url: string,
  prefix: string,
  timing: { lockDurationMs: number; stalledIntervalMs: number },
): Promise<{ started(jobId: string): Promise<void>; kill(): void }> {
  const script = `
    const { createBullmqQueue } = await import(${JSON.stringify(join(root, 'src/adapters/queue/bullmq.ts'))});
    const queue = createBullmqQueue(${JSON.stringify({ url, prefix, ...timing })});
    queue.process((jobId) => { console.log('started ' + jobId); return new Promise(() => {}); });
    console.log('ready');
  `;
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitUntil(() => output.includes('ready') || child.exitCode !== null, 15_000, 'the worker process');
  if (child.exitCode !== null) throw new Error(`the worker process exited with ${child.exitCode}`);
  return {
    started: (jobId) =>
      waitUntil(() => output.includes(`started ${jobId}`), 15_000, `${jobId} in the worker process`),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
