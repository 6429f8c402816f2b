/**
 * fileconv/client against a real server (test/http/harness.ts: real port, real engine, sharp):
 * both flows end to end, upload progress, polling, cancel, streams from Node files, and the
 * additive endpoints.
 */
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createClient, type JobView } from '../../client/index.js';
import { fixture, startServer } from '../http/harness.js';

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(stream).arrayBuffer());
}

/** A PNG of noise, large enough (~0.7 MB) for the upload to move in many chunks. */
function noisePng(): Promise<Buffer> {
  const width = 480;
  const height = 480;
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7919 + (i >> 5) * 104729) % 251;
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

function expectIncreasingTo(values: number[], size: number): void {
  expect(values.length).toBeGreaterThan(2);
  for (let i = 1; i < values.length; i++) expect(values[i]!).toBeGreaterThanOrEqual(values[i - 1]!);
  expect(values[0]).toBe(0);
  expect(values.at(-1)).toBe(size);
}

/** Uploads fixture.png through Flow A and creates its png -> webp job; the job's id. */
async function pngToWebpJob(client: ReturnType<typeof createClient>): Promise<string> {
  const png = await fixture('fixture.png');
  const grant = await client.getUploadUrl({
    fileName: 'a.png',
    fileSize: png.length,
    contentType: 'image/png',
  });
  await client.uploadContent(grant, new Uint8Array(png));
  const { jobId } = await client.createJob({
    fileKey: grant.fileKey,
    sourceFormat: 'png',
    targetFormat: 'webp',
    fileSize: png.length,
  });
  return jobId;
}

describe('fileconv/client: Flow A', () => {
  it('convertFile: png -> webp end to end, with upload then conversion progress', async () => {
    const server = await startServer();
    const client = createClient({ baseUrl: server.url, userAgent: 'fileconv-client-test' });
    const png = await noisePng();
    const events: string[] = [];
    const loaded: number[] = [];
    const result = await client.convertFile(new Blob([png], { type: 'image/png' }), {
      fileName: 'noise.png',
      targetFormat: 'webp',
      pollIntervalMs: 20,
      onProgress: (event) => {
        events.push(event.phase);
        if (event.phase === 'upload') {
          expect(event.total).toBe(png.length);
          loaded.push(event.loaded);
        }
      },
    });
    expectIncreasingTo(loaded, png.length);
    expect(events.indexOf('convert')).toBeGreaterThan(events.lastIndexOf('upload'));
    expect(result.job.status).toBe('completed');
    expect(result.fileName).toBe('noise.webp');
    expect(result.contentType).toMatch(/^image\/webp/);
    const webp = await bytesOf(result.stream);
    expect(result.size).toBe(webp.length);
    const meta = await sharp(webp).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: 'webp',
      width: 480,
      height: 480,
    });
  });

  it('step by step: grant, PUT from a Node file stream with progress, job, polling, download', async () => {
    const server = await startServer({ start: false });
    const client = createClient({ baseUrl: server.url });
    const png = await noisePng();
    const path = join(server.root, 'input.png');
    await writeFile(path, png);

    const grant = await client.getUploadUrl({
      fileName: 'input.png',
      fileSize: png.length,
      contentType: 'image/png',
    });
    expect(grant).toMatchObject({ expiresIn: 600, contentType: 'image/png', fileSize: png.length });
    const loaded: number[] = [];
    // A Node file as a web stream: the documented way to upload from disk without buffering.
    const stream = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
    await client.uploadContent(grant, stream, { onProgress: (bytes) => loaded.push(bytes) });
    expectIncreasingTo(loaded, png.length);

    const { jobId } = await client.createJob({
      fileKey: grant.fileKey,
      sourceFormat: 'png',
      targetFormat: 'jpg',
      fileSize: png.length,
      options: { quality: 60 },
    });
    // The worker is not running yet: polling sees the queued job, then the job once it runs.
    const seen: JobView['status'][] = [];
    const waiting = client.waitForJob(jobId, { intervalMs: 20, onProgress: (job) => seen.push(job.status) });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((status) => status === 'queued')).toBe(true);
    await server.engine.start();
    const done = await waiting;
    expect(done).toMatchObject({ jobId, status: 'completed', sourceFormat: 'png', targetFormat: 'jpg' });
    expect(seen.at(-1)).toBe('completed');

    const result = await client.downloadResult(jobId);
    expect(result.fileName).toBe('input.jpg');
    expect((await sharp(await bytesOf(result.stream)).metadata()).format).toBe('jpeg');
  });

  it('cancelJob cancels a queued job; downloading it is a typed CANCELED error', async () => {
    const server = await startServer({ start: false });
    const client = createClient({ baseUrl: server.url });
    const jobId = await pngToWebpJob(client);
    expect((await client.cancelJob(jobId)).status).toBe('canceled');
    expect((await client.waitForJob(jobId)).status).toBe('canceled');
    await expect(client.downloadResult(jobId)).rejects.toMatchObject({
      name: 'FileconvApiError',
      code: 'CANCELED',
    });
  });

  it('waitForJob without onProgress is one long poll: one GET, answered when the job completes', async () => {
    const server = await startServer({ start: false });
    const gets: string[] = [];
    const counting: typeof fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if ((init?.method ?? 'GET') === 'GET' && url.includes('/api/jobs/')) gets.push(url);
      return fetch(input, init);
    };
    const client = createClient({ baseUrl: server.url, fetch: counting });
    const jobId = await pngToWebpJob(client);
    const waiting = client.waitForJob(jobId, { intervalMs: 20 });
    // The job is queued with nobody to run it for a while: a polling client would ask ~25 times.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await server.engine.start();
    expect((await waiting).status).toBe('completed');
    expect(gets).toHaveLength(1);
    expect(gets[0]).toMatch(/\?wait=\d+$/);
  });
});

