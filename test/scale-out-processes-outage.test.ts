/**
 * The deployment where jobs were lost, as processes: two API nodes (`serve --no-worker`) and two
 * workers (`fileconv worker`) on Redis and S3 (s3rver in this process). 16 acknowledged jobs
 * (Flow A: presigned upload, then create) are queued and running when S3 stops for 10 s. Before
 * the fix every one of them failed for good with NOT_FOUND; now none fails, and once S3 is back
 * every one completes and its result downloads and decodes. ~25 s.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithEngine } from './helpers/engines.js';
import {
  REDIS_INSTALL_HINT,
  type RedisServer,
  redisServerAvailable,
  startRedisServer,
} from './helpers/redis-server.js';
import { type S3rverHandle, s3rverEnv, startS3rver } from './helpers/s3rver.js';
import { exited, startCliProcess, startServeProcess } from './helpers/serve-process.js';

const JOBS = 16;
const OUTAGE_MS = 10_000;

interface JobView {
  status: string;
  downloadUrl?: string;
  error?: { code: string; message: string } | null;
}

describeWithEngine(
  'redis-server',
  redisServerAvailable,
  REDIS_INSTALL_HINT,
  'two API nodes + two worker processes while S3 is away',
  () => {
    let redis: RedisServer;
    let s3: S3rverHandle;
    const dirs: string[] = [];
    const children: ChildProcess[] = [];
    let env: NodeJS.ProcessEnv;
    const apis: string[] = [];

    async function dataDir(): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), 'fileconv-outage-'));
      dirs.push(dir);
      return dir;
    }

    function cli(args: string[]): ChildProcess {
      // Workers report each outage on stderr; the test's output stays readable without it.
      const child = startCliProcess(args, env, 'ignore');
      children.push(child);
      return child;
    }

    beforeAll(async () => {
      redis = await startRedisServer({ persistent: true });
      s3 = await startS3rver();
      env = {
        ...process.env,
        REDIS_URL: redis.url,
        ...s3rverEnv(s3),
        FILECONV_SIGNING_SECRET: 'a-secret-shared-by-every-api-node-of-this-test',
      };
      for (let node = 0; node < 2; node++) {
        // Clients are told apart by X-Forwarded-For, so per-IP limits do not get in the way.
        const api = await startServeProcess(
          ['--no-worker', '--data', await dataDir(), '--no-log', '--trust-proxy', 'loopback'],
          env,
        );
        children.push(api.child);
        apis.push(api.url);
      }
    }, 120_000);

    afterAll(async () => {
      for (const child of children)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.all(children.map(exited));
      await Promise.allSettled([redis?.close(), s3?.stop()]);
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    });

    it('S3 stopped for 10 s under 16 acknowledged jobs: every one completes and decodes', async () => {
      // A noisy image makes each WebP encode take a moment, so jobs are running at the cut.
      const png = await sharp({
        create: {
          width: 1200,
          height: 900,
          channels: 3,
          background: '#888',
          noise: { type: 'gaussian', mean: 128, sigma: 50 },
        },
      })
        .png()
        .toBuffer();
      const headersFor = (index: number) => ({ 'x-forwarded-for': `198.51.100.${index + 1}` });
      const apiFor = (index: number) => apis[index % apis.length]!;
      const postJson = async (index: number, path: string, body: unknown) => {
        const response = await fetch(`${apiFor(index)}${path}`, {
          method: 'POST',
          headers: { ...headersFor(index), 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(response.status, await response.clone().text()).toBe(200);
        return (await response.json()) as Record<string, string>;
      };
      const getJob = async (index: number, jobId: string): Promise<JobView> => {
        for (;;) {
          const response = await fetch(`${apiFor(index + 1)}/api/jobs/${jobId}`, {
            headers: headersFor(index),
          });
          // Past the per-IP limit (60/min) on a slow machine: wait as told, as a client should.
          if (response.status === 429) {
            await response.body?.cancel();
            await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
            continue;
          }
          expect(response.status).toBe(200);
          return (await response.json()) as JobView;
        }
      };

      // All acknowledged before any worker runs: 16 jobs queued.
      const jobIds: string[] = [];
      for (let index = 0; index < JOBS; index++) {
        const grant = await postJson(index, '/api/files/get-upload-url', {
          fileName: `photo-${index}.png`,
          fileSize: png.length,
          contentType: 'image/png',
        });
        const put = await fetch(grant.uploadUrl!, {
          method: 'PUT',
          headers: { 'content-type': 'image/png' },
          body: png,
        });
        expect(put.status).toBe(200);
        const created = await postJson(index, '/api/jobs/create', {
          fileKey: grant.fileKey,
          sourceFormat: 'png',
          targetFormat: 'webp',
          fileSize: png.length,
        });
        jobIds.push(created.jobId!);
      }
      const statuses = () => Promise.all(jobIds.map(async (id, index) => (await getJob(index, id)).status));

      for (let worker = 0; worker < 2; worker++) {
        cli(['worker', '--concurrency', '2', '--data', await dataDir()]);
      }
      for (let waited = 0; !(await statuses()).includes('processing'); waited += 500) {
        expect(waited, 'no worker started converting').toBeLessThan(60_000);
        await sleep(500);
      }
      await s3.pause();
      const atOutage = await statuses();
      expect(atOutage).toContain('queued');
      const ends = Date.now() + OUTAGE_MS;
      while (Date.now() < ends) {
        expect(await statuses()).not.toContain('failed');
        await sleep(2000);
      }
      await s3.resume();

      for (const [index, id] of jobIds.entries()) {
        let job: JobView = await getJob(index, id);
        for (let waited = 0; job.status === 'queued' || job.status === 'processing'; waited += 1000) {
          expect(waited, `job ${index} did not finish`).toBeLessThan(120_000);
          await sleep(1000);
          job = await getJob(index, id);
        }
        expect(job.status, JSON.stringify(job.error)).toBe('completed');
        const result = await fetch(job.downloadUrl!);
        expect(result.status).toBe(200);
        const meta = await sharp(Buffer.from(await result.arrayBuffer())).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1200, 900]);
      }
    }, 300_000);
  },
);
