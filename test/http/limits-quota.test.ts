/**
 * The Free plan's daily conversion quota over a real port (SERVICE-SPEC 8.2: 5 per UTC day, per
 * IP): Flow A jobs and Flow B conversions count together, the 6th is 429 QUOTA_EXCEEDED with a
 * Retry-After that reaches exactly the next UTC midnight, refused requests consume nothing, and
 * a conversion that fails through the service's fault is given back while one that fails on its
 * own input (or runs until its time budget stops it) is not. A hand-moved clock stands in for the
 * day.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { FileconvError } from '../../src/core/errors.js';
import { definePlans } from '../../src/core/policy/plans.js';
import type { Converter } from '../../src/index.js';
import { settleJobCharges } from '../../src/service/metering.js';
import { truncated } from '../../src/testing/bad-inputs.js';
import {
  type ApiResponse,
  call,
  expectError,
  fixture,
  type MovableClock,
  movableClock,
  rawRequest,
  startServer,
  type TestServer,
  uploadA,
  uploadB,
} from './harness.js';

const FROM = { localAddress: '127.0.0.1' };

async function quotaServer(clock: MovableClock, converters?: Converter[]) {
  const counters = createMemoryCounterStore({ now: clock.now });
  const server = await startServer({
    clock,
    router: { counters },
    engine: {
      // A short timeout for the converter that hangs; generous enough for sharp on a busy machine.
      ...(converters ? { converters, timeoutMs: 2_000 } : {}),
      onJobSettled: settleJobCharges(counters, clock.now),
    },
  });
  return server;
}

function createJob(server: TestServer, fileKey: string, size: number, target = 'webp', source = 'png') {
  return call(server, 'POST', '/api/jobs/create', {
    ...FROM,
    json: { fileKey, sourceFormat: source, targetFormat: target, fileSize: size },
  });
}

function convert(server: TestServer, fileId: string, fileName: string, target = 'webp') {
  return call(server, 'POST', '/api/convert', { ...FROM, json: { fileId, fileName, targetFormat: target } });
}

async function conversionsUsed(server: TestServer): Promise<number> {
  const usage = await call(server, 'GET', '/api/usage', FROM);
  expect(usage.status, usage.text).toBe(200);
  return usage.body.quotas.conversions.used;
}

function quotaState(response: ApiResponse): string | undefined {
  return response.headers
    .get('ratelimit')
    ?.split(', ')
    .find((member) => member.startsWith('"conversions"'));
}

describe('Free daily conversion quota', () => {
  it('the 6th conversion of a UTC day is 429 in both flows, until exactly the next midnight', async () => {
    const clock = movableClock('2026-11-22T23:50:00.000Z');
    const server = await quotaServer(clock);
    const png = await fixture('fixture.png');
    const a = await uploadA(server, png, 'a.png', 'image/png', FROM);
    const b = await uploadB(server, png, 'b.png', FROM);
    expect(b.status, b.text).toBe(200);

    // Three through Flow A: the quota's policy is announced next to the rate limit's.
    for (let n = 1; n <= 3; n++) {
      const created = await createJob(server, a.fileKey, png.length);
      expect(created.status, created.text).toBe(200);
      expect(quotaState(created)).toBe(`"conversions";r=${5 - n};t=600`);
      expect(created.headers.get('ratelimit-policy')).toBe('"upload";q=20;w=60, "conversions";q=5;w=86400');
      expect(created.headers.get('x-ratelimit-remaining')).toBe(String(5 - n));
      expect(created.headers.get('x-ratelimit-reset')).toBe(
        String(Date.parse('2026-11-23T00:00:00Z') / 1000),
      );
    }
    // Requests refused for other reasons consume nothing, whether refused before the charge
    // (an unknown file, a wrong name) or after it (a size or format that does not match).
    expectError(await createJob(server, 'uploads/nope', png.length), 404, 'NOT_FOUND');
    expectError(await createJob(server, a.fileKey, png.length + 1), 409, 'SIZE_MISMATCH');
    expectError(await createJob(server, a.fileKey, png.length, 'webp', 'jpg'), 422, 'CONTENT_MISMATCH');
    expectError(await convert(server, b.body.fileId, 'other.png'), 400, 'INVALID_REQUEST');
    expect(await conversionsUsed(server)).toBe(3);

    // Two through Flow B make five.
    for (let n = 4; n <= 5; n++) {
      const converted = await convert(server, b.body.fileId, b.body.fileName);
      expect(converted.status, converted.text).toBe(200);
      expect(quotaState(converted)).toBe(`"conversions";r=${5 - n};t=600`);
    }
    const jobsBefore = await server.jobRecords();
    expect(jobsBefore).toHaveLength(5);

    clock.set('2026-11-22T23:59:00.000Z');
    const sixth = await createJob(server, a.fileKey, png.length);
    expectError(sixth, 429, 'QUOTA_EXCEEDED');
    expect(sixth.headers.get('retry-after')).toBe('60');
    expect(quotaState(sixth)).toBe('"conversions";r=0;t=60');
    expect(sixth.body.error.details).toMatchObject({
      quota: 'conversions',
      plan: 'free',
      limit: 5,
      remaining: 0,
      resetAt: '2026-11-23T00:00:00.000Z',
      retryAfterSeconds: 60,
    });
    const sixthB = await convert(server, b.body.fileId, b.body.fileName);
    expectError(sixthB, 429, 'QUOTA_EXCEEDED');
    expect(sixthB.headers.get('retry-after')).toBe('60');
    clock.set('2026-11-22T23:59:59.500Z');
    const last = await createJob(server, a.fileKey, png.length);
    expectError(last, 429, 'QUOTA_EXCEEDED');
    expect(last.headers.get('retry-after')).toBe('1');
    // Refusals made no jobs and used nothing.
    expect(await server.jobRecords()).toEqual(jobsBefore);
    expect(await conversionsUsed(server)).toBe(5);

    // Midnight UTC: a fresh day, in both flows.
    clock.set('2026-11-23T00:00:00.000Z');
    const fresh = await createJob(server, a.fileKey, png.length);
    expect(fresh.status, fresh.text).toBe(200);
    expect(quotaState(fresh)).toBe('"conversions";r=4;t=86400');
    expect((await convert(server, b.body.fileId, b.body.fileName)).status).toBe(200);
    expect(await conversionsUsed(server)).toBe(2);
  });

  it("a conversion failing through the service's fault is given back; one failing on its input is not", async () => {
    const clock = movableClock('2026-11-22T12:00:00.000Z');
    // png -> gif crashes, png -> tiff hangs past the engine's timeout (its engine busy with the
    // input until the deadline, as with a PostScript loop: the input's doing); both are cheaper
    // than sharp's edges so the planner picks them. Everything else is the real sharp converter.
    const broken: Converter = {
      name: 'broken',
      edges: [
        { from: 'png', to: 'gif', cost: 0.1 },
        { from: 'png', to: 'tiff', cost: 0.1 },
      ],
      available: async () => ({ ok: true }),
      async convert(ctx) {
        if (ctx.to === 'gif') throw new FileconvError('CONVERSION_FAILED', 'The engine crashed.');
        await sleep(60_000, undefined, { signal: ctx.signal });
        return {};
      },
    };
    const server = await quotaServer(clock, [broken, createSharpConverter()]);
    const png = await fixture('fixture.png');
    const cut = truncated(await fixture('fixture.jpg'));
    const good = await uploadA(server, png, 'a.png', 'image/png', FROM);
    const bad = await uploadA(server, cut, 'cut.jpg', 'image/jpeg', FROM);

    const settle = async (response: ApiResponse) => {
      expect(response.status, response.text).toBe(200);
      return server.engine.waitForJob(response.body.jobId);
    };
    const crashed = await settle(await createJob(server, good.fileKey, png.length, 'gif'));
    expect(crashed.error?.code).toBe('CONVERSION_FAILED');
    await expect.poll(() => conversionsUsed(server)).toBe(0);
    const hung = await settle(await createJob(server, good.fileKey, png.length, 'tiff'));
    expect(hung.error?.code).toBe('CONVERSION_TIMEOUT');
    await sleep(50); // a refund would have happened by now
    expect(await conversionsUsed(server)).toBe(1);
    const corrupt = await settle(await createJob(server, bad.fileKey, cut.length, 'png', 'jpg'));
    expect(corrupt.error?.code).toBe('CORRUPT_INPUT');
    await sleep(50); // a refund would have happened by now
    expect(await conversionsUsed(server)).toBe(2);

    // Flow B: the crash answers 500 and is given back too.
    const upload = await uploadB(server, png, 'b.png', FROM);
    const failed = await convert(server, upload.body.fileId, 'b.png', 'gif');
    expectError(failed, 500, 'CONVERSION_FAILED');
    expect(server.serverErrors.splice(0).map((error) => (error as FileconvError).code)).toEqual([
      'CONVERSION_FAILED',
    ]);
    await expect.poll(() => conversionsUsed(server)).toBe(2);

    // Three more fit (2 + 3 = 5): the two refunded failures really left the quota.
    for (let n = 0; n < 3; n++) {
      expect((await settle(await createJob(server, good.fileKey, png.length))).status).toBe('completed');
    }
    expectError(await createJob(server, good.fileKey, png.length), 429, 'QUOTA_EXCEEDED');
  });
});

describe('hourly file quota (a plan override: no plan has one by default)', () => {
  it('an upload refused for its body (too large, no file) does not use up a file of the hour', async () => {
    const clock = movableClock('2026-11-22T12:30:00.000Z');
    const counters = createMemoryCounterStore({ now: clock.now });
    const plans = definePlans({ free: { filesPerHour: 2, maxFileBytes: 16 * 1024 } });
    const server = await startServer({ clock, router: { counters, plans } });
    const png = await fixture('fixture.png');
    expect(png.length).toBeLessThan(16 * 1024);
    // Streamed past the limit (no Content-Length to refuse it by), and a body without a file.
    const tooLarge = await rawRequest(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
      body: [
        Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n\r\n'),
        Buffer.alloc(100 * 1024),
        Buffer.from('\r\n--b--\r\n'),
      ],
    });
    expect([tooLarge.status, tooLarge.json?.error?.code]).toEqual([413, 'FILE_TOO_LARGE']);
    const noFile = new FormData();
    noFile.append('comment', 'hello');
    expectError(await call(server, 'POST', '/api/upload', { ...FROM, body: noFile }), 400, 'INVALID_REQUEST');
    const usage = await call(server, 'GET', '/api/usage', FROM);
    expect(usage.body.quotas.files).toMatchObject({ limit: 2, used: 0 });
    // Two real uploads fit the hour; the third is refused until 13:00.
    for (let n = 0; n < 2; n++) expect((await uploadB(server, png, 'a.png', FROM)).status).toBe(200);
    const third = await uploadB(server, png, 'a.png', FROM);
    expectError(third, 429, 'QUOTA_EXCEEDED');
    expect(third.headers.get('retry-after')).toBe('1800');
  });
});

describe('hourly upload bytes (Free: 100 MB an hour)', () => {
  it('the fifth 25 MB upload of an hour from one IP is 429 in both flows, until the hour ends', async () => {
    const clock = movableClock('2026-11-22T12:30:00.000Z');
    const server = await quotaServer(clock);
    const MiB = 1024 * 1024;
    // A PNG signature and zeros: under the Free plan's 25 MB file limit with its multipart framing.
    const big = Buffer.alloc(25 * MiB - 4096);
    (await fixture('fixture.png')).copy(big, 0, 0, 8);
    for (let n = 0; n < 4; n++) {
      const uploaded = await uploadB(server, big, `big-${n}.png`, FROM);
      expect(uploaded.status, uploaded.text).toBe(200);
    }
    const fifth = await uploadB(server, big, 'big-4.png', FROM);
    expectError(fifth, 429, 'QUOTA_EXCEEDED');
    expect(fifth.body.error.message).toContain('100 MB of uploads per hour');
    expect(fifth.headers.get('retry-after')).toBe('1800');
    const granted = await call(server, 'POST', '/api/files/get-upload-url', {
      ...FROM,
      json: { fileName: 'big.png', fileSize: big.length, contentType: 'image/png' },
    });
    expectError(granted, 429, 'QUOTA_EXCEEDED');
    // Nothing of the refused ones was kept; a small file still fits what is left of the budget.
    expect((await server.storedFiles()).filter((name) => name.startsWith('uploads/'))).toHaveLength(4);
    const usage = await call(server, 'GET', '/api/usage', FROM);
    expect(usage.body.quotas.uploadBytes).toMatchObject({ limit: 100 * MiB, used: 4 * big.length });
    expect((await uploadB(server, await fixture('fixture.png'), 'small.png', FROM)).status).toBe(200);
    // Another address has its own budget; the next hour, this one has its own again.
    expect((await uploadB(server, big, 'other.png', { localAddress: '127.0.0.2' })).status).toBe(200);
    clock.set('2026-11-22T13:00:00.000Z');
    expect((await uploadB(server, big, 'next-hour.png', FROM)).status).toBe(200);
  });
});
