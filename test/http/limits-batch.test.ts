/**
 * POST /api/jobs/batch over a real port (SERVICE-SPEC 8.2: batch support is a Pro feature):
 * accepted for Pro, 403 PLAN_FEATURE_REQUIRED for Plus and Free, all-or-nothing (one bad entry
 * creates no job and charges nothing), at most the plan's maxBatchJobs entries, and charged as
 * one conversion per job. Pro's conversions are unlimited by default, so a plan override gives
 * it a daily limit here to make the charges visible in /api/usage.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createMemoryKeyStore } from '../../src/adapters/keys/memory.js';
import { createApiKey } from '../../src/core/policy/api-keys.js';
import { definePlans } from '../../src/core/policy/plans.js';
import {
  type CallOptions,
  call,
  expectError,
  fixture,
  movableClock,
  startServer,
  type TestServer,
  uploadA,
} from './harness.js';

async function batchServer(proConversionsPerDay: number) {
  const plans = definePlans({ pro: { conversionsPerDay: proConversionsPerDay } });
  const clock = movableClock('2026-11-22T12:00:00.000Z');
  const counters = createMemoryCounterStore({ now: clock.now });
  const keys = createMemoryKeyStore();
  const server = await startServer({ clock, router: { counters, keys, plans } });
  const key = async (plan: string, localAddress: string): Promise<CallOptions> => {
    const made = await createApiKey(keys, { accountId: `acct-${plan}`, plan, plans });
    return { localAddress, headers: { authorization: `Bearer ${made.key}` } };
  };
  return { server, pro: await key('pro', '127.0.0.30'), plus: await key('plus', '127.0.0.31') };
}

interface Uploaded {
  fileKey: string;
  sourceFormat: string;
  fileSize: number;
}

async function upload(
  server: TestServer,
  caller: CallOptions,
  name: string,
  type: string,
): Promise<Uploaded> {
  const bytes = await fixture(name);
  const granted = await uploadA(server, bytes, name, type, caller);
  return { fileKey: granted.fileKey, sourceFormat: name.split('.').pop()!, fileSize: bytes.length };
}

function batch(server: TestServer, caller: CallOptions, jobs: unknown[]) {
  return call(server, 'POST', '/api/jobs/batch', { ...caller, json: { jobs } });
}

async function conversionsUsed(server: TestServer, caller: CallOptions): Promise<number> {
  const usage = await call(server, 'GET', '/api/usage', caller);
  expect(usage.status, usage.text).toBe(200);
  return usage.body.quotas.conversions.used;
}

describe('batch jobs', () => {
  it('Pro: a batch returns one jobId per entry and every job completes; it is charged per job', async () => {
    const { server, pro } = await batchServer(10);
    const png = await upload(server, pro, 'fixture.png', 'image/png');
    const jpg = await upload(server, pro, 'fixture.jpg', 'image/jpeg');
    const gif = await upload(server, pro, 'fixture.gif', 'image/gif');
    const response = await batch(server, pro, [
      { ...png, targetFormat: 'webp' },
      { ...jpg, targetFormat: 'png', options: { width: 16 } },
      { ...gif, targetFormat: 'webp' },
    ]);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body)).toEqual(['jobIds']);
    const { jobIds } = response.body as { jobIds: string[] };
    expect(jobIds).toHaveLength(3);
    expect(new Set(jobIds).size).toBe(3);
    expect(response.headers.get('ratelimit')).toContain('"conversions";r=7;');
    for (const [index, jobId] of jobIds.entries()) {
      await server.engine.waitForJob(jobId);
      const job = await call(server, 'GET', `/api/jobs/${jobId}`, pro);
      expect([index, job.body.status, job.body.targetFormat]).toEqual([
        index,
        'completed',
        ['webp', 'png', 'webp'][index],
      ]);
      expect((await fetch(job.body.downloadUrl)).status).toBe(200);
    }
    expect(await conversionsUsed(server, pro)).toBe(3);

    // A batch bigger than what is left of the day is refused whole.
    const eight = Array.from({ length: 8 }, () => ({ ...png, targetFormat: 'webp' }));
    const over = await batch(server, pro, eight);
    expectError(over, 429, 'QUOTA_EXCEEDED');
    expect(await server.jobRecords()).toHaveLength(3);
    expect(await conversionsUsed(server, pro)).toBe(3);
  });

  it('Plus and Free: 403 PLAN_FEATURE_REQUIRED, nothing created or charged', async () => {
    const { server, plus } = await batchServer(10);
    const png = await upload(server, plus, 'fixture.png', 'image/png');
    const refused = await batch(server, plus, [{ ...png, targetFormat: 'webp' }]);
    expectError(refused, 403, 'PLAN_FEATURE_REQUIRED');
    expect(refused.body.error.details).toEqual({ feature: 'batch', plan: 'plus' });
    const free = await batch(server, { localAddress: '127.0.0.32' }, [{ ...png, targetFormat: 'webp' }]);
    expectError(free, 403, 'PLAN_FEATURE_REQUIRED');
    expect(free.body.error.details).toEqual({ feature: 'batch', plan: 'free' });
    expect(await server.jobRecords()).toEqual([]);
    expect(await conversionsUsed(server, plus)).toBe(0);
  });

  it('one invalid entry creates nothing and charges nothing, naming the entry', async () => {
    const { server, pro } = await batchServer(10);
    const png = await upload(server, pro, 'fixture.png', 'image/png');
    const valid = { ...png, targetFormat: 'webp' };
    const before = await conversionsUsed(server, pro);
    const cases: Array<[unknown[], number, string, number]> = [
      [[valid, valid, { ...png, sourceFormat: 'jpg', targetFormat: 'webp' }], 422, 'CONTENT_MISMATCH', 2],
      [[valid, { ...png, fileSize: png.fileSize + 1, targetFormat: 'webp' }], 409, 'SIZE_MISMATCH', 1],
      [[valid, { ...png, targetFormat: 'mp3' }], 422, 'UNSUPPORTED_CONVERSION', 1],
      [[{ ...valid, fileKey: 'uploads/unknown' }, valid], 404, 'NOT_FOUND', 0],
    ];
    for (const [jobs, status, code, index] of cases) {
      const response = await batch(server, pro, jobs);
      expectError(response, status, code);
      expect(response.body.error.message).toMatch(new RegExp(`^jobs\\[${index}\\]: `));
    }
    // Invalid JSON shapes are refused before anything is looked at.
    expectError(await batch(server, pro, []), 400, 'INVALID_REQUEST');
    expectError(await batch(server, pro, [{ ...valid, fileSize: -1 }]), 400, 'INVALID_REQUEST');
    expect(await server.jobRecords()).toEqual([]);
    expect(await conversionsUsed(server, pro)).toBe(before);
    // The same batch without the bad entry goes through.
    expect((await batch(server, pro, [valid, valid])).status).toBe(200);
    expect(await conversionsUsed(server, pro)).toBe(before + 2);
  });

  it("more entries than the plan's maxBatchJobs (20 for Pro) is 400; exactly 20 is accepted", async () => {
    const { server, pro } = await batchServer(100);
    const png = await upload(server, pro, 'fixture.png', 'image/png');
    const entries = (count: number) =>
      Array.from({ length: count }, () => ({ ...png, targetFormat: 'webp' }));
    const over = await batch(server, pro, entries(21));
    expectError(over, 400, 'INVALID_REQUEST');
    expect(over.body.error.details).toEqual({ limit: 20, jobs: 21, plan: 'pro' });
    expect(await server.jobRecords()).toEqual([]);
    expect(await conversionsUsed(server, pro)).toBe(0);
    const twenty = await batch(server, pro, entries(20));
    expect(twenty.status, twenty.text).toBe(200);
    expect(twenty.body.jobIds).toHaveLength(20);
    expect(await conversionsUsed(server, pro)).toBe(20);
    for (const jobId of twenty.body.jobIds) await server.engine.waitForJob(jobId);
  });
});

describe('batch and JSON body sizes', () => {
  it('a batch of 1001 jobs is INVALID_REQUEST for its count; a JSON body over 64 KiB elsewhere is REQUEST_TOO_LARGE', async () => {
    const { server, pro } = await batchServer(5000);
    const job = { fileKey: 'uploads/x', sourceFormat: 'png', targetFormat: 'webp', fileSize: 10 };
    const tooMany = await batch(
      server,
      pro,
      Array.from({ length: 1001 }, () => job),
    );
    expectError(tooMany, 400, 'INVALID_REQUEST');
    const huge = await call(server, 'POST', '/api/jobs/create', {
      ...pro,
      json: { ...job, options: { padding: 'x'.repeat(70 * 1024) } },
    });
    expectError(huge, 413, 'REQUEST_TOO_LARGE');
  });
});
