/**
 * `fileconv serve --max-queued-jobs` on two API nodes (`--no-worker`) sharing Redis and a data dir:
 * the bound is read from the flag on one node and from FILECONV_MAX_QUEUED_JOBS on the other, and
 * it holds across them, because the count of waiting jobs is the BullMQ queue's, in Redis: a job
 * waiting because of one node fills the bound of the other. Once a `fileconv worker` drains the
 * queue, a job is taken again. And the command line itself: `fileconv serve --max-queued-jobs 1`
 * as a process says the bound when it starts and refuses the second waiting job.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { type RunningService, startService } from '../bin/commands/serve.js';
import { type RunningWorker, startWorker } from '../bin/commands/worker.js';
import { OVERLOADED_RETRY_AFTER_SECONDS } from '../src/core/policy/overload.js';
import { describeWithRedis } from './helpers/redis-server.js';
import { exited, startServeProcess } from './helpers/serve-process.js';
import { fixture, tempDir } from './helpers/temp.js';

interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answer fields freely and assert their types
  body: any;
}

async function post(url: string, body: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Flow A's upload of the PNG fixture on `url`: the body of a job converting it. */
async function uploadedJob(url: string) {
  const png = await readFile(fixture('fixture.png'));
  const grant = await post(`${url}/api/files/get-upload-url`, {
    fileName: 'u.png',
    fileSize: png.length,
    contentType: 'image/png',
  });
  expect(grant.status, JSON.stringify(grant.body)).toBe(200);
  const put = await fetch(grant.body.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    body: png,
  });
  expect(put.status).toBe(200);
  return { fileKey: grant.body.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: png.length };
}

describeWithRedis('fileconv serve --max-queued-jobs on API nodes sharing Redis', (redis) => {
  it('refuses the job past the bound on the node that did not queue the waiting one, until a worker drains the queue', async () => {
    const data = await tempDir();
    const node = { redisUrl: redis.url, data, worker: false, port: 0, host: '127.0.0.1', log: false };
    const saved = process.env.FILECONV_MAX_QUEUED_JOBS;
    const running: (RunningService | RunningWorker)[] = [];
    try {
      // As commander hands the flag over: text.
      const one = await startService({ ...node, maxQueuedJobs: '1' });
      running.push(one);
      process.env.FILECONV_MAX_QUEUED_JOBS = '1';
      const two = await startService(node);
      running.push(two);
      delete process.env.FILECONV_MAX_QUEUED_JOBS;
      expect(one.config.server.maxQueuedJobs).toBe(1);
      expect(one.config.sources['server.maxQueuedJobs']).toBe('flag --max-queued-jobs');
      expect(two.config.server.maxQueuedJobs).toBe(1);
      expect(two.config.sources['server.maxQueuedJobs']).toBe('env FILECONV_MAX_QUEUED_JOBS');

      const job = await uploadedJob(one.url);

      const first = await post(`${one.url}/api/jobs/create`, job);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const refused = await post(`${two.url}/api/jobs/create`, job);
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body.error.code).toBe('OVERLOADED');
      expect(refused.headers.get('retry-after')).toBe(String(OVERLOADED_RETRY_AFTER_SECONDS));
      // The counters are Redis's too: one conversion charged, by whichever node.
      const usage = (await (await fetch(`${two.url}/api/usage`)).json()) as {
        quotas: { conversions: { used: number } };
      };
      expect(usage.quotas.conversions.used).toBe(1);

      const worker = await startWorker({ redisUrl: redis.url, data, concurrency: 1 });
      running.push(worker);
      const done = await two.engine.waitForJob(first.body.jobId, { timeoutMs: 60_000 });
      expect(done.status).toBe('completed');
      // The worker took the job: nothing waits (a running job is not counted), the bound has room.
      const again = await post(`${two.url}/api/jobs/create`, job);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
    } finally {
      if (saved === undefined) delete process.env.FILECONV_MAX_QUEUED_JOBS;
      else process.env.FILECONV_MAX_QUEUED_JOBS = saved;
      for (const service of running.reverse()) await service.stop();
    }
  }, 120_000);

  it('`fileconv serve --no-worker --max-queued-jobs 1` says the bound and refuses the second waiting job', async () => {
    // A Redis database of its own: the test above leaves a job waiting in database 0.
    const serve = await startServeProcess([
      '--no-worker',
      '--max-queued-jobs',
      '1',
      '--redis-url',
      `${redis.url}/1`,
      '--data',
      await tempDir(),
      '--no-log',
    ]);
    try {
      // The start-up lines after "serving on" may still be on their way.
      const bound = 'at most 1 jobs wait in the queue; past that, new jobs are refused (503 OVERLOADED)';
      for (let tries = 0; !serve.stdout().includes(bound) && tries < 200; tries++) await sleep(25);
      expect(serve.stdout()).toContain(bound);
      const job = await uploadedJob(serve.url);
      expect((await post(`${serve.url}/api/jobs/create`, job)).status).toBe(200);
      const refused = await post(`${serve.url}/api/jobs/create`, job);
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body.error.code).toBe('OVERLOADED');
    } finally {
      serve.child.kill('SIGTERM');
      await exited(serve.child);
    }
  }, 120_000);
});
