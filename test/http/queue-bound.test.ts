/**
 * The bound on waiting jobs (HttpServiceOptions.maxQueuedJobs) over HTTP: with no worker taking
 * jobs yet (the harness's `start: false`, an API node whose workers are elsewhere), the jobs past
 * the bound are refused with 503 OVERLOADED and Retry-After, charged nothing (GET /api/usage
 * unchanged), whatever route creates them (Flow A create and batch, document operation jobs,
 * Flow B convert); once a worker drains the queue, creates succeed again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { OVERLOADED_RETRY_AFTER_SECONDS } from '../../src/core/policy/overload.js';
import { definePlans } from '../../src/index.js';
import {
  type ApiResponse,
  call,
  expectError,
  fixture,
  pollJob,
  startServer,
  type TestServer,
  uploadA,
  uploadB,
} from './harness.js';

/** Free with batches, so one server shows every route that creates jobs. */
const PLANS = definePlans({ free: { batch: true, maxBatchJobs: 10 } });

async function boundedServer(): Promise<TestServer> {
  return startServer({
    start: false,
    router: { counters: createMemoryCounterStore(), plans: PLANS, maxQueuedJobs: 2 },
  });
}

/** What the caller has used of each quota, as GET /api/usage tells it (conversions, upload files and bytes...). */
async function quotas(server: TestServer): Promise<Record<string, number | null>> {
  const usage = await call(server, 'GET', '/api/usage');
  expect(usage.status, usage.text).toBe(200);
  const entries = Object.entries(usage.body.quotas as Record<string, { used: number | null } | null>);
  return Object.fromEntries(entries.map(([kind, quota]) => [kind, quota?.used ?? null]));
}

async function conversionsUsed(server: TestServer): Promise<number | null | undefined> {
  return (await quotas(server)).conversions;
}

/** Waits until the queue holds `count` waiting jobs (Flow B's converts enqueue while they wait). */
async function untilQueued(server: TestServer, count: number): Promise<void> {
  for (let tries = 0; (await server.engine.stats()).queued !== count; tries++) {
    if (tries > 400) throw new Error(`the queue never held ${count} jobs`);
    await sleep(25);
  }
}

function expectOverloaded(response: ApiResponse): void {
  expectError(response, 503, 'OVERLOADED');
  expect(response.headers.get('retry-after')).toBe(String(OVERLOADED_RETRY_AFTER_SECONDS));
  expect(response.body.error.details).toMatchObject({ waiting: 2, maxQueuedJobs: 2 });
}

describe('maxQueuedJobs', () => {
  it('Flow A: the create past the bound is 503 OVERLOADED, charged nothing; after the queue drains, creates succeed', async () => {
    const server = await boundedServer();
    const png = await fixture('fixture.png');
    const granted = await uploadA(server, png, 'u.png', 'image/png');
    const job = { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: png.length };
    const create = () => call(server, 'POST', '/api/jobs/create', { json: job });

    const queued: string[] = [];
    for (let n = 0; n < 2; n++) {
      const created = await create();
      expect(created.status, created.text).toBe(200);
      queued.push(created.body.jobId as string);
    }
    const before = await quotas(server);
    expect(before.conversions).toBe(2);

    expectOverloaded(await create());
    // A batch that would not fit, and a document operation job, are refused the same way.
    expectOverloaded(await call(server, 'POST', '/api/jobs/batch', { json: { jobs: [job] } }));
    expectOverloaded(
      await call(server, 'POST', '/api/jobs/create', {
        json: { operation: 'merge', fileKeys: [granted.fileKey, granted.fileKey] },
      }),
    );
    expect(await quotas(server)).toEqual(before);
    expect(await server.jobRecords()).toHaveLength(2);

    // A worker takes the queued jobs (as a `fileconv worker` elsewhere would) and the queue drains.
    await server.engine.start();
    for (const id of queued) expect((await pollJob(server, id)).status).toBe('completed');
    await untilQueued(server, 0);

    const again = await create();
    expect(again.status, again.text).toBe(200);
    expect((await pollJob(server, again.body.jobId)).status).toBe('completed');
    const batch = await call(server, 'POST', '/api/jobs/batch', { json: { jobs: [job, job] } });
    expect(batch.status, batch.text).toBe(200);
    expect(await conversionsUsed(server)).toBe(5);
  });

  it('Flow B: the convert past the bound is 503 OVERLOADED at once, charged nothing; after the queue drains, converts succeed', async () => {
    const server = await boundedServer();
    const uploaded = await uploadB(server, await fixture('fixture.png'), 'u.png');
    expect(uploaded.status, uploaded.text).toBe(200);
    const body = { fileId: uploaded.body.fileId, fileName: uploaded.body.fileName, targetFormat: 'webp' };
    const convert = () => call(server, 'POST', '/api/convert', { json: body });

    // Two converts wait for jobs nobody runs yet: the queue holds two.
    const waiting = [convert(), convert()];
    await untilQueued(server, 2);
    const before = await quotas(server);
    expect(before.conversions).toBe(2);

    expectOverloaded(await convert());
    expect(await quotas(server)).toEqual(before);

    await server.engine.start();
    for (const answer of await Promise.all(waiting)) expect(answer.status, answer.text).toBe(200);
    await untilQueued(server, 0);
    const again = await convert();
    expect(again.status, again.text).toBe(200);
    expect(again.body.outputName).toBe('u.webp');
    expect(await conversionsUsed(server)).toBe(3);
  });

  it('refuses nothing by default, however many jobs wait', async () => {
    const server = await startServer({ start: false, router: { plans: PLANS } });
    const png = await fixture('fixture.png');
    const granted = await uploadA(server, png, 'u.png', 'image/png');
    const job = { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: png.length };
    const batch = await call(server, 'POST', '/api/jobs/batch', { json: { jobs: Array(5).fill(job) } });
    expect(batch.status, batch.text).toBe(200);
    const created = await call(server, 'POST', '/api/jobs/create', { json: job });
    expect(created.status, created.text).toBe(200);
    expect((await server.engine.stats()).queued).toBe(6);
  });

  it('refuses a bound that is not a whole number above 0 when the service is made', async () => {
    await expect(startServer({ router: { maxQueuedJobs: 0 } })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('maxQueuedJobs must be a whole number above 0'),
    });
  });
});
