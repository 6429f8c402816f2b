/**
 * The deployment of the README, as separate processes: one API node (`serve --no-worker`) and two
 * workers (`fileconv worker`) on Redis and S3 (s3rver). 100 jobs go through both flows; one
 * worker is SIGKILLed in the middle of a conversion; every job still ends `completed` once, each
 * result downloads and decodes, and no temp file or process is left behind.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
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

const JOBS = 100;

describeWithEngine(
  'redis-server',
  redisServerAvailable,
  REDIS_INSTALL_HINT,
  'API node + 2 worker processes',
  () => {
    let redis: RedisServer;
    let s3: S3rverHandle;
    const dirs: string[] = [];
    const children: ChildProcess[] = [];
    let env: NodeJS.ProcessEnv;
    let api: string;

    async function dataDir(): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), 'fileconv-nodes-'));
      dirs.push(dir);
      return dir;
    }

    function cli(args: string[]): ChildProcess {
      const child = startCliProcess(args, env, 'inherit');
      children.push(child);
      return child;
    }

    beforeAll(async () => {
      redis = await startRedisServer();
      s3 = await startS3rver();
      env = {
        ...process.env,
        REDIS_URL: redis.url,
        ...s3rverEnv(s3),
        FILECONV_SIGNING_SECRET: 'a-secret-shared-by-every-api-node-of-this-test',
        // A killed worker's job moves on after ~2-3 s instead of the production 30 s.
        FILECONV_QUEUE_LOCK_MS: '2000',
      };
      // Clients are told apart by X-Forwarded-For (the API trusts the loopback proxy), so the
      // per-IP limits of 100 jobs from one test process do not get in the way.
      const node = await startServeProcess(
        ['--no-worker', '--data', await dataDir(), '--no-log', '--trust-proxy', 'loopback'],
        env,
      );
      children.push(node.child);
      api = node.url;
    }, 60_000);

    afterAll(async () => {
      for (const child of children)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.all(children.map(exited));
      await Promise.allSettled([redis?.close(), s3?.stop()]);
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    });

    it('runs 100 jobs through both flows while a worker is SIGKILLed mid-conversion', async () => {
      const workerDirs = [await dataDir(), await dataDir()];
      const [doomed, survivor] = workerDirs.map((dir) =>
        cli(['worker', '--concurrency', '2', '--data', dir]),
      );
      // A noisy 640 x 640 image takes each AVIF encode a noticeable moment.
      const png = await sharp({
        create: {
          width: 640,
          height: 640,
          channels: 3,
          background: '#888',
          noise: { type: 'gaussian', mean: 128, sigma: 50 },
        },
      })
        .png()
        .toBuffer();
      const headersFor = (index: number) => ({ 'x-forwarded-for': `198.51.100.${index}` });
      const postJson = (path: string, index: number, body: unknown) =>
        fetch(`${api}${path}`, {
          method: 'POST',
          headers: { ...headersFor(index), 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });

      async function flowA(index: number): Promise<string> {
        const grant = (await (
          await postJson('/api/files/get-upload-url', index, {
            fileName: `a${index}.png`,
            fileSize: png.length,
            contentType: 'image/png',
          })
        ).json()) as { uploadUrl: string; fileKey: string };
        const put = await fetch(grant.uploadUrl, {
          method: 'PUT',
          headers: { 'content-type': 'image/png' },
          body: png,
        });
        expect(put.status).toBe(200);
        const created = await postJson('/api/jobs/create', index, {
          fileKey: grant.fileKey,
          sourceFormat: 'png',
          targetFormat: 'avif',
          fileSize: png.length,
        });
        expect(created.status).toBe(200);
        const { jobId } = (await created.json()) as { jobId: string };
        for (;;) {
          const polled = await fetch(`${api}/api/jobs/${jobId}`, { headers: headersFor(index) });
          // A slow machine means more polls: past the plan's per-minute limit, wait as told, as
          // a well-behaved client does.
          if (polled.status === 429) {
            await polled.body?.cancel();
            await sleep(Number(polled.headers.get('retry-after') ?? 1) * 1000);
            continue;
          }
          const job = (await polled.json()) as { status: string; downloadUrl: string };
          if (job.status === 'completed') return job.downloadUrl;
          expect(['queued', 'processing'], JSON.stringify(job)).toContain(job.status);
          await sleep(500);
        }
      }

      async function flowB(index: number): Promise<string> {
        const form = new FormData();
        form.append('file', new Blob([png]), `b${index}.png`);
        const upload = await fetch(`${api}/api/upload`, {
          method: 'POST',
          headers: headersFor(index),
          body: form,
        });
        expect(upload.status).toBe(200);
        const file = (await upload.json()) as { fileId: string; fileName: string };
        const converted = await postJson('/api/convert', index, {
          fileId: file.fileId,
          fileName: file.fileName,
          targetFormat: 'avif',
        });
        expect(converted.status, await converted.clone().text()).toBe(200);
        const { downloadId } = (await converted.json()) as { downloadId: string };
        return `${api}/api/download?id=${downloadId}`;
      }

      const results = Promise.all(
        Array.from({ length: JOBS }, (_, index) => (index % 2 === 0 ? flowA(index) : flowB(index))),
      );

      // Kill the first worker while it is converting: its private temp dir holds a work dir.
      const doomedTemp = join(workerDirs[0]!, 'tmp', String(doomed!.pid));
      let busy = false;
      for (let attempt = 0; attempt < 400 && !busy; attempt++) {
        busy = await readdir(doomedTemp).then(
          (entries) => entries.length > 0,
          () => false,
        );
        if (!busy) await sleep(50);
      }
      expect(busy, 'the worker to kill never started converting').toBe(true);
      doomed!.kill('SIGKILL');
      await exited(doomed!);

      const urls = await results;
      expect(urls).toHaveLength(JOBS);
      for (const [index, url] of urls.entries()) {
        const response = await fetch(url, { headers: headersFor(index) });
        expect(response.status, url).toBe(200);
        const meta = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
        expect([meta.format, meta.compression, meta.width]).toEqual(['heif', 'av1', 640]);
      }

      // The killed worker's leftovers go when a worker starts on its data dir again; the
      // survivor stops cleanly and leaves nothing.
      const replacement = cli(['worker', '--data', workerDirs[0]!]);
      for (let attempt = 0; attempt < 100; attempt++) {
        const entries = await readdir(join(workerDirs[0]!, 'tmp'));
        if (!entries.includes(String(doomed!.pid))) break;
        await sleep(100);
      }
      expect(await readdir(join(workerDirs[0]!, 'tmp'))).toEqual([String(replacement.pid)]);
      for (const child of [survivor!, replacement]) child.kill('SIGTERM');
      await Promise.all([exited(survivor!), exited(replacement)]);
      expect(await readdir(join(workerDirs[1]!, 'tmp', String(survivor!.pid)))).toEqual([]);
      for (const child of [doomed!, survivor!, replacement]) {
        expect(() => process.kill(child.pid!, 0)).toThrow(); // no process survives
      }
    }, 480_000);
  },
);
