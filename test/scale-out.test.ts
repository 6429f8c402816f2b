/**
 * Scale-out on one machine: two API nodes (`serve --no-worker`) and a worker (`fileconv worker`)
 * sharing Redis and S3 (s3rver). Flow A uploads go straight to S3 with the presigned URL, jobs
 * created on one node are converted by the worker and read on the other, Flow B works across
 * nodes, and the per-IP rate limit holds across both API nodes.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningService, startService } from '../bin/commands/serve.js';
import { type RunningWorker, startWorker } from '../bin/commands/worker.js';
import { conversionContextOf } from '../src/engine/file-converter.js';
import { describeWithEngine } from './helpers/engines.js';
import {
  REDIS_INSTALL_HINT,
  type RedisServer,
  redisServerAvailable,
  startRedisServer,
} from './helpers/redis-server.js';
import { S3RVER_CREDENTIALS, type S3rverHandle, startS3rver } from './helpers/s3rver.js';
import { fixture } from './helpers/temp.js';

describeWithEngine(
  'redis-server',
  redisServerAvailable,
  REDIS_INSTALL_HINT,
  'scale-out on Redis + S3',
  () => {
    let redis: RedisServer;
    let s3: S3rverHandle;
    let api1: RunningService;
    let api2: RunningService;
    let worker: RunningWorker;
    // Data dirs live as long as the nodes (the per-test temp helper would delete them under them).
    const dirs: string[] = [];
    const dataDir = async () => {
      const dir = await mkdtemp(join(tmpdir(), 'fileconv-scale-'));
      dirs.push(dir);
      return dir;
    };

    beforeAll(async () => {
      redis = await startRedisServer();
      s3 = await startS3rver();
      Object.assign(process.env, {
        S3_ENDPOINT: s3.endpoint,
        S3_FORCE_PATH_STYLE: 'true',
        S3_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
        FILECONV_SIGNING_SECRET: 'a-secret-shared-by-every-api-node-of-this-test',
      });
      const shared = { redisUrl: redis.url, s3Bucket: s3.bucket };
      const node = async () =>
        startService({
          ...shared,
          port: 0,
          host: '127.0.0.1',
          data: await dataDir(),
          worker: false,
          log: false,
        });
      api1 = await node();
      api2 = await node();
      worker = await startWorker({ ...shared, data: await dataDir(), concurrency: 2 });
    }, 60_000);

    afterAll(async () => {
      await Promise.allSettled([api1?.stop(), api2?.stop(), worker?.stop()]);
      await Promise.allSettled([redis?.close(), s3?.stop()]);
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    });

    async function json(
      url: string,
      body?: unknown,
    ): Promise<{ status: number; body: Record<string, unknown> }> {
      const response = await fetch(
        url,
        body === undefined
          ? {}
          : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      );
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    it('Flow A: presigned S3 upload, job on one node, result read on the other', async () => {
      const bytes = await readFile(fixture('fixture.heic'));
      const grant = await json(`${api1.url}/api/files/get-upload-url`, {
        fileName: 'photo.heic',
        fileSize: bytes.length,
        contentType: 'image/heic',
      });
      expect(grant.status).toBe(200);
      const uploadUrl = String(grant.body.uploadUrl);
      expect(uploadUrl.startsWith(s3.endpoint)).toBe(true); // straight to storage, not through the API
      const put = await fetch(uploadUrl, {
        method: 'PUT',
        headers: { 'content-type': 'image/heic' },
        body: bytes,
      });
      expect(put.status).toBe(200);
      const created = await json(`${api2.url}/api/jobs/create`, {
        fileKey: grant.body.fileKey,
        sourceFormat: 'heic',
        targetFormat: 'webp',
        fileSize: bytes.length,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const jobId = String(created.body.jobId);
      let job: Record<string, unknown> = {};
      for (
        let attempt = 0;
        attempt < 50 && job.status !== 'completed' && job.status !== 'failed';
        attempt++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 400));
        job = (await json(`${api1.url}/api/jobs/${jobId}`)).body;
      }
      expect(job.status, JSON.stringify(job.error)).toBe('completed');
      const downloadUrl = String(job.downloadUrl);
      expect(downloadUrl.startsWith(s3.endpoint)).toBe(true);
      const result = await fetch(downloadUrl);
      expect(result.status).toBe(200);
      const meta = await sharp(Buffer.from(await result.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', 64, 48]);
    });

    it('Flow B across nodes: upload on one, convert on the other, download on the first', async () => {
      const form = new FormData();
      form.append('file', new Blob([await readFile(fixture('fixture.png'))]), 'fixture.png');
      const upload = await fetch(`${api1.url}/api/upload`, { method: 'POST', body: form });
      expect(upload.status).toBe(200);
      const file = (await upload.json()) as { fileId: string; fileName: string };
      const converted = await json(`${api2.url}/api/convert`, {
        fileId: file.fileId,
        fileName: file.fileName,
        targetFormat: 'jpg',
      });
      expect(converted.status, JSON.stringify(converted.body)).toBe(200);
      const download = await fetch(`${api1.url}/api/download?id=${converted.body.downloadId}`);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('image/jpeg');
      const meta = await sharp(Buffer.from(await download.arrayBuffer())).metadata();
      expect([meta.format, meta.width]).toEqual(['jpeg', 64]);
    });

    it('the per-IP limit holds across both API nodes', async () => {
      // Upload-class requests (refused for their body, but counted), alternating between the nodes.
      const statuses: number[] = [];
      for (let index = 0; index < 22; index++) {
        const node = index % 2 === 0 ? api1 : api2;
        const response = await fetch(`${node.url}/api/files/get-upload-url`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        statuses.push(response.status);
        await response.arrayBuffer();
      }
      // The flow tests made 4 upload-class requests from this IP (fewer in this window if the minute turned).
      const refusedAt = statuses.indexOf(429);
      expect(refusedAt).toBeGreaterThanOrEqual(16);
      expect(refusedAt).toBeLessThanOrEqual(20);
      expect(statuses.slice(refusedAt).every((status) => status === 429)).toBe(true);
      expect(statuses.slice(0, refusedAt).every((status) => status === 400)).toBe(true);
    });

    it('the API nodes loaded no converter, at start, for the jobs they planned or for /api/health (the worker did)', async () => {
      for (const node of [api1, api2]) {
        const health = await fetch(`${node.url}/api/health`);
        // An API node lists no engines: its workers check their own.
        expect(await health.json()).toEqual({ status: 'ok', engines: [] });
      }
      const loaded = (running: RunningService | RunningWorker) =>
        conversionContextOf(running.engine.converter, 'test')
          .converters.loaded()
          .map((converter) => converter.name);
      expect(loaded(api1)).toEqual([]);
      expect(loaded(api2)).toEqual([]);
      expect(loaded(worker)).toContain('sharp');
    });
  },
);
