/**
 * GET /api/ready: readiness for load balancers. 200 while every port answers in time; 503 with
 * the failing check named when storage hangs or fails, when a required engine is missing, and
 * while the engine shuts down. Probes need no key and spend no rate limit.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFsStorage } from '../../src/adapters/storage/fs.js';
import { FileconvError, type Storage } from '../../src/index.js';
import { call, startServer } from './harness.js';

interface Check {
  name: string;
  ok: boolean;
  ms: number;
  error?: { code: string; message: string };
}

/** fs storage whose head() does what `head` says (hang, fail) instead of answering. */
async function storageWhere(head: 'hangs' | 'fails'): Promise<Storage> {
  const storage = createFsStorage({ dir: await mkdtemp(join(tmpdir(), 'fileconv-ready-')), fsync: false });
  return {
    ...storage,
    head: () =>
      head === 'hangs'
        ? new Promise(() => {})
        : Promise.reject(new FileconvError('UNAVAILABLE', 'The disk went away.')),
  };
}

function failing(checks: Check[]): string[] {
  return checks.filter((check) => !check.ok).map((check) => check.name);
}

describe('GET /api/ready', () => {
  it('is ready when storage, the job store and the engine answer, and spends no rate limit', async () => {
    const server = await startServer();
    const response = await call(server, 'GET', '/api/ready');
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('ready');
    expect((response.body.checks as Check[]).map((check) => check.name)).toEqual(
      expect.arrayContaining(['accepting', 'storage', 'jobs']),
    );
    expect(failing(response.body.checks)).toEqual([]);
    expect(response.headers.get('cache-control')).toBe('no-store');
    // Public: no rate-limit headers, and 100 probes in a row are never refused.
    expect(response.headers.get('ratelimit')).toBeNull();
    for (let probe = 0; probe < 100; probe++) {
      expect((await call(server, 'GET', '/api/ready')).status).toBe(200);
    }
  });

  it('names storage when it does not answer within the deadline, and when it fails', async () => {
    const hanging = await startServer({
      engine: { storage: await storageWhere('hangs') },
      router: { readiness: { timeoutMs: 200 } },
    });
    const slow = await call(hanging, 'GET', '/api/ready');
    expect(slow.status).toBe(503);
    expect(slow.headers.get('retry-after')).toBe('5');
    expect(slow.body.status).toBe('not_ready');
    expect(failing(slow.body.checks)).toEqual(['storage']);
    const storageCheck = (slow.body.checks as Check[]).find((check) => check.name === 'storage');
    expect(storageCheck?.error?.code).toBe('UNAVAILABLE');
    expect(storageCheck?.ms).toBeGreaterThanOrEqual(190);

    const broken = await startServer({ engine: { storage: await storageWhere('fails') } });
    const down = await call(broken, 'GET', '/api/ready');
    expect(down.status).toBe(503);
    expect(failing(down.body.checks)).toEqual(['storage']);
    expect((down.body.checks as Check[]).find((check) => check.name === 'storage')?.error).toEqual({
      code: 'UNAVAILABLE',
      message: 'The disk went away.',
    });
  });

  it('requires the engines the host names', async () => {
    const server = await startServer({
      router: { readiness: { requiredConverters: ['sharp', 'chromium'] } },
    });
    const response = await call(server, 'GET', '/api/ready');
    expect(response.status).toBe(503);
    expect(failing(response.body.checks)).toEqual(['converter:chromium']);
    const sharp = (response.body.checks as Check[]).find((check) => check.name === 'converter:sharp');
    expect(sharp?.ok).toBe(true);
  });

  it('names the disk when the temp dir has less room than minFreeBytes; 0 turns the check off', async () => {
    // More than any disk has: the same answer a full data dir gives (test/serve-disk-full.test.ts).
    const full = await startServer({ router: { readiness: { minFreeBytes: Number.MAX_SAFE_INTEGER } } });
    const response = await call(full, 'GET', '/api/ready');
    expect(response.status).toBe(503);
    expect(failing(response.body.checks)).toEqual(['disk']);
    const disk = (response.body.checks as Check[]).find((check) => check.name === 'disk');
    expect(disk?.error?.code).toBe('NO_SPACE');
    expect(disk?.error?.message).toMatch(/MiB free on the disk of /);
    expect((await call(full, 'GET', '/api/health')).status).toBe(200);

    const unchecked = await startServer({ router: { readiness: { minFreeBytes: 0 } } });
    const ready = await call(unchecked, 'GET', '/api/ready');
    expect(ready.status).toBe(200);
    expect((ready.body.checks as Check[]).map((check) => check.name)).not.toContain('disk');
  });

  it('is not ready once the engine is shutting down, while health still answers', async () => {
    const server = await startServer();
    // close() marks the engine as stopping before anything else: a balancer stops sending.
    const closing = server.engine.close({ graceMs: 60_000 });
    const response = await call(server, 'GET', '/api/ready');
    expect(response.status).toBe(503);
    expect(failing(response.body.checks)).toContain('accepting');
    expect((await call(server, 'GET', '/api/health')).status).toBe(200);
    await closing;
  });
});
