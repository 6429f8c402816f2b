/**
 * The tus 1.0 endpoint (/api/tus) as raw requests: discovery (OPTIONS), creation, HEAD, PATCH
 * and termination, every refusal with its status and stable code and nothing kept, owners kept
 * apart (another owner's upload is a 404 like a missing one), expiry (the plan's retention after
 * the last byte; 410, bytes dropped, also by the sweep), and a finished upload converted through
 * Flow A by its fileKey.
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createFsStorage } from '../../src/adapters/storage/fs.js';
import { rateLimitClassOf } from '../../src/core/policy/limits.js';
import { definePlans } from '../../src/core/policy/plans.js';
import { call, expectError, fixture, movableClock, pollJob, startServer } from './harness.js';
import { createTusUpload, partialFiles, TUS, tusDelete, tusHead, tusPatch } from './tus-helpers.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const bytesOf = (size: number, seed = 1) =>
  Buffer.from(Array.from({ length: size }, (_, i) => (i * seed + 7) & 0xff));
const digest = (algorithm: string, bytes: Uint8Array) => createHash(algorithm).update(bytes).digest('base64');

describe('tus discovery and protocol headers', () => {
  it("OPTIONS tells the version, the extensions, the caller's plan's largest upload and the checksums", async () => {
    const server = await startServer({ maxFileBytes: 5_000_000 });
    const options = await call(server, 'OPTIONS', '/api/tus');
    expect(options.status).toBe(204);
    expect(
      Object.fromEntries(
        ['tus-resumable', 'tus-version', 'tus-extension', 'tus-max-size', 'tus-checksum-algorithm'].map(
          (name) => [name, options.headers.get(name)],
        ),
      ),
    ).toEqual({
      'tus-resumable': '1.0.0',
      'tus-version': '1.0.0',
      'tus-extension': 'creation,creation-with-upload,termination,expiration,checksum',
      'tus-max-size': '5000000',
      'tus-checksum-algorithm': 'sha1,sha256,md5',
    });
  });

  it('refuses a request without Tus-Resumable: 1.0.0 with 412 and the versions it speaks', async () => {
    const server = await startServer();
    for (const headers of [{}, { 'tus-resumable': '0.2.2' }] as Record<string, string>[]) {
      const response = await call(server, 'POST', '/api/tus', {
        headers: { ...headers, 'upload-length': '10' },
      });
      expectError(response, 412, 'TUS_VERSION_UNSUPPORTED');
      expect(response.headers.get('tus-version')).toBe('1.0.0');
      expect(response.headers.get('tus-resumable')).toBe('1.0.0');
    }
    const { path } = await createTusUpload(server, 10);
    const patch = await call(server, 'PATCH', path, {
      headers: { 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' },
      body: bytesOf(10),
    });
    expectError(patch, 412, 'TUS_VERSION_UNSUPPORTED');
    expect((await tusHead(server, path)).headers.get('upload-offset')).toBe('0');
    expect(await server.fileRecords()).toHaveLength(1);
  });

  it('creates an upload: 201 with Location, Upload-Expires 24 h on; HEAD tells offset and length, never cached', async () => {
    // A plan that keeps uploads the engine's time: an unfinished one gets the engine's 24 h.
    const server = await startServer({
      router: { plans: definePlans({ free: { uploadRetentionSeconds: null } }) },
    });
    const before = Date.now();
    const created = await createTusUpload(server, 1234, {
      metadata: { filename: 'photo.png', filetype: 'image/png' },
    });
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('tus-resumable')).toBe('1.0.0');
    expect(created.location).toMatch(new RegExp(`^${server.url}/api/tus/[0-9a-f-]{36}$`));
    const expires = Date.parse(created.response.headers.get('upload-expires')!);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + DAY_MS - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + DAY_MS);
    const head = await tusHead(server, created.path);
    expect(head.status).toBe(200);
    expect({
      offset: head.headers.get('upload-offset'),
      length: head.headers.get('upload-length'),
      cache: head.headers.get('cache-control'),
      tus: head.headers.get('tus-resumable'),
      expires: head.headers.get('upload-expires'),
    }).toEqual({
      offset: '0',
      length: '1234',
      cache: 'no-store',
      tus: '1.0.0',
      expires: created.response.headers.get('upload-expires'),
    });
    const file = await server.engine.getFile(created.id);
    expect(file).toMatchObject({
      status: 'pending',
      fileName: 'photo.png',
      contentType: 'image/png',
      size: 1234,
      key: `uploads/${created.id}`,
    });
  });

  it("reads Uppy's name/type metadata too, and never passes on a content type that is not one", async () => {
    const server = await startServer();
    const uppy = await createTusUpload(server, 10, {
      metadata: { name: 'scan.pdf', type: 'application/pdf' },
    });
    expect(await server.engine.getFile(uppy.id)).toMatchObject({
      fileName: 'scan.pdf',
      contentType: 'application/pdf',
    });
    const odd = await createTusUpload(server, 10, {
      metadata: { filename: 'x', filetype: 'text/html\r\nx: y' },
    });
    expect((await server.engine.getFile(odd.id)).contentType).toBe('application/octet-stream');
    const bare = await createTusUpload(server, 10);
    expect(await server.engine.getFile(bare.id)).toMatchObject({
      fileName: 'upload',
      contentType: 'application/octet-stream',
    });
  });

  it('refuses creation without Upload-Length, with a deferred length or with bad metadata (400)', async () => {
    const server = await startServer();
    expectError(await call(server, 'POST', '/api/tus', { headers: TUS }), 400, 'INVALID_REQUEST');
    expectError(
      await call(server, 'POST', '/api/tus', { headers: { ...TUS, 'upload-defer-length': '1' } }),
      400,
      'INVALID_REQUEST',
    );
    expectError(
      await call(server, 'POST', '/api/tus', { headers: { ...TUS, 'upload-length': '-4' } }),
      400,
      'INVALID_REQUEST',
    );
    const badMetadata = await createTusUpload(server, 10, {
      headers: { 'upload-metadata': 'filename not*base64' },
    });
    expectError(badMetadata.response, 400, 'INVALID_REQUEST');
    expect(await server.fileRecords()).toEqual([]);
    expect(await partialFiles(server)).toEqual([]);
  });

  it("refuses an upload larger than the plan's maxFileBytes at creation (413), storing nothing", async () => {
    const server = await startServer({ maxFileBytes: 1000 });
    const created = await createTusUpload(server, 1001);
    expectError(created.response, 413, 'FILE_TOO_LARGE');
    expect(created.response.headers.get('tus-resumable')).toBe('1.0.0');
    expect(await server.fileRecords()).toEqual([]);
    expect(await partialFiles(server)).toEqual([]);
  });
});

describe('tus PATCH', () => {
  it('appends in pieces with checksums; the finished upload is an uploaded file that converts through Flow A', async () => {
    const server = await startServer();
    const png = await fixture('fixture.png');
    const { path, id } = await createTusUpload(server, png.length, {
      metadata: { filename: 'fixture.png', filetype: 'image/png' },
    });
    const half = Math.floor(png.length / 2);
    const first = await tusPatch(server, path, 0, png.subarray(0, half), {
      headers: { 'upload-checksum': `sha1 ${digest('sha1', png.subarray(0, half))}` },
    });
    expect(first.status, first.text).toBe(204);
    expect(first.headers.get('upload-offset')).toBe(String(half));
    expect(first.headers.get('tus-resumable')).toBe('1.0.0');
    expect((await server.engine.getFile(id)).status).toBe('pending');
    const second = await tusPatch(server, path, half, png.subarray(half), {
      headers: { 'upload-checksum': `sha256 ${digest('sha256', png.subarray(half))}` },
    });
    expect(second.status, second.text).toBe(204);
    expect(second.headers.get('upload-offset')).toBe(String(png.length));
    const file = await server.engine.getFile(id);
    expect(file.status).toBe('uploaded');
    expect(file.resumable).toBeUndefined();
    expect(await partialFiles(server)).toEqual([]);
    expect((await server.storedFiles()).filter((name) => name.startsWith('uploads/'))).toEqual([
      `uploads/${id}`,
    ]);
    const head = await tusHead(server, path);
    expect([head.status, head.headers.get('upload-offset')]).toEqual([200, String(png.length)]);

    const created = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey: `uploads/${id}`, sourceFormat: 'png', targetFormat: 'jpg', fileSize: png.length },
    });
    expect(created.status, created.text).toBe(200);
    const job = await pollJob(server, created.body.jobId);
    expect(job.status).toBe('completed');
    const result = Buffer.from(await (await fetch(job.downloadUrl)).arrayBuffer());
    const source = await sharp(png).metadata();
    expect(await sharp(result).metadata()).toMatchObject({
      format: 'jpeg',
      width: source.width,
      height: source.height,
    });

    // Flow B refers to it by the upload URL's last segment, the file id.
    const converted = await call(server, 'POST', '/api/convert', {
      json: { fileId: id, fileName: 'fixture.png', targetFormat: 'webp' },
    });
    expect(converted.status, converted.text).toBe(200);
    const webp = await fetch(`${server.url}/api/download?id=${converted.body.downloadId}`);
    expect((await sharp(Buffer.from(await webp.arrayBuffer())).metadata()).format).toBe('webp');
  });

  it('refuses the wrong Content-Type (415), a wrong offset (409 OFFSET_MISMATCH) and an unknown checksum (400), keeping nothing', async () => {
    const server = await startServer();
    const bytes = bytesOf(1000);
    const { path } = await createTusUpload(server, bytes.length);
    expectError(
      await tusPatch(server, path, 0, bytes, { headers: { 'content-type': 'application/octet-stream' } }),
      415,
      'UNSUPPORTED_FORMAT',
    );
    const wrongOffset = await tusPatch(server, path, 10, bytes.subarray(10));
    expectError(wrongOffset, 409, 'OFFSET_MISMATCH');
    expect(wrongOffset.body.error.details).toMatchObject({ offset: 0 });
    expectError(
      await tusPatch(server, path, 0, bytes, {
        headers: { 'upload-checksum': `crc32 ${digest('md5', bytes)}` },
      }),
      400,
      'INVALID_REQUEST',
    );
    expectError(
      await tusPatch(server, path, 0, bytes, { headers: { 'upload-offset': 'zero' } }),
      400,
      'INVALID_REQUEST',
    );
    expect((await tusHead(server, path)).headers.get('upload-offset')).toBe('0');
    expect((await tusPatch(server, path, 0, bytes.subarray(0, 100))).status).toBe(204);
    expectError(await tusPatch(server, path, 0, bytes.subarray(0, 100)), 409, 'OFFSET_MISMATCH');
    expect((await tusHead(server, path)).headers.get('upload-offset')).toBe('100');
  });

  it('a checksum mismatch is 460 CHECKSUM_MISMATCH and keeps none of the bytes', async () => {
    const server = await startServer();
    const bytes = bytesOf(5000, 3);
    const { path, id } = await createTusUpload(server, bytes.length);
    expect((await tusPatch(server, path, 0, bytes.subarray(0, 1000))).status).toBe(204);
    const mismatch = await tusPatch(server, path, 1000, bytes.subarray(1000), {
      headers: { 'upload-checksum': `md5 ${digest('md5', bytesOf(4000, 5))}` },
    });
    expectError(mismatch, 460, 'CHECKSUM_MISMATCH');
    expect(mismatch.headers.get('tus-resumable')).toBe('1.0.0');
    expect((await tusHead(server, path)).headers.get('upload-offset')).toBe('1000');
    const [partial] = await partialFiles(server);
    const { stat } = await import('node:fs/promises');
    expect((await stat(`${server.root}/storage/${partial}`)).size).toBe(1000);
    expect((await tusPatch(server, path, 1000, bytes.subarray(1000))).status).toBe(204);
    const stored = await (await server.engine.storage!.get(`uploads/${id}`)).toArray();
    expect(Buffer.concat(stored).equals(bytes)).toBe(true);
  });

  it('refuses a PATCH sending more bytes than Upload-Length (413), keeping none of them', async () => {
    const server = await startServer();
    const bytes = bytesOf(3000);
    const { path, id } = await createTusUpload(server, bytes.length);
    expect((await tusPatch(server, path, 0, bytes.subarray(0, 1000))).status).toBe(204);
    expectError(await tusPatch(server, path, 1000, bytesOf(2500)), 413, 'FILE_TOO_LARGE');
    expect((await tusHead(server, path)).headers.get('upload-offset')).toBe('1000');
    expect((await server.engine.getFile(id)).status).toBe('pending');
    expect((await tusPatch(server, path, 1000, bytes.subarray(1000))).status).toBe(204);
    expect(
      Buffer.concat(await (await server.engine.storage!.get(`uploads/${id}`)).toArray()).equals(bytes),
    ).toBe(true);
  });
});

describe('tus creation-with-upload', () => {
  it('stores the first bytes sent with the creation and says where it got to', async () => {
    const server = await startServer();
    const bytes = bytesOf(3000, 7);
    const created = await call(server, 'POST', '/api/tus', {
      headers: {
        ...TUS,
        'upload-length': String(bytes.length),
        'content-type': 'application/offset+octet-stream',
        'upload-checksum': `sha256 ${digest('sha256', bytes.subarray(0, 1000))}`,
      },
      body: bytes.subarray(0, 1000),
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('upload-offset')).toBe('1000');
    const path = new URL(created.headers.get('location')!).pathname.replace(/^\/v1/, '');
    expect((await tusHead(server, path)).headers.get('upload-offset')).toBe('1000');
    expect((await tusPatch(server, path, 1000, bytes.subarray(1000))).status).toBe(204);
    const id = path.split('/').at(-1)!;
    const stored = Buffer.concat(await (await server.engine.storage!.get(`uploads/${id}`)).toArray());
    expect(stored.equals(bytes)).toBe(true);
  });

  it('a refused first body (checksum mismatch) creates nothing', async () => {
    const server = await startServer();
    const bytes = bytesOf(3000, 7);
    const created = await call(server, 'POST', '/api/tus', {
      headers: {
        ...TUS,
        'upload-length': String(bytes.length),
        'content-type': 'application/offset+octet-stream',
        'upload-checksum': `sha1 ${digest('sha1', bytesOf(10))}`,
      },
      body: bytes.subarray(0, 1000),
    });
    expectError(created, 460, 'CHECKSUM_MISMATCH');
    expect(await server.fileRecords()).toEqual([]);
    expect(await partialFiles(server)).toEqual([]);
  });
});

describe('tus owners, termination and expiry', () => {
  it("another owner's upload is 404 NOT_FOUND for HEAD, PATCH and DELETE, exactly like a missing id", async () => {
    const server = await startServer({ clients: true });
    const bytes = bytesOf(100);
    const { path, id } = await createTusUpload(server, bytes.length, { caller: 'alice' });
    expect((await tusHead(server, path, 'bob')).status).toBe(404);
    expect((await tusHead(server, '/api/tus/00000000-0000-4000-8000-000000000000', 'bob')).status).toBe(404);
    const patch = await tusPatch(server, path, 0, bytes, { caller: 'bob' });
    const missing = await tusPatch(server, '/api/tus/00000000-0000-4000-8000-000000000000', 0, bytes, {
      caller: 'bob',
    });
    expectError(patch, 404, 'NOT_FOUND');
    expectError(missing, 404, 'NOT_FOUND');
    expect(patch.body.error.message).toBe(missing.body.error.message);
    expectError(await tusDelete(server, path, 'bob'), 404, 'NOT_FOUND');
    expect((await tusHead(server, path, 'alice')).headers.get('upload-offset')).toBe('0');
    expect((await server.engine.getFile(id)).owner).toBe('account:client-alice');
  });

  it('anonymous uploads belong to the client IP', async () => {
    const server = await startServer();
    const { path } = await createTusUpload(server, 10, { caller: { localAddress: '127.0.0.2' } });
    expect((await tusHead(server, path, { localAddress: '127.0.0.2' })).status).toBe(200);
    expect((await tusHead(server, path, { localAddress: '127.0.0.3' })).status).toBe(404);
  });

  it('DELETE terminates an unfinished upload (bytes and record gone) and deletes a finished one', async () => {
    const server = await startServer();
    const bytes = bytesOf(2000);
    const unfinished = await createTusUpload(server, bytes.length);
    expect((await tusPatch(server, unfinished.path, 0, bytes.subarray(0, 500))).status).toBe(204);
    expect(await partialFiles(server)).toHaveLength(1);
    const terminated = await tusDelete(server, unfinished.path);
    expect(terminated.status).toBe(204);
    expect(terminated.headers.get('tus-resumable')).toBe('1.0.0');
    expect(await partialFiles(server)).toEqual([]);
    expect((await tusHead(server, unfinished.path)).status).toBe(404);
    expect(await server.fileRecords()).toEqual([]);

    const finished = await createTusUpload(server, bytes.length);
    expect((await tusPatch(server, finished.path, 0, bytes)).status).toBe(204);
    expect((await tusDelete(server, finished.path)).status).toBe(204);
    expect(await server.storedFiles()).toEqual([]);
    expect(await server.fileRecords()).toEqual([]);
  });

  it('an expired upload is 410 UPLOAD_EXPIRED and its bytes are dropped; the sweep drops the others', async () => {
    const server = await startServer();
    const bytes = bytesOf(1000);
    const resumed = await createTusUpload(server, bytes.length);
    const left = await createTusUpload(server, bytes.length);
    expect((await tusPatch(server, resumed.path, 0, bytes.subarray(0, 400))).status).toBe(204);
    expect((await tusPatch(server, left.path, 0, bytes.subarray(0, 300))).status).toBe(204);
    expect(await partialFiles(server)).toHaveLength(2);
    server.advanceClock(DAY_MS + 1000);
    const expired = await tusPatch(server, resumed.path, 400, bytes.subarray(400));
    expectError(expired, 410, 'UPLOAD_EXPIRED');
    expect((await tusHead(server, resumed.path)).status).toBe(404);
    expect(await partialFiles(server)).toHaveLength(1);
    expect(await server.engine.sweepExpired()).toBe(1);
    expect(await partialFiles(server)).toEqual([]);
    expect(await server.fileRecords()).toEqual([]);
    expect(await server.storedFiles()).toEqual([]);
  });

  it("a finished upload is kept for the plan's upload retention from its last byte", async () => {
    const server = await startServer();
    const bytes = bytesOf(100);
    const { path, id } = await createTusUpload(server, bytes.length);
    // Unfinished, it is kept 15 minutes after its last byte (creation counts as one).
    server.advanceClock(14 * 60_000);
    expect((await tusPatch(server, path, 0, bytes)).status).toBe(204);
    const file = await server.engine.getFile(id);
    // The Free plan keeps uploads 15 minutes.
    expect(Date.parse(file.expiresAt) - Date.parse(file.uploadedAt!)).toBe(15 * 60 * 1000);
  });
});

describe("tus retention: an unfinished upload is kept for the plan's retention after its last byte", () => {
  const MINUTE = 60_000;
  const httpDate = (ms: number) => new Date(ms).toUTCString();

  it('Free (15 min): each PATCH that stores bytes moves Upload-Expires; 15 silent minutes expire it', async () => {
    const clock = movableClock('2026-11-22T12:00:00.000Z');
    const t0 = clock.now();
    const server = await startServer({ clock });
    const bytes = bytesOf(1000);
    const created = await createTusUpload(server, bytes.length);
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('upload-expires')).toBe(httpDate(t0 + 15 * MINUTE));

    clock.advance(10 * MINUTE);
    const first = await tusPatch(server, created.path, 0, bytes.subarray(0, 400));
    expect(first.status).toBe(204);
    expect(first.headers.get('upload-expires')).toBe(httpDate(t0 + 25 * MINUTE));
    expect((await tusHead(server, created.path)).headers.get('upload-expires')).toBe(
      httpDate(t0 + 25 * MINUTE),
    );
    // A refused PATCH stores nothing and moves nothing.
    clock.advance(5 * MINUTE);
    expectError(await tusPatch(server, created.path, 0, bytes.subarray(0, 10)), 409, 'OFFSET_MISMATCH');
    expect((await tusHead(server, created.path)).headers.get('upload-expires')).toBe(
      httpDate(t0 + 25 * MINUTE),
    );

    // Alive 24 minutes in; gone at 26, a day before the engine's 24 h from its creation.
    clock.set(t0 + 24 * MINUTE);
    expect((await tusHead(server, created.path)).status).toBe(200);
    clock.set(t0 + 26 * MINUTE);
    expectError(await tusPatch(server, created.path, 400, bytes.subarray(400)), 410, 'UPLOAD_EXPIRED');
    expect(await partialFiles(server)).toEqual([]);
    expect(await server.fileRecords()).toEqual([]);
  });

  it('a PATCH still sending when the retention passes is not swept from under it', async () => {
    const clock = movableClock('2026-11-22T12:00:00.000Z');
    const t0 = clock.now();
    const server = await startServer({ clock });
    const bytes = bytesOf(1000);
    const created = await createTusUpload(server, bytes.length);
    const request = httpRequest(new URL(`${server.url}${created.path}`), {
      method: 'PATCH',
      headers: {
        ...TUS,
        'content-type': 'application/offset+octet-stream',
        'upload-offset': '0',
        'content-length': String(bytes.length),
      },
    });
    const status = new Promise<number>((resolve, reject) => {
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
    });
    request.write(bytes.subarray(0, 300));
    // While its bytes arrive the upload is held to its ceiling, 24 h from its creation.
    await expect
      .poll(async () => (await server.engine.getFile(created.id)).expiresAt)
      .toBe(new Date(t0 + DAY_MS).toISOString());
    clock.advance(20 * MINUTE);
    expect(await server.engine.sweepExpired()).toBe(0);
    request.end(bytes.subarray(300));
    expect(await status).toBe(204);
    expect((await server.engine.getFile(created.id)).status).toBe('uploaded');
  });
});

describe('tus wiring', () => {
  it('creation counts as an upload request, HEAD and PATCH as ordinary ones', () => {
    expect(rateLimitClassOf('POST', '/api/tus')).toBe('upload');
    expect(rateLimitClassOf('POST', '/api/TUS/')).toBe('upload');
    expect(rateLimitClassOf('PATCH', '/api/tus/abc')).toBe('default');
    expect(rateLimitClassOf('HEAD', '/api/tus/abc')).toBe('default');
  });

  it('a refusal before the route runs (a key the service does not take) still says Tus-Resumable', async () => {
    const server = await startServer();
    const refused = await createTusUpload(server, 10, { headers: { authorization: 'Bearer nope' } });
    expectError(refused.response, 401, 'UNAUTHORIZED');
    expect(refused.response.headers.get('tus-resumable')).toBe('1.0.0');
  });

  it('GET routes still answer HEAD', async () => {
    const server = await startServer();
    const head = await call(server, 'HEAD', '/api/health');
    expect([head.status, head.text]).toEqual([200, '']);
  });

  it('without Storage.resumable there is no /api/tus (404)', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'fileconv-tus-none-'));
    try {
      const { resumable: _none, ...storage } = createFsStorage({ dir });
      const server = await startServer({ engine: { storage } });
      expect((await call(server, 'OPTIONS', '/api/tus')).status).toBe(404);
      // Not the service's route: the host's next handler (Express's own 404 page) answers.
      expect((await createTusUpload(server, 10)).response.status).toBe(404);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
