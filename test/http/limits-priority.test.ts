/**
 * Priority processing (SERVICE-SPEC 8.2: Plus and Pro have it) over a real port: with one worker
 * kept busy, Free, Plus and Pro jobs wait in the same queue, and when the worker frees up the
 * paid plans' jobs start first (Pro, then Plus, then Free; first come, first served within a
 * plan). A fake converter records the order in which conversions start.
 */
import { copyFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createMemoryKeyStore } from '../../src/adapters/keys/memory.js';
import { createApiKey } from '../../src/core/policy/api-keys.js';
import type { Converter } from '../../src/index.js';
import { type CallOptions, call, fixture, movableClock, startServer, uploadA } from './harness.js';

/** Copies png -> gif, recording each input's size (the tests give each job its own size). */
function recordingConverter(hold: { size: number; until: Promise<void> }) {
  const started: number[] = [];
  const converter: Converter = {
    name: 'recorder',
    edges: [{ from: 'png', to: 'gif', cost: 0.1 }],
    available: async () => ({ ok: true }),
    async convert(ctx) {
      const { size } = await stat(ctx.inputPath);
      started.push(size);
      if (size === hold.size) await hold.until;
      await copyFile(ctx.inputPath, ctx.outputPath);
      return { cpuMs: 1 };
    },
  };
  return { converter, started };
}

/** A server with one worker running `converter`, and a caller per plan on its own address. */
async function priorityServer(converter: Converter, start: boolean) {
  const png = await fixture('fixture.png');
  const clock = movableClock('2026-11-22T12:00:00.000Z');
  const counters = createMemoryCounterStore({ now: clock.now });
  const keys = createMemoryKeyStore();
  const server = await startServer({
    clock,
    start,
    router: { counters, keys },
    engine: { converters: [converter], concurrency: 1 },
  });
  const plus = await createApiKey(keys, { accountId: 'acct-plus', plan: 'plus' });
  const pro = await createApiKey(keys, { accountId: 'acct-pro', plan: 'pro' });
  // Each caller on its own address: the per-IP rate limits are not what these tests are about.
  const callers: Record<string, CallOptions> = {
    free: { localAddress: '127.0.0.1' },
    plus: { localAddress: '127.0.0.20', headers: { authorization: `Bearer ${plus.key}` } },
    pro: { localAddress: '127.0.0.21', headers: { authorization: `Bearer ${pro.key}` } },
  };
  /** Uploads the fixture with `padding` extra bytes (a valid PNG of its own size) and makes a job. */
  const submit = async (plan: string, padding: number) => {
    const bytes = Buffer.concat([png, Buffer.alloc(padding)]);
    const granted = await uploadA(server, bytes, `${plan}-${padding}.png`, 'image/png', callers[plan]);
    const created = await call(server, 'POST', '/api/jobs/create', {
      ...callers[plan],
      json: { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'gif', fileSize: bytes.length },
    });
    expect(created.status, created.text).toBe(200);
    return { plan, padding, size: bytes.length, jobId: created.body.jobId as string };
  };
  return { server, png, submit };
}

/** Free, Plus and Pro jobs interleaved, in submission order. */
const MIXED = [
  ['free', 1],
  ['plus', 2],
  ['free', 3],
  ['pro', 4],
  ['plus', 5],
  ['free', 6],
] as const;
/** The order they must start in: by plan priority, then first come first served. */
const BY_PRIORITY = ['pro-4', 'plus-2', 'plus-5', 'free-1', 'free-3', 'free-6'];

describe('queue priority by plan', () => {
  it('with the worker busy, waiting Pro and Plus jobs start before Free ones', async () => {
    let release = () => {};
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const png = await fixture('fixture.png');
    const { converter, started } = recordingConverter({ size: png.length, until });
    const { server, submit } = await priorityServer(converter, true);

    // A Free job occupies the only worker until released.
    const busy = await submit('free', 0);
    await expect.poll(() => started).toEqual([png.length]);
    const waiting = [];
    for (const [plan, padding] of MIXED) waiting.push(await submit(plan, padding));
    for (const job of waiting) {
      const queued = await server.engine.getJob(job.jobId);
      expect([job.plan, queued.status, queued.priority]).toEqual([
        job.plan,
        'queued',
        { free: 0, plus: 5, pro: 10 }[job.plan],
      ]);
    }

    release();
    for (const job of [busy, ...waiting]) {
      expect((await server.engine.waitForJob(job.jobId)).status).toBe('completed');
    }
    const name = new Map(waiting.map((job) => [job.size, `${job.plan}-${job.padding}`]));
    expect(started.slice(1).map((size) => name.get(size))).toEqual(BY_PRIORITY);
  });

  it('jobs queued before the worker starts run by priority too', async () => {
    const { converter, started } = recordingConverter({ size: -1, until: Promise.resolve() });
    const { server, submit } = await priorityServer(converter, false);
    const waiting = [];
    for (const [plan, padding] of MIXED) waiting.push(await submit(plan, padding));
    await server.engine.start();
    for (const job of waiting) {
      expect((await server.engine.waitForJob(job.jobId)).status).toBe('completed');
    }
    const name = new Map(waiting.map((job) => [job.size, `${job.plan}-${job.padding}`]));
    // Each job converted once, although the start re-enqueued the jobs it found queued.
    expect(started.map((size) => name.get(size))).toEqual(BY_PRIORITY);
  });
});
