/**
 * Both flows of the service specification end to end over a real port, with the router mounted
 * under /v1: every response field's type and value, and results that decode to what was asked.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  call,
  expectError,
  fixture,
  grant,
  pollJob,
  put,
  startServer,
  type TestServer,
  uploadA,
  uploadB,
} from './harness.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Runs Flow A for one file and returns the completed job and the downloaded bytes. */
async function flowA(
  server: TestServer,
  input: { fixture: string; fileName: string; contentType: string; source: string; target: string },
  options?: Record<string, unknown>,
) {
  const bytes = await fixture(input.fixture);

  // 4.1 upload grant
  const granted = await call(server, 'POST', '/api/files/get-upload-url', {
    json: { fileName: input.fileName, fileSize: bytes.length, contentType: input.contentType },
  });
  expect(granted.status, granted.text).toBe(200);
  expect(Object.keys(granted.body).sort()).toEqual(['expiresIn', 'fileId', 'fileKey', 'uploadUrl']);
  const { uploadUrl, fileKey, fileId, expiresIn } = granted.body;
  expect(typeof uploadUrl).toBe('string');
  expect(typeof fileKey).toBe('string');
  expect(typeof fileId).toBe('string');
  expect(fileKey).not.toBe('');
  expect(fileId).not.toBe('');
  expect(expiresIn).toBe(600);
  // An absolute URL back into the mounted router: the prefix is kept.
  expect(new URL(uploadUrl).href).toBe(uploadUrl);
  expect(uploadUrl.startsWith(`${server.url}/api/files/`)).toBe(true);

  // 4.2 PUT the bytes: 200, empty body
  const stored = await put(uploadUrl, bytes, input.contentType);
  expect(stored.status, stored.text).toBe(200);
  expect(stored.text).toBe('');

  // 4.3 create the job
  const created = await call(server, 'POST', '/api/jobs/create', {
    json: {
      fileKey,
      sourceFormat: input.source,
      targetFormat: input.target,
      fileSize: bytes.length,
      ...(options ? { options } : {}),
    },
  });
  expect(created.status, created.text).toBe(200);
  expect(Object.keys(created.body)).toEqual(['jobId']);
  expect(typeof created.body.jobId).toBe('string');
  const { jobId } = created.body as { jobId: string };

  // 4.4 poll until completed
  const job = await pollJob(server, jobId);
  expect(job.status, JSON.stringify(job.error)).toBe('completed');
  expect(job.jobId).toBe(jobId);
  expect(job.error).toBeNull();
  expect(job.sourceFormat).toBe(input.source);
  expect(job.targetFormat).toBe(input.target);
  expect(typeof job.fileName).toBe('string');
  expect(typeof job.cpuMinutes).toBe('number');
  expect(job.cpuMinutes).toBeGreaterThanOrEqual(0);
  expect(job.createdAt).toMatch(ISO);
  expect(job.completedAt).toMatch(ISO);
  expect(Date.parse(job.completedAt)).toBeGreaterThanOrEqual(Date.parse(job.createdAt));
  expect(typeof job.downloadUrl).toBe('string');
  expect(job.downloadUrl.startsWith(`${server.url}/`)).toBe(true);

  // A plain GET of downloadUrl: no headers, no credentials.
  const download = await fetch(job.downloadUrl);
  expect(download.status).toBe(200);
  const result = Buffer.from(await download.arrayBuffer());
  expect(download.headers.get('content-length')).toBe(String(result.length));
  expect(job.outputSize).toBe(result.length);
  expect(await server.tempLeftovers()).toEqual([]);
  return { job, result, download };
}