describe('fileconv/client: Flow B', () => {
  it('upload (with progress), convert, download', async () => {
    const server = await startServer();
    const client = createClient({ baseUrl: server.url });
    const png = await noisePng();
    const loaded: number[] = [];
    const uploaded = await client.upload(new Uint8Array(png).buffer, {
      fileName: 'bild ä "q".png',
      contentType: 'image/png',
      onProgress: (bytes, total) => {
        expect(total).toBe(png.length);
        loaded.push(bytes);
      },
    });
    expectIncreasingTo(loaded, png.length);
    expect(uploaded).toMatchObject({ size: png.length });
    expect(uploaded.fileName).toContain('bild ä');

    const converted = await client.convert({
      fileId: uploaded.fileId,
      fileName: uploaded.fileName,
      targetFormat: 'webp',
    });
    expect(converted.outputName).toMatch(/\.webp$/);
    const result = await client.download(converted.downloadId);
    expect(result.fileName).toBe(converted.outputName);
    const webp = await bytesOf(result.stream);
    expect(result.size).toBe(webp.length);
    expect((await sharp(webp).metadata()).format).toBe('webp');
  });

  it('a File uploads under its own name', async () => {
    const server = await startServer();
    const client = createClient({ baseUrl: server.url });
    const png = await fixture('fixture.png');
    const uploaded = await client.upload(new File([png], 'own-name.png', { type: 'image/png' }));
    expect(uploaded).toMatchObject({ fileName: 'own-name.png', size: png.length });
  });
});

describe('fileconv/client: service endpoints', () => {
  it('formats, usage, health', async () => {
    const server = await startServer();
    const client = createClient({ baseUrl: `${server.url}/` });
    const formats = await client.formats();
    const png = formats.formats.find((format) => format.name === 'png');
    expect(png?.targets.map((target) => target.format)).toContain('webp');
    const usage = await client.usage();
    expect(usage.account).toBeNull();
    expect(usage.plan.name).toBe('free');
    const health = await client.health();
    expect(health.status).toBe('ok');
    expect(health.engines.some((engine) => engine.name === 'sharp' && engine.ok)).toBe(true);
  });
});
