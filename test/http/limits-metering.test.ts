/**
 * Metering over a real port: what /api/usage counts after requests and jobs that fail part-way.
 * A request's charges are one unit of work (an upload grant, a tus creation or a multipart
 * grant refused on its bytes gives its file back too, as a Flow B upload always did), and a job
 * that fails is charged by whose fault it was: an input that spins until its time budget stops
 * it stays charged, with the CPU it used on the job, while a missing engine or a deadline spent
 * waiting for a busy engine is given back. The Meter itself: settled tickets stay, the rest goes
 * back when the request fails, and a refund the counters refuse never hides the request's error.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createFsStorage } from '../../src/adapters/storage/fs.js';
import { createGhostscriptConverter } from '../../src/converters/vector/index.js';
import { abortError, awaitingEngine } from '../../src/core/abort.js';
import { FileconvError } from '../../src/core/errors.js';
import { quotaSlot } from '../../src/core/policy/limits.js';
import { definePlans } from '../../src/core/policy/plans.js';
import type { Converter, CounterStore } from '../../src/index.js';
import { COMMAND_TOOLS } from '../../src/kit/command-tools.js';
import type { AccessSettings } from '../../src/service/access.js';
import { openMeter, settleJobCharges } from '../../src/service/metering.js';
import { GS } from '../converters/vector-helpers.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  type ApiResponse,
  call,
  expectError,
  fixture,
  type MovableClock,
  movableClock,
  type StartOptions,
  startServer,
  type TestServer,
  uploadA,
} from './harness.js';
import { createTusUpload } from './tus-helpers.js';

const FROM = { localAddress: '127.0.0.1' };

async function meteredServer(clock: MovableClock, options: StartOptions = {}) {
  const counters = createMemoryCounterStore({ now: clock.now });
  return startServer({
    clock,
    ...options,
    router: { counters, ...options.router },
    engine: { onJobSettled: settleJobCharges(counters, clock.now), ...options.engine },
  });
}

async function used(server: TestServer, quota: 'files' | 'uploadBytes' | 'conversions'): Promise<number> {
  const usage = await call(server, 'GET', '/api/usage', FROM);
  expect(usage.status, usage.text).toBe(200);
  return usage.body.quotas[quota].used;
}

describe('one request, one unit of work: a refused byte budget gives the file back', () => {
  // An hourly file quota (off by default) to see the file charge, and a 1000-byte budget.
  const plans = definePlans({ free: { filesPerHour: 10, uploadBytesPerHour: 1000 } });
  const start = () => meteredServer(movableClock('2026-11-22T12:00:00.000Z'), { router: { plans } });

  /** Asks for 600 bytes twice: the first fits, the second is refused on the bytes. */
  async function twice(server: TestServer, ask: () => Promise<ApiResponse>, ok: number) {
    expect((await ask()).status).toBe(ok);
    expect([await used(server, 'files'), await used(server, 'uploadBytes')]).toEqual([1, 600]);
    const refused = await ask();
    expectError(refused, 429, 'QUOTA_EXCEEDED');
    expect(refused.body.error.details.quota).toBe('uploadBytes');
    expect([await used(server, 'files'), await used(server, 'uploadBytes')]).toEqual([1, 600]);
  }

  it('Flow A: POST /api/files/get-upload-url', async () => {
    const server = await start();
    const ask = () =>
      call(server, 'POST', '/api/files/get-upload-url', {
        ...FROM,
        json: { fileName: 'a.png', fileSize: 600, contentType: 'image/png' },
      });
    await twice(server, ask, 200);
  });

  it('tus: POST /api/tus', async () => {
    const server = await start();
    const ask = async () => (await createTusUpload(server, 600, { caller: FROM })).response;
    await twice(server, ask, 201);
  });

  it('S3 multipart: POST /api/files/multipart', async () => {
    // A storage that says it presigns multipart uploads: the grant is refused before any presign.
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const storage = {
      ...createFsStorage({ dir: await mkdtemp(join(tmpdir(), 'fileconv-metering-')) }),
      presignedMultipart: {
        presign: async () => ({
          uploadId: 'u-1',
          partSize: 600,
          parts: [{ partNumber: 1, url: 'http://s3/p1' }],
        }),
        complete: async () => ({ size: 600 }),
        abort: async () => {},
      },
    };
    const server = await meteredServer(movableClock('2026-11-22T12:00:00.000Z'), {
      router: { plans },
      engine: { storage },
    });
    const ask = () =>
      call(server, 'POST', '/api/files/multipart', {
        ...FROM,
        json: { fileName: 'a.bin', fileSize: 600, contentType: 'application/octet-stream' },
      });
    await twice(server, ask, 200);
  });

  it('Flow B: POST /api/upload (as it always did)', async () => {
    const server = await start();
    const png = (await fixture('fixture.png')).subarray(0, 600);
    const ask = () => {
      const form = new FormData();
      form.append('file', new Blob([png], { type: 'image/png' }), 'a.png');
      return call(server, 'POST', '/api/upload', { ...FROM, body: form });
    };
    expect((await ask()).status).toBe(200);
    expect([await used(server, 'files'), await used(server, 'uploadBytes')]).toEqual([1, 600]);
    expectError(await ask(), 429, 'QUOTA_EXCEEDED');
    expect([await used(server, 'files'), await used(server, 'uploadBytes')]).toEqual([1, 600]);
  });
});