describe('Flow A: upload grant, PUT, job, polling, download', () => {
  it('heic -> webp', async () => {
    const server = await startServer();
    const { job, result, download } = await flowA(server, {
      fixture: 'fixture.heic',
      fileName: 'photo.heic',
      contentType: 'image/heic',
      source: 'heic',
      target: 'webp',
    });
    expect(job.fileName).toBe('photo.heic');
    expect(job.outputName).toBe('photo.webp');
    expect(download.headers.get('content-type')).toBe('image/webp');
    const meta = await sharp(result).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 64, 48]);
  });

  it('png -> jpg with options { quality, width }', async () => {
    const server = await startServer();
    const input = {
      fixture: 'fixture.png',
      fileName: 'shot.png',
      contentType: 'image/png',
      source: 'png',
      target: 'jpg',
    };
    const small = await flowA(server, input, { quality: 30, width: 32 });
    const meta = await sharp(small.result).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 32, 24]);
    expect(small.download.headers.get('content-type')).toBe('image/jpeg');
    expect(small.job.outputName).toBe('shot.jpg');
    // quality reached the encoder: the same width at quality 95 is larger.
    const fine = await flowA(server, input, { quality: 95, width: 32 });
    expect(fine.result.length).toBeGreaterThan(small.result.length);
  });

  it('animated gif -> webp keeps its 3 frames', async () => {
    const server = await startServer();
    const { result } = await flowA(server, {
      fixture: 'fixture.gif',
      fileName: 'anim.gif',
      contentType: 'image/gif',
      source: 'gif',
      target: 'webp',
    });
    const meta = await sharp(result, { animated: true }).metadata();
    expect([meta.format, meta.pages, meta.width, meta.pageHeight]).toEqual(['webp', 3, 32, 24]);
  });

  it('svg -> png', async () => {
    const server = await startServer();
    const { result, download } = await flowA(server, {
      fixture: 'fixture.svg',
      fileName: 'logo.svg',
      contentType: 'image/svg+xml',
      source: 'svg',
      target: 'png',
    });
    expect(download.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(result).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 64, 48]);
  });

  it('a name with non-ASCII characters and quotes downloads with a safe filename* disposition', async () => {
    const server = await startServer();
    const bytes = await fixture('fixture.png');
    const name = 'Ünïcödé "quoted" 日本.png';
    const granted = await uploadA(server, bytes, name, 'image/png');
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'jpg', fileSize: bytes.length },
    });
    const job = await pollJob(server, created.body.jobId);
    expect(job.status).toBe('completed');
    // Double quotes are dropped from names (they would break the header), the rest is kept.
    expect(job.fileName).toBe('Ünïcödé quoted 日本.png');
    expect(job.outputName).toBe('Ünïcödé quoted 日本.jpg');
    const download = await fetch(job.downloadUrl);
    expectSafeDisposition(download.headers.get('content-disposition'), job.outputName);
    expect((await sharp(Buffer.from(await download.arrayBuffer())).metadata()).format).toBe('jpeg');
  });
});

