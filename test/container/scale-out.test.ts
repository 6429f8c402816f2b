/**
 * The image as the scale-out deployment runs it (compose.yaml, deploy/kubernetes): an API
 * container (`serve --no-worker`) and a worker container on Redis and S3 (redis-server and s3rver
 * on the host's loopback; the containers share the host's network). A pptx -> pdf job is created
 * on the API, converted by LibreOffice in the worker, and downloaded from the API.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { output, pdfPages } from '../helpers/content-readers.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { type S3rverHandle, s3rverEnv, startS3rver } from '../helpers/s3rver.js';
import { fixture, tempDir } from '../helpers/temp.js';
import { flowA } from './client.js';
import {
  freePort,
  IMAGE,
  imageExists,
  logs,
  podman,
  removeAll,
  startContainer,
  waitUntilReady,
} from './podman.js';

describe(`${IMAGE}: an API container and a worker container on Redis + S3`, () => {
  let redis: RedisServer;
  let s3: S3rverHandle;
  let api: string;
  let apiContainer: string;
  let worker: string;

  beforeAll(async () => {
    expect(await imageExists(), `${IMAGE} is not built: run npm run image`).toBe(true);
    redis = await startRedisServer();
    s3 = await startS3rver();
    const env = {
      REDIS_URL: redis.url,
      ...s3rverEnv(s3),
      FILECONV_SIGNING_SECRET: 'one-secret-for-every-node-of-this-deployment',
    };
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    apiContainer = await startContainer({
      args: ['serve', '--no-worker'],
      env: { ...env, PORT: String(port) },
    });
    // The worker serves its metrics, as compose.yaml and the Kubernetes example have it do.
    const metrics = await freePort();
    worker = await startContainer({
      args: ['worker'],
      env: { ...env, FILECONV_METRICS_PORT: String(metrics) },
    });
    await waitUntilReady(`${api}/api/ready`, apiContainer);
    await waitUntilReady(`http://127.0.0.1:${metrics}/metrics`, worker);
  }, 180_000);

  afterAll(async () => {
    await removeAll();
    await Promise.allSettled([redis?.close(), s3?.stop()]);
  }, 60_000);

  it('converts a pptx to PDF across the two containers', async () => {
    const { bytes } = await flowA(api, fixture('fixture.pptx'), 'pdf').catch(async (error: Error) => {
      throw new Error(`${error.message}\nthe worker's log:\n${await logs(worker)}`);
    });
    const path = join(await tempDir(), 'slides.pdf');
    await writeFile(path, bytes);
    expect(await pdfPages(path)).toBe(2);
    expect(await output('pdfinfo', [path])).toMatch(/Producer:\s+LibreOffice/);
  }, 300_000);

  it("is healthy by the image's HEALTHCHECK on both containers (the worker's asks its metrics)", async () => {
    for (const container of [apiContainer, worker]) await podman(['healthcheck', 'run', container]);
    // The check really asks: pointed at a port nobody serves, it fails.
    const nobody = String(await freePort());
    await expect(
      podman([
        'exec',
        '-e',
        `FILECONV_METRICS_PORT=${nobody}`,
        worker,
        'node',
        '/opt/fileconv/healthcheck.mjs',
      ]),
    ).rejects.toThrow(/metrics/);
    await expect(
      podman(['exec', '-e', `PORT=${nobody}`, apiContainer, 'node', '/opt/fileconv/healthcheck.mjs']),
    ).rejects.toThrow(/api\/ready/);
  });
});
