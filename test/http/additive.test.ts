/**
 * The additive endpoints (GET /api/formats, GET /api/health, DELETE /api/jobs/{id}) and result
 * expiry: a discarded or swept result is gone (status expired, download 410 RESULT_EXPIRED).
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createFfmpegConverter } from '../../src/converters/ffmpeg/index.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import {
  call,
  expectAlive,
  expectError,
  fixture,
  pollJob,
  rawRequest,
  startServer,
  uploadA,
  uploadB,
} from './harness.js';

describe('GET /api/formats and /api/health', () => {
  it('lists jpg with webp among its targets and the options JSON schema', async () => {
    const server = await startServer();
    const response = await call(server, 'GET', '/api/formats');
    expect(response.status).toBe(200);
    const jpg = response.body.formats.find((format: { name: string }) => format.name === 'jpg');
    expect(jpg).toMatchObject({ name: 'jpg', family: expect.any(String) });
    expect(jpg.extensions).toContain('jpg');
    expect(jpg.mimeTypes).toContain('image/jpeg');
    const webp = jpg.targets.find((target: { format: string }) => target.format === 'webp');
    expect(webp).toBeDefined();
    expect(webp.options).toMatchObject({ type: 'object', properties: expect.any(Object) });
    expect(webp.options.properties.quality).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(webp.options.properties.width).toMatchObject({ type: 'integer' });
    // Lossiness and route: jpg -> webp is a lossy encode; jpg -> png keeps every pixel.
    expect(webp).toMatchObject({ lossy: true, path: ['jpg', 'webp'], converters: ['sharp'] });
    const png = jpg.targets.find((target: { format: string }) => target.format === 'png');
    expect(png).toMatchObject({ lossy: false, path: ['jpg', 'png'] });
    // Only conversions that can run here are listed.
    expect(jpg.targets.map((target: { format: string }) => target.format)).not.toContain('mp3');
  });

  it('is compressed for a client that accepts it, identical once decoded; identity otherwise', async () => {
    const server = await startServer();
    const url = `${server.url}/api/formats`;
    const plain = await rawRequest(url, { method: 'GET' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(plain.headers['content-length'] ?? plain.body.length)).toBe(plain.body.length);
    const gzipped = await rawRequest(url, { method: 'GET', headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(gzipped.headers['content-length'])).toBe(gzipped.body.length);
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 5);
    // br where both are accepted; gzip;q=0 is a refusal, not a preference.
    const br = await rawRequest(url, { method: 'GET', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    const refused = await rawRequest(url, { method: 'GET', headers: { 'accept-encoding': 'gzip;q=0' } });
    expect(refused.headers['content-encoding']).toBeUndefined();
    // HEAD tells what GET would send.
    const head = await rawRequest(url, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.headers['content-length']).toBe(gzipped.headers['content-length']);
    expect(head.body.length).toBe(0);
    // Small answers are not worth it.
    const health = await rawRequest(`${server.url}/api/health`, {
      method: 'GET',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(health.body.length).toBeLessThan(1024);
    expect(health.headers['content-encoding']).toBeUndefined();
  });

  it('is cacheable: a strong ETag per coding, 304 on If-None-Match', async () => {
    const server = await startServer();
    const url = `${server.url}/api/formats`;
    const plain = await rawRequest(url, { method: 'GET' });
    const etag = String(plain.headers.etag);
    expect(etag).toMatch(/^"[\w-]{20,}"$/);
    expect(plain.headers['cache-control']).toBe('public, max-age=300');
    const gzipped = await rawRequest(url, { method: 'GET', headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers.etag).toBe(`${etag.slice(0, -1)}-gzip"`);
    // The same body again: the same tag.
    expect((await rawRequest(url, { method: 'GET' })).headers.etag).toBe(etag);

    const revalidated = await rawRequest(url, { method: 'GET', headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    expect(revalidated.headers.etag).toBe(etag);
    expect(revalidated.headers['cache-control']).toBe('public, max-age=300');
    // A cache holding the gzip'd copy revalidates it with its own tag.
    const coded = await rawRequest(url, {
      method: 'GET',
      headers: { 'if-none-match': String(gzipped.headers.etag), 'accept-encoding': 'gzip' },
    });
    expect(coded.status).toBe(304);
    expect(coded.headers.etag).toBe(gzipped.headers.etag);
    expect(coded.headers.vary).toMatch(/accept-encoding/i);
    // Another tag: the whole list.
    const stale = await rawRequest(url, { method: 'GET', headers: { 'if-none-match': '"something-else"' } });
    expect(stale.status).toBe(200);
    expect(stale.body.equals(plain.body)).toBe(true);
  });

  it('lists no audio target for a still image, and refuses such a job when it is created', async () => {
    // sharp writes gif, ffmpeg turns gif into mp4 and mp4 into mp3: three steps, no sound.
    const server = await startServer({
      engine: { converters: [createSharpConverter(), createFfmpegConverter()] },
    });
    const response = await call(server, 'GET', '/api/formats');
    const targetsOf = (name: string): string[] =>
      response.body.formats
        .find((format: { name: string }) => format.name === name)
        .targets.map((target: { format: string }) => target.format);
    for (const image of ['png', 'jpg', 'webp', 'gif']) {
      expect(targetsOf(image), image).toContain('mp4');
      for (const audio of ['mp3', 'wav', 'flac', 'ogg']) expect(targetsOf(image), image).not.toContain(audio);
    }
    expect(targetsOf('mp4')).toContain('mp3');

    const bytes = await fixture('fixture.png');
    const granted = await uploadA(server, bytes, 'a.png', 'image/png');
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'mp3', fileSize: bytes.length },
    });
    expectError(created, 422, 'UNSUPPORTED_CONVERSION');
    const uploaded = await uploadB(server, bytes, 'b.png');
    const converted = await call(server, 'POST', '/api/convert', {
      json: { fileId: uploaded.body.fileId, fileName: 'b.png', targetFormat: 'wav' },
    });
    expectError(converted, 422, 'UNSUPPORTED_CONVERSION');
  });

  it('health answers ok with the converters', async () => {
    const server = await startServer();
    const response = await call(server, 'GET', '/api/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body.status).toBe('ok');
    expect(response.body.engines).toContainEqual(expect.objectContaining({ name: 'sharp', ok: true }));
  });
});

describe('DELETE /api/jobs/{jobId}', () => {
  it('cancels a queued job (no worker running)', async () => {
    const server = await startServer({ start: false });
    const bytes = await fixture('fixture.png');
    const granted = await uploadA(server, bytes, 'a.png', 'image/png');
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: bytes.length },
    });
    const jobId = created.body.jobId as string;
    expect((await call(server, 'GET', `/api/jobs/${jobId}`)).body.status).toBe('queued');

    const deleted = await call(server, 'DELETE', `/api/jobs/${jobId}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toMatchObject({ jobId, status: 'canceled', downloadUrl: null });
    const after = await call(server, 'GET', `/api/jobs/${jobId}`);
    expect(after.body).toMatchObject({ status: 'canceled', downloadUrl: null });
    // The worker starting later skips it.
    await server.engine.start();
    expect((await pollJob(server, jobId)).status).toBe('canceled');
    const download = await call(server, 'GET', `/api/download?id=${jobId}`);
    expectError(download, 409, 'INVALID_STATE');
  });

  it('deletes a completed job\u2019s result: the job reads expired and downloads are 410', async () => {
    const server = await startServer();
    const bytes = await fixture('fixture.png');
    const granted = await uploadA(server, bytes, 'a.png', 'image/png');
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: bytes.length },
    });
    const jobId = created.body.jobId as string;
    const job = await pollJob(server, jobId);
    expect(job.status).toBe('completed');
    // One result key per attempt: results/<jobId>/<attempt>.
    expect(await server.storedFiles()).toContain(`results/${jobId}/1`);

    const deleted = await call(server, 'DELETE', `/api/jobs/${jobId}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toMatchObject({ jobId, status: 'expired', downloadUrl: null });
    expect((await server.storedFiles()).filter((file) => file.startsWith(`results/${jobId}`))).toEqual([]);

    const after = await call(server, 'GET', `/api/jobs/${jobId}`);
    expect(after.body).toMatchObject({ status: 'expired', downloadUrl: null });
    expectError(await call(server, 'GET', job.downloadUrl), 410, 'RESULT_EXPIRED');
    expectError(await call(server, 'GET', `/api/download?id=${jobId}`), 410, 'RESULT_EXPIRED');
    // Deleting again is harmless.
    expect((await call(server, 'DELETE', `/api/jobs/${jobId}`)).body.status).toBe('expired');
    expectError(await call(server, 'DELETE', '/api/jobs/no-such-job'), 404, 'NOT_FOUND');
    await expectAlive(server);
  });
});

describe('result expiry', () => {
  it('after the retention ends and the sweep ran, both flows answer 410 RESULT_EXPIRED', async () => {
    const server = await startServer();
    const bytes = await fixture('fixture.jpg');
    // Flow A
    const granted = await uploadA(server, bytes, 'a.jpg', 'image/jpeg');
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey: granted.fileKey, sourceFormat: 'jpg', targetFormat: 'png', fileSize: bytes.length },
    });
    const job = await pollJob(server, created.body.jobId);
    expect(job.status).toBe('completed');
    expect(typeof job.expiresAt).toBe('string');
    // Flow B
    const uploaded = await uploadB(server, bytes, 'b.jpg');
    const converted = await call(server, 'POST', '/api/convert', {
      json: { fileId: uploaded.body.fileId, fileName: 'b.jpg', targetFormat: 'png' },
    });
    expect(converted.status).toBe(200);
    const downloadId = converted.body.downloadId as string;
    expect((await call(server, 'GET', `/api/download?id=${downloadId}`)).status).toBe(200);

    server.advanceClock(25 * 60 * 60 * 1000); // past the 24 h retention
    expect(await server.engine.sweepExpired()).toBeGreaterThanOrEqual(2);

    const expired = await call(server, 'GET', `/api/jobs/${job.jobId}`);
    expect(expired.body).toMatchObject({ status: 'expired', downloadUrl: null });
    expectError(await call(server, 'GET', job.downloadUrl), 410, 'RESULT_EXPIRED');
    expectError(await call(server, 'GET', `/api/download?id=${downloadId}`), 410, 'RESULT_EXPIRED');
    // Uploads and results are gone from storage.
    expect((await server.storedFiles()).filter((name) => !name.startsWith('.fileconv'))).toEqual([]);
    await expectAlive(server);
  });
});