describe('Flow B: multipart upload, convert, download', () => {
  it('png -> webp, and jpg -> png with options', async () => {
    const server = await startServer();
    const bytes = await fixture('fixture.png');
    const uploaded = await uploadB(server, bytes, 'picture.png');
    expect(uploaded.status, uploaded.text).toBe(200);
    expect(Object.keys(uploaded.body).sort()).toEqual(['fileId', 'fileName', 'size']);
    expect(typeof uploaded.body.fileId).toBe('string');
    expect(uploaded.body.fileName).toBe('picture.png');
    expect(uploaded.body.size).toBe(bytes.length);

    const converted = await call(server, 'POST', '/api/convert', {
      json: { fileId: uploaded.body.fileId, fileName: uploaded.body.fileName, targetFormat: 'webp' },
    });
    expect(converted.status, converted.text).toBe(200);
    expect(Object.keys(converted.body).sort()).toEqual(['downloadId', 'outputName']);
    expect(typeof converted.body.downloadId).toBe('string');
    expect(converted.body.outputName).toBe('picture.webp');

    const download = await fetch(`${server.url}/api/download?id=${converted.body.downloadId}`);
    expect(download.status).toBe(200);
    const result = Buffer.from(await download.arrayBuffer());
    expect(download.headers.get('content-type')).toBe('image/webp');
    expect(download.headers.get('content-length')).toBe(String(result.length));
    expect(download.headers.get('content-disposition')).toContain('picture.webp');
    const meta = await sharp(result).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 64, 48]);

    const jpg = await fixture('fixture.jpg');
    const second = await uploadB(server, jpg, 'camera.jpg');
    expect(second.body.size).toBe(jpg.length);
    const resized = await call(server, 'POST', '/api/convert', {
      json: {
        fileId: second.body.fileId,
        fileName: 'camera.jpg',
        targetFormat: 'png',
        options: { width: 16 },
      },
    });
    expect(resized.status, resized.text).toBe(200);
    expect(resized.body.outputName).toBe('camera.png');
    const png = await fetch(`${server.url}/api/download?id=${resized.body.downloadId}`);
    expect(png.headers.get('content-type')).toBe('image/png');
    const pngMeta = await sharp(Buffer.from(await png.arrayBuffer())).metadata();
    expect([pngMeta.format, pngMeta.width, pngMeta.height]).toEqual(['png', 16, 12]);
  });

  it('keeps a UTF-8 file name with an apostrophe and serves it with filename*', async () => {
    const server = await startServer();
    const name = "l'été 日本.png";
    const uploaded = await uploadB(server, await fixture('fixture.png'), name);
    expect(uploaded.status, uploaded.text).toBe(200);
    expect(uploaded.body.fileName).toBe(name);
    const converted = await call(server, 'POST', '/api/convert', {
      json: { fileId: uploaded.body.fileId, fileName: name, targetFormat: 'gif' },
    });
    expect(converted.status, converted.text).toBe(200);
    expect(converted.body.outputName).toBe("l'été 日本.gif");
    const download = await fetch(`${server.url}/api/download?id=${converted.body.downloadId}`);
    expect(download.status).toBe(200);
    expectSafeDisposition(download.headers.get('content-disposition'), converted.body.outputName);
    expect((await sharp(Buffer.from(await download.arrayBuffer())).metadata()).format).toBe('gif');
  });

  it('removes a right-to-left override from the name, the outputName and the download header', async () => {
    const server = await startServer();
    // Shown by a browser as "invoicegpj.png" while it is a PNG named "...jpg.png" underneath.
    const name = 'invoice\u202Egpj.png';
    const uploaded = await uploadB(server, await fixture('fixture.png'), name);
    expect(uploaded.status, uploaded.text).toBe(200);
    expect(uploaded.body.fileName).toBe('invoicegpj.png');
    const converted = await call(server, 'POST', '/api/convert', {
      json: { fileId: uploaded.body.fileId, fileName: name, targetFormat: 'webp' },
    });
    expect(converted.status, converted.text).toBe(200);
    expect(converted.body.outputName).toBe('invoicegpj.webp');
    const download = await fetch(`${server.url}/api/download?id=${converted.body.downloadId}`);
    const disposition = download.headers.get('content-disposition');
    expect(disposition).toBe('attachment; filename=invoicegpj.webp');
    // What the Content-Type says, no sniffing.
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    await download.arrayBuffer();

    // Flow A: the grant's name and the job view's outputName alike.
    const bytes = await fixture('fixture.png');
    const granted = await grant(server, { fileName: name, fileSize: bytes.length, contentType: 'image/png' });
    expect((await put(granted.uploadUrl, bytes, 'image/png')).status).toBe(200);
    const job = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'jpg', fileSize: bytes.length },
    });
    expect(job.status, job.text).toBe(200);
    const view = await call(server, 'GET', `/api/jobs/${job.body.jobId}`);
    expect(view.body.fileName).toBe('invoicegpj.png');
    expect(view.body.outputName).toBe('invoicegpj.jpg');
  });

  it('strips paths from uploaded names; control characters make the part header invalid', async () => {
    const server = await startServer();
    const png = await fixture('fixture.png');
    for (const given of ['../../etc/evil.png', '..\\..\\windows\\evil.png', '/abs/evil.png']) {
      const uploaded = await uploadB(server, png, given);
      expect([given, uploaded.status, uploaded.body.fileName]).toEqual([given, 200, 'evil.png']);
    }
    // Control characters are not allowed in a header field (RFC 9110 5.5): the body is refused.
    const control = await uploadB(server, png, 'bad\u0007name\u001b.png');
    expectError(control, 400, 'INVALID_REQUEST');
    expect((await server.storedFiles()).filter((name) => name.startsWith('uploads/'))).toHaveLength(3);
  });

  it('Flow B uploads are usable by Flow A jobs of the same client and vice versa', async () => {
    const server = await startServer();
    const bytes = await fixture('fixture.webp');
    const granted = await grant(server, {
      fileName: 'a.webp',
      fileSize: bytes.length,
      contentType: 'image/webp',
    });
    expect((await put(granted.uploadUrl, bytes, 'image/webp')).status).toBe(200);
    // The grant's file, converted through Flow B by its id and name.
    const converted = await call(server, 'POST', '/api/convert', {
      json: { fileId: granted.fileId, fileName: 'a.webp', targetFormat: 'png' },
    });
    expect(converted.status, converted.text).toBe(200);
    expect(converted.body.outputName).toBe('a.png');
  });
});

/** Content-Disposition that is pure ASCII, an attachment, and whose filename* decodes to `name`. */
function expectSafeDisposition(header: string | null, name: string): void {
  expect(header).not.toBeNull();
  const value = header!;
  expect(value).toMatch(/^attachment;/);
  expect(value).toMatch(/^[\x20-\x7e]*$/);
  const ext = /filename\*=UTF-8''([^;\s]+)/i.exec(value);
  expect(ext, value).not.toBeNull();
  expect(decodeURIComponent(ext![1]!)).toBe(name);
  // The plain fallback is one well-formed quoted string.
  const plain = /filename="((?:[^"\\]|\\.)*)"/.exec(value);
  expect(plain, value).not.toBeNull();
}
