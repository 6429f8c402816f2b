/**
 * The Idempotency-Key header over a real port: a retry replays the first answer (same job, same
 * upload) without a second charge or a second stored file, another request under the same key
 * is 422, concurrent requests with one key create one job, 5xx answers are not kept, keys are
 * per caller, and a request still running makes a concurrent one wait, then 409.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createHttpService } from '../../src/adapters/http/service.js';
import { createMemoryIdempotencyStore } from '../../src/adapters/idempotency/memory.js';
import { createSqliteIdempotencyStore } from '../../src/adapters/idempotency/sqlite.js';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../../src/adapters/storage/memory.js';
import { createEngine } from '../../src/index.js';
import { buildOpenApiDocument } from '../../src/service/openapi.js';
import { makeTempDir } from '../adapters/tmp-dirs.js';
import {
  type CallOptions,
  call,
  expectError,
  fixture,
  movableClock,
  multipart,
  pollJob,
  SECRET,
  type StartOptions,
  startServer,
  type TestServer,
  uploadA,
} from './harness.js';

const REPLAYED = 'idempotent-replayed';

async function server(options: StartOptions = {}) {
  const counters = createMemoryCounterStore(options.clock ? { now: options.clock.now } : {});
  const started = await startServer({ ...options, router: { counters, ...options.router } });
  return started;
}

async function conversionsUsed(target: TestServer, caller: CallOptions = {}): Promise<number> {
  const response = await call(target, 'GET', '/api/usage', caller);
  expect(response.status, response.text).toBe(200);
  return response.body.quotas.conversions.used;
}

async function uploadedPng(target: TestServer, caller: CallOptions = {}) {
  const png = await fixture('fixture.png');
  const granted = await uploadA(target, png, 'u.png', 'image/png', caller);
  return { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: png.length };
}

const withKey = (key: string, options: CallOptions = {}): CallOptions => ({
  ...options,
  headers: { ...options.headers, 'idempotency-key': key },
});

describe('Idempotency-Key on POST /api/jobs/create', () => {
  it('replays the first answer (same jobId, marked replayed) and charges once', async () => {
    const target = await server();
    const job = await uploadedPng(target);
    const first = await call(target, 'POST', '/api/jobs/create', withKey('create-1', { json: job }));
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get(REPLAYED)).toBeNull();
    const again = await call(target, 'POST', '/api/jobs/create', withKey('create-1', { json: job }));
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get(REPLAYED)).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await conversionsUsed(target)).toBe(1);
    expect(await target.jobRecords()).toEqual([first.body.jobId]);
    // Without a key every request is its own.
    const unkeyed = await call(target, 'POST', '/api/jobs/create', { json: job });
    expect(unkeyed.body.jobId).not.toBe(first.body.jobId);
    expect(await conversionsUsed(target)).toBe(2);
  });

  it('refuses the key on a different body (422) and runs nothing', async () => {
    const target = await server();
    const job = await uploadedPng(target);
    await call(target, 'POST', '/api/jobs/create', withKey('k', { json: job }));
    const other = await call(
      target,
      'POST',
      '/api/jobs/create',
      withKey('k', { json: { ...job, targetFormat: 'jpg' } }),
    );
    expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED');
    const query = await call(target, 'POST', '/api/jobs/create?x=1', withKey('k', { json: job }));
    expectError(query, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await target.jobRecords()).toHaveLength(1);
    expect(await conversionsUsed(target)).toBe(1);
  });

  it('runs 20 concurrent requests with one key once: one job, one charge, one answer for all', async () => {
    const clock = movableClock(Date.now());
    const target = await server({ clock });
    const job = await uploadedPng(target);
    // A fresh minute: the 20 requests are exactly the per-IP rate limit of job creation.
    clock.advance(60_000);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(target, 'POST', '/api/jobs/create', withKey('burst', { json: job })),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const jobIds = new Set(answers.map((answer) => answer.body.jobId));
    expect(jobIds.size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get(REPLAYED) === 'true')).toHaveLength(19);
    expect(await target.jobRecords()).toEqual([...jobIds]);
    expect(await conversionsUsed(target)).toBe(1);
  });

  it('replays a 4xx answer, but not a 5xx one: the retry of a failure runs again', async () => {
    const jobs = createMemoryJobStore();
    let failNext = true;
    const createJob = jobs.createJob.bind(jobs);
    jobs.createJob = async (record) => {
      if (failNext) {
        failNext = false;
        throw new Error('disk on fire');
      }
      return createJob(record);
    };
    const target = await server({ jobStore: 'memory', engine: { jobs } });
    const job = await uploadedPng(target);
    const failed = await call(target, 'POST', '/api/jobs/create', withKey('flaky', { json: job }));
    expectError(failed, 500, 'INTERNAL');
    target.serverErrors.length = 0;
    const retried = await call(target, 'POST', '/api/jobs/create', withKey('flaky', { json: job }));
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get(REPLAYED)).toBeNull();

    // Concurrent requests waiting on a request that fails: one of them runs it again, the rest get its answer.
    failNext = true;
    const burst = await Promise.all(
      Array.from({ length: 5 }, () =>
        call(target, 'POST', '/api/jobs/create', withKey('flaky-burst', { json: job })),
      ),
    );
    target.serverErrors.length = 0;
    expect(burst.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 500]);
    expect(
      new Set(burst.filter((answer) => answer.status === 200).map((answer) => answer.body.jobId)).size,
    ).toBe(1);

    const missing = { ...job, fileKey: 'uploads/00000000-0000-4000-8000-000000000000/u.png' };
    const notFound = await call(target, 'POST', '/api/jobs/create', withKey('missing', { json: missing }));
    expectError(notFound, 404, 'NOT_FOUND');
    const again = await call(target, 'POST', '/api/jobs/create', withKey('missing', { json: missing }));
    expectError(again, 404, 'NOT_FOUND');
    expect(again.headers.get(REPLAYED)).toBe('true');
  });

  it('scopes keys per caller: another owner with the same key gets its own answer', async () => {
    const target = await server({ clients: true });
    const request = { fileName: 'a.png', fileSize: 10, contentType: 'image/png' };
    const alice = await call(
      target,
      'POST',
      '/api/files/get-upload-url',
      withKey('same', { client: 'alice', json: request }),
    );
    const bob = await call(
      target,
      'POST',
      '/api/files/get-upload-url',
      withKey('same', { client: 'bob', json: request }),
    );
    expect(alice.status, alice.text).toBe(200);
    expect(bob.status, bob.text).toBe(200);
    expect(bob.body.fileId).not.toBe(alice.body.fileId);
    expect(bob.headers.get(REPLAYED)).toBeNull();
    const aliceAgain = await call(
      target,
      'POST',
      '/api/files/get-upload-url',
      withKey('same', { client: 'alice', json: request }),
    );
    expect(aliceAgain.body).toEqual(alice.body);
    expect(aliceAgain.headers.get(REPLAYED)).toBe('true');
  });

  it('refuses a malformed key with 400 and accepts a quoted (structured-field) one', async () => {
    const target = await server();
    const job = await uploadedPng(target);
    for (const bad of ['', 'has space', 'x'.repeat(256), 'ünï']) {
      const response = await call(target, 'POST', '/api/jobs/create', withKey(bad, { json: job }));
      expectError(response, 400, 'INVALID_REQUEST');
    }
    const quoted = await call(target, 'POST', '/api/jobs/create', withKey('"abc"', { json: job }));
    const bare = await call(target, 'POST', '/api/jobs/create', withKey('abc', { json: job }));
    expect(bare.body.jobId).toBe(quoted.body.jobId);
    expect(await target.jobRecords()).toHaveLength(1);
  });
});

describe('Idempotency-Key on POST /api/upload (multipart)', () => {
  it('replays the same fileId for a retried form (new boundary) without storing a second file', async () => {
    const target = await server();
    const png = await fixture('fixture.png');
    const first = await call(target, 'POST', '/api/upload', withKey('up', { body: multipart(png, 'a.png') }));
    expect(first.status, first.text).toBe(200);
    const stored = await target.storedFiles();
    const again = await call(target, 'POST', '/api/upload', withKey('up', { body: multipart(png, 'a.png') }));
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get(REPLAYED)).toBe('true');
    expect(await target.storedFiles()).toEqual(stored);
    expect(await target.fileRecords()).toEqual([first.body.fileId]);

    const otherBytes = Buffer.concat([png, Buffer.from([0])]);
    const other = await call(
      target,
      'POST',
      '/api/upload',
      withKey('up', { body: multipart(otherBytes, 'a.png') }),
    );
    expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED');
    const renamed = await call(
      target,
      'POST',
      '/api/upload',
      withKey('up', { body: multipart(png, 'b.png') }),
    );
    expectError(renamed, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await target.fileRecords()).toEqual([first.body.fileId]);
  });
});

describe('Idempotency-Key on POST /api/convert', () => {
  it('makes a concurrent retry wait, then 409 with Retry-After; once done, replays the downloadId', async () => {
    const { dir, remove } = await makeTempDir('idempotency-http');
    const store = createSqliteIdempotencyStore({ path: join(dir, 'fileconv.db') });
    onTestFinished(async () => {
      await store.close();
      await remove();
    });
    const target = await server({ start: false, router: { idempotency: { store, waitMs: 300 } } });
    const png = await fixture('fixture.png');
    const uploaded = await call(target, 'POST', '/api/upload', { body: multipart(png, 'a.png') });
    const body = { fileId: uploaded.body.fileId, fileName: 'a.png', targetFormat: 'webp' };
    const running = call(target, 'POST', '/api/convert', withKey('conv', { json: body }));
    // The first holds the key while its conversion waits for a worker.
    await expect.poll(async () => (await target.jobRecords()).length).toBe(1);
    const busy = await call(target, 'POST', '/api/convert', withKey('conv', { json: body }));
    expectError(busy, 409, 'IDEMPOTENCY_KEY_IN_USE');
    expect(busy.headers.get('retry-after')).toBe('2');
    await target.engine.start();
    const first = await running;
    expect(first.status, first.text).toBe(200);
    const replayed = await call(target, 'POST', '/api/convert', withKey('conv', { json: body }));
    expect(replayed.body).toEqual(first.body);
    expect(replayed.headers.get(REPLAYED)).toBe('true');
    expect(await target.jobRecords()).toHaveLength(1);
    const download = await call(target, 'GET', `/api/download?id=${first.body.downloadId}`);
    expect(download.status).toBe(200);
    await pollJob(target, first.body.downloadId);
  });
});

describe('Idempotency-Key crash safety', () => {
  it('lets a retry take over a key whose runner stopped renewing its lease (its process died)', async () => {
    const store = createMemoryIdempotencyStore();
    // The first request's renewals are lost, as when the process running it is gone.
    let renewals = true;
    const flaky = {
      ...store,
      renew: (...args: Parameters<typeof store.renew>) =>
        renewals ? store.renew(...args) : Promise.resolve(false),
    };
    const target = await server({
      start: false,
      router: { idempotency: { store: flaky, leaseMs: 300, waitMs: 100 } },
    });
    const png = await fixture('fixture.png');
    const uploaded = await call(target, 'POST', '/api/upload', { body: multipart(png, 'a.png') });
    const body = { fileId: uploaded.body.fileId, fileName: 'a.png', targetFormat: 'webp' };
    renewals = false;
    const abandoned = call(target, 'POST', '/api/convert', withKey('orphan', { json: body }));
    await expect.poll(async () => (await target.jobRecords()).length).toBe(1);
    // Past the lease the first claim took, none of it renewed.
    await sleep(400);
    renewals = true;
    const takeover = call(target, 'POST', '/api/convert', withKey('orphan', { json: body }));
    await expect.poll(async () => (await target.jobRecords()).length).toBe(2);
    await target.engine.start();
    const [first, second] = await Promise.all([abandoned, takeover]);
    expect(first.status, first.text).toBe(200);
    expect(second.status, second.text).toBe(200);
    // The key is the taker's: its answer is the one replayed; the abandoned run stored nothing.
    const replayed = await call(target, 'POST', '/api/convert', withKey('orphan', { json: body }));
    expect(replayed.headers.get(REPLAYED)).toBe('true');
    expect(replayed.body).toEqual(second.body);
    await store.close();
  });
});

describe('Idempotency-Key in the API description', () => {
  it('is documented on exactly the routes that take it, with its errors and the replay header', () => {
    const engine = createEngine({
      storage: createMemoryStorage(),
      jobs: createMemoryJobStore(),
      queue: createMemoryQueue(),
      converters: [],
    });
    const service = createHttpService(engine, { signingSecret: SECRET });
    const flagged = service.routes
      .filter((route) => route.idempotent)
      .map((route) => `${route.method} ${route.path}`)
      .sort();
    expect(flagged).toEqual([
      'POST /api/convert',
      'POST /api/files/get-upload-url',
      'POST /api/files/multipart',
      'POST /api/jobs/batch',
      'POST /api/jobs/create',
      'POST /api/tus',
      'POST /api/upload',
    ]);
    const doc = buildOpenApiDocument();
    const documented: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods) as [string, Record<string, unknown>][]) {
        const parameters = (operation.parameters ?? []) as { name: string; in: string }[];
        if (!parameters.some((p) => p.name === 'Idempotency-Key' && p.in === 'header')) continue;
        documented.push(`${method.toUpperCase()} ${path}`);
        const responses = operation.responses as Record<string, { description: string; headers: object }>;
        expect(responses['422']!.description).toContain('IDEMPOTENCY_KEY_REUSED');
        expect(responses['409']!.description).toContain('IDEMPOTENCY_KEY_IN_USE');
        expect(Object.keys(responses['409']!.headers)).toContain('Retry-After');
        // The success answer: 200, or 201 for tus creation.
        const ok = Object.entries(responses).find(([status]) => status.startsWith('2'))![1];
        expect(Object.keys(ok.headers)).toContain('Idempotent-Replayed');
      }
    }
    expect(documented.sort()).toEqual(flagged);
  });
});
