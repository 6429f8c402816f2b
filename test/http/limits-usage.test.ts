/**
 * GET /api/usage over a real port: the caller's plan, its limits, what it has used and when each
 * window resets, for the Free tier (counted per client IP) and for a keyed account (counted per
 * account, wherever it calls from).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createMemoryKeyStore } from '../../src/adapters/keys/memory.js';
import { createApiKey } from '../../src/core/policy/api-keys.js';
import { GB, MB } from '../../src/core/policy/plans.js';
import {
  type CallOptions,
  call,
  fixture,
  movableClock,
  startServer,
  type TestServer,
  uploadA,
} from './harness.js';

const RATE_LIMITS = [
  { name: 'upload', limit: 20, windowSeconds: 60, scope: 'ip' },
  { name: 'default', limit: 60, windowSeconds: 60, scope: 'ip' },
];
/** Plus's own rates, counted per account. */
const PLUS_RATE_LIMITS = [
  { name: 'upload-account', limit: 60, windowSeconds: 60, scope: 'account' },
  { name: 'default-account', limit: 300, windowSeconds: 60, scope: 'account' },
];
const NOT_LIMITED = { limit: null, used: null, remaining: null, resetAt: null };

async function usageServer() {
  const clock = movableClock('2026-11-22T10:30:00.000Z');
  const counters = createMemoryCounterStore({ now: clock.now });
  const keys = createMemoryKeyStore();
  const server = await startServer({ clock, router: { counters, keys } });
  return { server, clock, keys };
}

async function usage(server: TestServer, caller: CallOptions) {
  const response = await call(server, 'GET', '/api/usage', caller);
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('cache-control')).toBe('no-store');
  return response.body;
}

/** Uploads the PNG fixture once and converts it `count` times through Flow A. */
async function convertTimes(server: TestServer, caller: CallOptions, count: number): Promise<void> {
  const png = await fixture('fixture.png');
  const granted = await uploadA(server, png, 'u.png', 'image/png', caller);
  for (let n = 0; n < count; n++) {
    const created = await call(server, 'POST', '/api/jobs/create', {
      ...caller,
      json: { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: png.length },
    });
    expect(created.status, created.text).toBe(200);
  }
}

describe('GET /api/usage', () => {
  it('Free: the plan, its limits and the use of this IP, with the next UTC midnight as reset', async () => {
    const { server } = await usageServer();
    const one = { localAddress: '127.0.0.1' };
    const two = { localAddress: '127.0.0.2' };
    expect(await usage(server, one)).toEqual({
      account: null,
      plan: {
        name: 'free',
        label: 'Free',
        conversionsPerDay: 5,
        maxFileBytes: 25 * MB,
        filesPerHour: null,
        uploadBytesPerHour: 100 * MB,
        uploadRetentionSeconds: 900,
        maxWorkPixels: 10_000_000_000,
        maxMediaSeconds: 600,
        maxDocumentPages: 100,
        apiCallsPerMonth: null,
        priority: 0,
        batch: false,
        maxBatchJobs: 0,
        uploadRequestsPerMinute: 20,
        requestsPerMinute: 60,
      },
      // No apiCalls: Free callers have no key to meter. No hourly file limit by default.
      quotas: {
        conversions: { limit: 5, used: 0, remaining: 5, resetAt: '2026-11-23T00:00:00.000Z' },
        files: NOT_LIMITED,
        uploadBytes: { limit: 100 * MB, used: 0, remaining: 100 * MB, resetAt: '2026-11-22T11:00:00.000Z' },
      },
      rateLimits: RATE_LIMITS,
    });
    await convertTimes(server, one, 2);
    const used = await usage(server, one);
    expect(used.quotas.conversions).toMatchObject({ used: 2, remaining: 3 });
    // The upload's bytes count against the hour's byte budget.
    const png = await fixture('fixture.png');
    expect(used.quotas.uploadBytes).toMatchObject({ used: png.length, remaining: 100 * MB - png.length });
    // Another IP is another Free client.
    expect((await usage(server, two)).quotas.conversions).toMatchObject({ used: 0, remaining: 5 });
  });

  it('a keyed account: its plan, API calls of the month and conversions of the day, wherever it calls from', async () => {
    const { server, clock, keys } = await usageServer();
    const { key } = await createApiKey(keys, { accountId: 'acct-u', plan: 'plus' });
    const here = { localAddress: '127.0.0.1', headers: { authorization: `Bearer ${key}` } };
    const there = { localAddress: '127.0.0.9', headers: here.headers };
    const first = await usage(server, here);
    expect(first.account).toBe('acct-u');
    expect(first.plan).toMatchObject({
      name: 'plus',
      label: 'Plus',
      conversionsPerDay: 100,
      maxFileBytes: 100 * MB,
      apiCallsPerMonth: 1000,
      priority: 5,
      batch: false,
      uploadRequestsPerMinute: 60,
      requestsPerMinute: 300,
    });
    // The usage request is itself an API call, counted before the answer is made.
    expect(first.quotas).toEqual({
      conversions: { limit: 100, used: 0, remaining: 100, resetAt: '2026-11-23T00:00:00.000Z' },
      files: NOT_LIMITED,
      uploadBytes: { limit: 2 * GB, used: 0, remaining: 2 * GB, resetAt: '2026-11-22T11:00:00.000Z' },
      apiCalls: { limit: 1000, used: 1, remaining: 999, resetAt: '2026-12-01T00:00:00.000Z' },
    });
    // The plan's rates, counted per account, not the IP's.
    expect(first.rateLimits).toEqual(PLUS_RATE_LIMITS);

    await convertTimes(server, here, 3); // grant, PUT (not keyed: the signature is the credential), 3 jobs
    const after = await usage(server, there);
    expect(after.quotas.conversions).toMatchObject({ used: 3, remaining: 97 });
    expect(after.quotas.apiCalls).toMatchObject({ used: 6, remaining: 994 });
    // The account's conversions are not the IP's: Free use from the same address is untouched.
    expect((await usage(server, { localAddress: '127.0.0.1' })).quotas.conversions.used).toBe(0);

    // Next day: conversions reset, API calls go on until the month ends.
    clock.set('2026-11-23T00:00:00.000Z');
    const tomorrow = await usage(server, here);
    expect(tomorrow.quotas.conversions).toEqual({
      limit: 100,
      used: 0,
      remaining: 100,
      resetAt: '2026-11-24T00:00:00.000Z',
    });
    expect(tomorrow.quotas.apiCalls.used).toBe(7);
  });

  it('Pro reports unlimited conversions; without counters nothing is counted', async () => {
    const { server, keys } = await usageServer();
    const { key } = await createApiKey(keys, { accountId: 'acct-p', plan: 'pro' });
    const pro = await usage(server, { headers: { authorization: `Bearer ${key}` } });
    expect(pro.quotas.conversions).toEqual(NOT_LIMITED);
    expect(pro.quotas.apiCalls).toMatchObject({ limit: 10_000, used: 1 });

    const uncounted = await startServer({ jobStore: 'memory' });
    const free = await usage(uncounted, {});
    expect(free.plan.conversionsPerDay).toBe(5);
    expect(free.quotas).toEqual({ conversions: NOT_LIMITED, files: NOT_LIMITED, uploadBytes: NOT_LIMITED });
  });
});