describe('Meter', () => {
  const NOW = Date.parse('2026-11-22T12:00:00.000Z');
  const plans = definePlans({ free: { filesPerHour: 10, uploadBytesPerHour: 1000 } });
  const client = { ip: '203.0.113.7', accountId: null, plan: plans.free!, owner: 'ip:203.0.113.7' };

  function metered(counters: CounterStore, told: unknown[] = []) {
    const settings: AccessSettings = {
      plans,
      keys: undefined,
      counters,
      authenticate: undefined,
      trust: () => false,
      now: () => NOW,
      onError: (error) => told.push(error),
    };
    return openMeter(settings, { client, entries: [], headers: {} });
  }

  it('settles at what was used, keeps what is settled, and gives back the rest when the request fails', async () => {
    const counters = createMemoryCounterStore({ now: () => NOW });
    const meter = metered(counters);
    const broken = new FileconvError('UNAVAILABLE', 'storage away');
    await expect(
      meter.run(async () => {
        const files = await meter.charge('files');
        const bytes = await meter.charge('uploadBytes', 900);
        await meter.settle(bytes, 300); // 600 given back now, 300 kept
        expect(files?.amount).toBe(1);
        await meter.charge('uploadBytes', 200);
        throw broken;
      }),
    ).rejects.toBe(broken);
    // The settled 300 bytes stay; the file and the later 200 bytes were given back.
    const key = (kind: 'files' | 'uploadBytes') => quotaSlot({ kind, clientKey: client.owner, now: NOW }).key;
    expect([await counters.get(key('files')), await counters.get(key('uploadBytes'))]).toEqual([0, 300]);
  });

  it("a refund the counters refuse leaves the request's own error, and the host hears of it", async () => {
    const counters = createMemoryCounterStore({ now: () => NOW });
    const away = new FileconvError('UNAVAILABLE', 'Redis away');
    const refusing: CounterStore = {
      get: (key) => counters.get(key),
      increment: async (key, amount, expiresAt) => {
        if (amount < 0) throw away;
        return counters.increment(key, amount, expiresAt);
      },
    };
    const told: unknown[] = [];
    const meter = metered(refusing, told);
    const refused = new FileconvError('INVALID_REQUEST', 'bad body');
    await expect(
      meter.run(async () => {
        await meter.charge('files');
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(told).toEqual([away]);
  });
});

/**
 * png -> tiff spins on the CPU, as a PostScript loop does, until its time budget stops it;
 * png -> gif finds its engine missing; png -> bmp waits its turn at a busy engine (a pool's
 * queue) until the deadline passes there. Everything else is the real sharp converter.
 */
const faulty: Converter = {
  name: 'faulty',
  edges: [
    { from: 'png', to: 'tiff', cost: 0.1 },
    { from: 'png', to: 'gif', cost: 0.1 },
    { from: 'png', to: 'bmp', cost: 0.1 },
  ],
  available: async () => ({ ok: true }),
  async convert(ctx) {
    if (ctx.to === 'gif') throw new FileconvError('ENGINE_UNAVAILABLE', 'The engine is not installed.');
    if (ctx.to === 'bmp') {
      awaitingEngine(ctx.signal);
      await sleep(60_000, undefined, { signal: ctx.signal });
      return {};
    }
    let spins = 0;
    while (!ctx.signal.aborted) {
      const until = performance.now() + 20;
      while (performance.now() < until) spins += Math.sqrt(spins + 1);
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw abortError(ctx.signal);
  },
};

describe('a failed job is charged by whose fault it was', () => {
  it('an input that spins until its time budget stays charged, with its CPU; a service fault is given back', async () => {
    const clock = movableClock('2026-11-22T12:00:00.000Z');
    const { createSharpConverter } = await import('../../src/converters/sharp/index.js');
    const server = await meteredServer(clock, {
      engine: { converters: [faulty, createSharpConverter()], timeoutMs: 1_000 },
    });
    const png = await fixture('fixture.png');
    const file = await uploadA(server, png, 'a.png', 'image/png', FROM);
    const run = async (targetFormat: string) => {
      const created = await call(server, 'POST', '/api/jobs/create', {
        ...FROM,
        json: { fileKey: file.fileKey, sourceFormat: 'png', targetFormat, fileSize: png.length },
      });
      expect(created.status, created.text).toBe(200);
      await server.engine.waitForJob(created.body.jobId);
      await sleep(50); // the job's settlement (a refund) would have happened by now
      const view = await call(server, 'GET', `/api/jobs/${created.body.jobId}`, FROM);
      return view.body;
    };

    const spun = await run('tiff');
    expect(spun.error.code).toBe('CONVERSION_TIMEOUT');
    expect(await used(server, 'conversions')).toBe(1);
    // What the spinning conversion burnt is on its job (up to its second; less on a busy machine).
    expect(spun.cpuMinutes).toBeGreaterThan(0.05 / 60);

    const missing = await run('gif');
    expect(missing.error.code).toBe('ENGINE_UNAVAILABLE');
    expect(await used(server, 'conversions')).toBe(1);

    const waited = await run('bmp');
    expect(waited.error.code).toBe('CONVERSION_TIMEOUT');
    expect(waited.error.details).toEqual({ fault: 'service' });
    expect(await used(server, 'conversions')).toBe(1);
    expect(server.serverErrors).toEqual([]);
  });
});

describeWithEngine(
  'Ghostscript',
  GS,
  COMMAND_TOOLS.gs.install,
  'an EPS that never ends (real Ghostscript)',
  () => {
    it('`{ 1 pop } loop` is stopped at its time budget and stays charged, with the CPU Ghostscript used', async () => {
      const clock = movableClock('2026-11-22T12:00:00.000Z');
      const server = await meteredServer(clock, {
        engine: { converters: [createGhostscriptConverter({ timeoutSeconds: 1 })] },
      });
      const eps = Buffer.from('%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 100 100\n{ 1 pop } loop\n');
      const file = await uploadA(server, eps, 'spin.eps', 'application/postscript', FROM);
      const created = await call(server, 'POST', '/api/jobs/create', {
        ...FROM,
        json: { fileKey: file.fileKey, sourceFormat: 'eps', targetFormat: 'pdf', fileSize: eps.length },
      });
      expect(created.status, created.text).toBe(200);
      await server.engine.waitForJob(created.body.jobId);
      await sleep(50);
      const view = await call(server, 'GET', `/api/jobs/${created.body.jobId}`, FROM);
      expect(view.body.error.code).toBe('CONVERSION_TIMEOUT');
      // Ghostscript's own CPU (measured from its process), far more than this process spent on it.
      expect(view.body.cpuMinutes).toBeGreaterThan(0.05 / 60);
      expect(await used(server, 'conversions')).toBe(1);
    });
  },
);
