/**
 * The HTTP conformance suite: what every mount of fileconv's HTTP service must answer, whatever
 * the framework. A host runs it against its own mount (Express, Fastify, Hono, Next.js, Koa, a
 * plain node:http server...) to prove the mount loses nothing: both flows of the specification
 * with exact bytes, every error path with the same status and error body, rate-limit headers
 * and 429s, and a 1 GiB streamed upload that does not grow the process's memory.
 *
 *   testHttpService('my Fastify app', async ({ engine, options, basePath }) => {
 *     const app = Fastify({ forceCloseConnections: true });
 *     app.register(createFastifyPlugin(engine, options), { prefix: basePath });
 *     await app.listen({ port: 0, host: '127.0.0.1' });
 *     return { url: `http://127.0.0.1:${app.server.address().port}${basePath}`, close: () => app.close() };
 *   });
 *
 * Each test builds a fresh engine (fs storage in a temp dir, memory job store and queue, the
 * deterministic fake converter: txt -> md) and asks the host to mount it once. The mount must
 * pass `options` to the service unchanged and serve it in the same process (the memory check
 * samples this process).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../adapters/counters/memory.js';
import { createMemoryJobStore } from '../adapters/jobs/memory.js';
import { createMemoryKeyStore } from '../adapters/keys/memory.js';
import { createMemoryQueue } from '../adapters/queue/memory.js';
import { createFsStorage } from '../adapters/storage/fs.js';
import { definePlans } from '../core/policy/plans.js';
import { type Engine, engineOf } from '../engine/engine.js';
import { createConverter } from '../engine/file-converter.js';
import { createJobEngine, type JobEngine } from '../engine/job-engine.js';
import type { HttpServiceOptions } from '../service/service.js';
import { createFakeConverter, fakeOutputHeader } from './fake-converter.js';

/** The service options a mount passes through unchanged (the suite uses no host sign-in). */
export type HttpSuiteServiceOptions = Omit<HttpServiceOptions, 'authenticate'>;

export interface HttpMountSetup {
  /**
   * The job engine to mount (an adapter takes it as it is: `createHttpRouter(engine, options)`),
   * also in createEngine's deprecated shape, for mounts written against it.
   */
  engine: JobEngine & Engine;
  options: HttpSuiteServiceOptions;
  /** Where to mount the service, e.g. '/files'. */
  basePath: string;
}

export interface MountedHttpService {
  /** The mount's base URL, basePath included: `http://127.0.0.1:1234/files`. */
  url: string;
  close(): Promise<void>;
}

export interface HttpSuiteOptions {
  /** Default '/files'. */
  basePath?: string;
  /** Size of the streamed upload, bytes. Default 1 GiB. */
  largeUploadBytes?: number;
  /** How much the process's RSS may grow during that upload, bytes. Default 192 MiB. */
  largeUploadMemoryBytes?: number;
  /**
   * Whether the mount compresses answers itself (HttpServiceOptions.compression). Default true;
   * false for a fetch handler, whose framework compresses: then no answer may come encoded.
   */
  compression?: boolean;
  /**
   * What the host framework itself cannot pass through, so that the suite checks everything
   * else. Declare only what no option of the framework fixes; each one is named in the suite's
   * title. Default: none.
   */
  frameworkLimits?: HttpFrameworkLimits;
}

export interface HttpFrameworkLimits {
  /**
   * The framework drops Content-Length from the service's answers (Next.js route handlers):
   * downloads still carry the exact bytes, sent chunked, and HEAD tells no length.
   */
  dropsContentLength?: boolean;
  /**
   * The framework answers a path that is not valid percent-encoding itself, before any route
   * (Next.js): the client is still refused, but not with fileconv's error body.
   */
  refusesMalformedPaths?: boolean;
}

const SECRET = 'fileconv-http-conformance-secret-0123456789';

/** A raw answer's body as the client reads it: decoded when the answer says it is encoded. */
function decodeBody(reply: { headers: Record<string, unknown>; body: Buffer }): Buffer {
  const coding = reply.headers['content-encoding'];
  if (coding === 'gzip') return gunzipSync(reply.body);
  if (coding === 'br') return brotliDecompressSync(reply.body);
  return reply.body;
}
const MiB = 1024 * 1024;

interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: the suite reads response fields freely and asserts their types
  body: any;
  bytes: Buffer;
}

export function testHttpService(
  name: string,
  mount: (setup: HttpMountSetup) => Promise<MountedHttpService>,
  suiteOptions: HttpSuiteOptions = {},
): void {
  const basePath = suiteOptions.basePath ?? '/files';
  const limits = suiteOptions.frameworkLimits ?? {};
  const compresses = suiteOptions.compression ?? true;
  const declared = Object.entries(limits)
    .filter(([, on]) => on)
    .map(([limit]) => limit);
  const largeBytes = suiteOptions.largeUploadBytes ?? 1024 * MiB;

  /** A fresh engine mounted by the host; `run` gets its URL; everything is closed and removed after. */
  async function withService(
    extra: HttpSuiteServiceOptions,
    run: (url: string, engine: JobEngine & Engine) => Promise<void>,
  ): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'fileconv-http-suite-'));
    const errors: unknown[] = [];
    const converter = createConverter({ converters: [createFakeConverter()], tempDir: dir });
    const engine = engineOf(
      converter,
      createJobEngine({
        converter,
        storage: createFsStorage({ dir: join(dir, 'files'), fsync: false }),
        jobs: createMemoryJobStore(),
        queue: createMemoryQueue(),
        sweepIntervalMs: 0,
      }),
    );
    await engine.start();
    let mounted: MountedHttpService | undefined;
    try {
      mounted = await mount({
        engine,
        basePath,
        options: { signingSecret: SECRET, onError: (error) => errors.push(error), ...extra },
      });
      expect(mounted.url.endsWith(basePath), 'the mounted URL ends with basePath').toBe(true);
      await run(mounted.url.replace(/\/+$/, ''), engine);
      // Nothing in this suite is a server fault: each bad request has its own 4xx.
      expect(errors, 'errors the service reported as 5xx').toEqual([]);
    } finally {
      await mounted?.close();
      await engine.close({ graceMs: 2000 });
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function send(url: string, init: RequestInit & { json?: unknown } = {}): Promise<Reply> {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined) headers.set('content-type', 'application/json');
    const response = await fetch(url, {
      ...rest,
      headers,
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      // A hang fails its own request, naming it, rather than the whole test at its timeout.
      signal: AbortSignal.timeout(20_000),
    }).catch((error: unknown) => {
      throw new Error(`${rest.method ?? 'GET'} ${url}: ${String(error)}`, { cause: error });
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    let body: unknown = null;
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch {}
    return { status: response.status, headers: response.headers, body, bytes };
  }

  function expectError(reply: Reply, status: number, code: string, what: string): void {
    expect(
      { status: reply.status, code: reply.body?.error?.code },
      `${what}: ${reply.bytes.toString().slice(0, 300)}`,
    ).toEqual({
      status,
      code,
    });
    expect(reply.headers.get('content-type'), what).toMatch(/^application\/json/);
    expect(Object.keys(reply.body), what).toEqual(['error']);
    expect(typeof reply.body.error.message, what).toBe('string');
  }

  function multipart(parts: { field: string; name: string; bytes: Uint8Array }[]): FormData {
    const form = new FormData();
    for (const part of parts) form.append(part.field, new Blob([part.bytes]), part.name);
    return form;
  }

  async function uploadA(url: string, text: string) {
    const bytes = Buffer.from(text);
    const grant = await send(`${url}/api/files/get-upload-url`, {
      method: 'POST',
      json: { fileName: 'notes.txt', fileSize: bytes.length, contentType: 'text/plain' },
    });
    expect(grant.status).toBe(200);
    const put = await send(grant.body.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: bytes,
    });
    expect(put.status).toBe(200);
    return { ...(grant.body as { uploadUrl: string; fileKey: string; fileId: string }), bytes };
  }

  async function pollJob(url: string, jobId: string) {
    for (let waited = 0; ; waited += 50) {
      const reply = await send(`${url}/api/jobs/${jobId}`);
      expect(reply.status).toBe(200);
      if (!['queued', 'processing'].includes(reply.body.status)) return reply.body;
      expect(waited, 'the job did not finish').toBeLessThan(20_000);
      await sleep(50);
    }
  }

  const title = declared.length === 0 ? name : `${name} (framework limits: ${declared.join(', ')})`;
  describe(`HTTP conformance: ${title}`, () => {
    it('Flow A: grant, signed PUT, job, polling, signed download: the exact bytes', async () => {
      await withService({}, async (url) => {
        const text = 'Flow A through the mount\n'.repeat(100);
        const { uploadUrl, fileKey, bytes } = await uploadA(url, text);
        // Links point back into the mount.
        expect(uploadUrl.startsWith(`${url}/api/files/`)).toBe(true);
        const created = await send(`${url}/api/jobs/create`, {
          method: 'POST',
          json: { fileKey, sourceFormat: 'txt', targetFormat: 'md', fileSize: bytes.length },
        });
        expect(created.status).toBe(200);
        const job = await pollJob(url, created.body.jobId);
        expect(job.status).toBe('completed');
        expect(job.downloadUrl.startsWith(`${url}/api/jobs/${created.body.jobId}/result?`)).toBe(true);
        const download = await send(job.downloadUrl);
        expect(download.status).toBe(200);
        expect(download.bytes.toString()).toBe(fakeOutputHeader('fake', 'txt', 'md') + text);
        if (!limits.dropsContentLength)
          expect(download.headers.get('content-length')).toBe(String(download.bytes.length));
        expect(download.headers.get('content-disposition')).toContain('notes.md');
        // HEAD answers like GET, without the body.
        const head = await fetch(job.downloadUrl, { method: 'HEAD' });
        expect(head.status).toBe(200);
        expect(head.headers.get('content-disposition')).toContain('notes.md');
        expect((await head.arrayBuffer()).byteLength).toBe(0);
        if (!limits.dropsContentLength)
          expect(head.headers.get('content-length')).toBe(String(download.bytes.length));
      });
    });

    it('Flow B: multipart upload, convert, download by id: the exact bytes', async () => {
      await withService({}, async (url) => {
        const text = 'Flow B through the mount: ünïcödé\n'.repeat(50);
        const uploaded = await send(`${url}/api/upload`, {
          method: 'POST',
          body: multipart([{ field: 'file', name: 'résumé.txt', bytes: Buffer.from(text) }]),
        });
        expect(uploaded.status).toBe(200);
        expect(uploaded.body).toMatchObject({ fileName: 'résumé.txt', size: Buffer.byteLength(text) });
        const converted = await send(`${url}/api/convert`, {
          method: 'POST',
          json: { fileId: uploaded.body.fileId, fileName: 'résumé.txt', targetFormat: 'md' },
        });
        expect(converted.status).toBe(200);
        expect(converted.body.outputName).toBe('résumé.md');
        const download = await send(`${url}/api/download?id=${converted.body.downloadId}`);
        expect(download.status).toBe(200);
        expect(download.bytes.toString()).toBe(fakeOutputHeader('fake', 'txt', 'md') + text);
        // Every answer carries a request id, and a client's own is echoed.
        const health = await send(`${url}/api/health`, { headers: { 'x-request-id': 'conformance-1' } });
        expect(health.status).toBe(200);
        expect(health.headers.get('x-request-id')).toBe('conformance-1');
      });
    });

    it('replays a retried upload and conversion sent with an Idempotency-Key: same ids, nothing run twice', async () => {
      await withService({}, async (url) => {
        const bytes = Buffer.from('Idempotent through the mount\n'.repeat(20));
        const upload = () =>
          send(`${url}/api/upload`, {
            method: 'POST',
            headers: { 'idempotency-key': 'conformance-upload' },
            // A new form each time: a retry's new multipart boundary is still the same request.
            body: multipart([{ field: 'file', name: 'retry.txt', bytes }]),
          });
        const uploaded = await upload();
        expect(uploaded.status).toBe(200);
        const retried = await upload();
        expect(retried.status).toBe(200);
        expect(retried.body.fileId).toBe(uploaded.body.fileId);
        expect(retried.headers.get('idempotent-replayed')).toBe('true');
        const convert = (targetFormat: string) =>
          send(`${url}/api/convert`, {
            method: 'POST',
            headers: { 'idempotency-key': 'conformance-convert' },
            json: { fileId: uploaded.body.fileId, fileName: 'retry.txt', targetFormat },
          });
        const converted = await convert('md');
        expect(converted.status).toBe(200);
        const again = await convert('md');
        expect(again.body.downloadId).toBe(converted.body.downloadId);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expectError(await convert('html'), 422, 'IDEMPOTENCY_KEY_REUSED', 'the key on another request');
      });
    });

    it('answers every malformed request with its status and error body', async () => {
      await withService({ keys: createMemoryKeyStore() }, async (url) => {
        const grantUrl = `${url}/api/files/get-upload-url`;
        const post = (path: string, init: RequestInit & { json?: unknown }) =>
          send(`${url}${path}`, { method: 'POST', ...init });
        const json = { 'content-type': 'application/json' };

        expectError(
          await post('/api/files/get-upload-url', { headers: json, body: '{"fileName":' }),
          400,
          'INVALID_REQUEST',
          'broken JSON',
        );
        expectError(
          await post('/api/files/get-upload-url', { headers: json, body: '"text"' }),
          400,
          'INVALID_REQUEST',
          'JSON that is not an object',
        );
        expectError(
          await post('/api/files/get-upload-url', { json: { fileName: 'a.txt' } }),
          400,
          'INVALID_REQUEST',
          'missing fields',
        );
        expectError(
          await post('/api/files/get-upload-url', {
            json: { fileName: 'a.txt', padding: 'x'.repeat(70 * 1024) },
          }),
          413,
          'REQUEST_TOO_LARGE',
          'a JSON body over 64 KiB',
        );
        expectError(
          await post('/api/files/get-upload-url', {
            json: { fileName: 'a.txt', fileSize: 26 * MiB, contentType: 'text/plain' },
          }),
          413,
          'FILE_TOO_LARGE',
          'a file over the plan limit',
        );
        const unauthorized = await send(grantUrl, {
          method: 'POST',
          headers: { authorization: 'Bearer not-a-key' },
          json: {},
        });
        expectError(unauthorized, 401, 'UNAUTHORIZED', 'a malformed API key');
        expect(unauthorized.headers.get('www-authenticate')).toMatch(/^Bearer/);

        // Signed URLs: a wrong signature, a wrong content type, a tampered download.
        const { uploadUrl, fileKey, bytes } = await uploadA(url, 'signed\n');
        const forged = new URL(uploadUrl);
        forged.searchParams.set('signature', 'AAAA');
        expectError(
          await send(forged.href, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' }),
          403,
          'SIGNATURE_INVALID',
          'a forged upload signature',
        );
        const second = await send(grantUrl, {
          method: 'POST',
          json: { fileName: 'b.txt', fileSize: 3, contentType: 'text/plain' },
        });
        expectError(
          await send(second.body.uploadUrl, {
            method: 'PUT',
            headers: { 'content-type': 'image/png' },
            body: 'abc',
          }),
          403,
          'SIGNATURE_INVALID',
          'a PUT with another content type',
        );
        expectError(
          await post('/api/jobs/create', {
            json: { fileKey: second.body.fileKey, sourceFormat: 'txt', targetFormat: 'md', fileSize: 3 },
          }),
          409,
          'NOT_UPLOADED',
          'a job for a file never uploaded',
        );
        expectError(
          await post('/api/jobs/create', {
            json: { fileKey: 'uploads/nope', sourceFormat: 'txt', targetFormat: 'md', fileSize: 3 },
          }),
          404,
          'NOT_FOUND',
          'a job for an unknown file',
        );
        expectError(
          await post('/api/jobs/create', {
            json: { fileKey, sourceFormat: 'txt', targetFormat: 'mp4', fileSize: bytes.length },
          }),
          422,
          'UNSUPPORTED_CONVERSION',
          'an impossible conversion',
        );
        expectError(
          await post('/api/jobs/batch', {
            json: { jobs: [{ fileKey, sourceFormat: 'txt', targetFormat: 'md', fileSize: bytes.length }] },
          }),
          403,
          'PLAN_FEATURE_REQUIRED',
          'a batch on the Free plan',
        );
        expectError(await send(`${url}/api/jobs/no-such-job`), 404, 'NOT_FOUND', 'an unknown job');
        expectError(
          await send(`${url}/api/jobs/no-such-job/result?expires=1&signature=AAAA`),
          403,
          'SIGNATURE_INVALID',
          'a forged download',
        );

        // Flow B.
        expectError(
          await post('/api/upload', { headers: json, body: '{}' }),
          400,
          'INVALID_REQUEST',
          'an upload that is not multipart',
        );
        expectError(
          await post('/api/upload', {
            body: multipart([{ field: 'other', name: 'a.txt', bytes: Buffer.from('a') }]),
          }),
          400,
          'INVALID_REQUEST',
          'an upload in the wrong field',
        );
        expectError(
          await post('/api/upload', {
            body: multipart([
              { field: 'file', name: 'a.txt', bytes: Buffer.from('a') },
              { field: 'file', name: 'b.txt', bytes: Buffer.from('b') },
            ]),
          }),
          400,
          'INVALID_REQUEST',
          'two files in one upload',
        );
        expectError(
          await post('/api/convert', { json: { fileId: 'nope', fileName: 'a.txt', targetFormat: 'md' } }),
          404,
          'NOT_FOUND',
          'converting an unknown file',
        );
        expectError(await send(`${url}/api/download`), 400, 'INVALID_REQUEST', 'a download without an id');
        expectError(
          await send(`${url}/api/download?id=00000000-0000-4000-8000-000000000000`),
          404,
          'NOT_FOUND',
          'an unknown download',
        );
        const malformed = await send(`${url}/api/jobs/%E0%A4%A`);
        if (limits.refusesMalformedPaths) expect(malformed.status).toBeGreaterThanOrEqual(400);
        else expectError(malformed, 400, 'INVALID_REQUEST', 'a path that is not valid percent-encoding');
      });
    });

    it('refuses an upload over the plan limit while it streams: 413, nothing kept', async () => {
      await withService({ plans: definePlans({ free: { maxFileBytes: 64 * 1024 } }) }, async (url) => {
        const reply = await send(`${url}/api/upload`, {
          method: 'POST',
          body: multipart([{ field: 'file', name: 'big.txt', bytes: Buffer.alloc(200 * 1024, 97) }]),
        });
        expectError(reply, 413, 'FILE_TOO_LARGE', 'a file over the limit');
      });
    });

    it('sets RateLimit headers on every answer and refuses past the per-IP limit with 429 and Retry-After', async () => {
      // A clock that stands still at the start of a minute: the 60 requests share one window
      // however long they take (a real clock may cross a minute boundary midway).
      const now = () => Date.UTC(2026, 0, 5, 12, 0, 1);
      await withService({ counters: createMemoryCounterStore({ now }), now }, async (url) => {
        let last: Reply | undefined;
        for (let request = 1; request <= 60; request++) {
          last = await send(`${url}/api/usage`);
          expect(last.status).toBe(200);
          expect(last.headers.get('ratelimit-policy'), 'RateLimit-Policy').toBeTruthy();
          expect(last.headers.get('ratelimit'), 'RateLimit').toMatch(/;r=\d+;t=\d+/);
          expect(last.headers.get('x-ratelimit-remaining')).toBe(String(60 - request));
        }
        const refused = await send(`${url}/api/usage`);
        expectError(refused, 429, 'RATE_LIMITED', 'the 61st request in a minute');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        // Health and readiness answer a client that is past its limit: monitors are never refused.
        expect((await send(`${url}/api/health`)).status).toBe(200);
        expect((await send(`${url}/api/ready`)).status).toBe(200);
      });
    });

    it('never rate-limits health and readiness: 100 probes from one address, none refused', async () => {
      const now = () => Date.UTC(2026, 0, 5, 12, 0, 1);
      await withService({ counters: createMemoryCounterStore({ now }), now }, async (url) => {
        for (let probe = 1; probe <= 100; probe++) {
          for (const path of ['/api/health', '/api/ready']) {
            const reply = await send(`${url}${path}`);
            expect([200, 503], `${path} probe ${probe}: ${reply.status}`).toContain(reply.status);
            expect(reply.headers.get('ratelimit-policy'), `${path} spends no rate limit`).toBeNull();
          }
        }
        // Nor did they spend the limit of the client's other requests.
        expect((await send(`${url}/api/usage`)).headers.get('x-ratelimit-remaining')).toBe('59');
      });
    });

    it('compresses large JSON answers for clients that accept it, never a download', async () => {
      await withService({}, async (url) => {
        const plain = await rawGet(`${url}/api/openapi.json`, {});
        expect(plain.status).toBe(200);
        expect(plain.headers['content-encoding'], 'no Accept-Encoding: identity').toBeUndefined();
        if (compresses) expect(String(plain.headers.vary)).toMatch(/accept-encoding/i);
        for (const coding of ['gzip', 'br'] as const) {
          const coded = await rawGet(`${url}/api/openapi.json`, { 'accept-encoding': coding });
          if (!compresses) {
            // Left to the framework around the mount (Next.js compresses; Hono does not): the
            // client decodes the same bytes, whichever it is.
            expect(decodeBody(coded).equals(plain.body), `${coding} decodes to the same JSON`).toBe(true);
            continue;
          }
          expect(coded.headers['content-encoding'], coding).toBe(coding);
          expect(String(coded.headers.vary)).toMatch(/accept-encoding/i);
          const decoded = coding === 'gzip' ? gunzipSync(coded.body) : brotliDecompressSync(coded.body);
          expect(decoded.equals(plain.body), `${coding} decodes to the same JSON`).toBe(true);
          expect(coded.body.length).toBeLessThan(plain.body.length / 2);
        }
        // A converted file is sent as it is, whatever the client accepts.
        const text = 'a download is never re-encoded\n'.repeat(200);
        const uploaded = await send(`${url}/api/upload`, {
          method: 'POST',
          body: multipart([{ field: 'file', name: 'big.txt', bytes: Buffer.from(text) }]),
        });
        const converted = await send(`${url}/api/convert`, {
          method: 'POST',
          json: { fileId: uploaded.body.fileId, fileName: 'big.txt', targetFormat: 'md' },
        });
        expect(converted.status).toBe(200);
        const download = await rawGet(`${url}/api/download?id=${converted.body.downloadId}`, {
          'accept-encoding': 'gzip, br',
        });
        expect(download.status).toBe(200);
        if (compresses) expect(download.headers['content-encoding']).toBeUndefined();
        expect(decodeBody(download).toString()).toBe(fakeOutputHeader('fake', 'txt', 'md') + text);
      });
    });

    it(`streams a ${Math.round(largeBytes / MiB)} MiB upload with flat memory`, async () => {
      await withService({ plans: definePlans({ free: { maxFileBytes: largeBytes + MiB } }) }, async (url) => {
        const limit = suiteOptions.largeUploadMemoryBytes ?? 192 * MiB;
        const before = process.memoryUsage().rss;
        let peak = before;
        const sampler = setInterval(() => {
          peak = Math.max(peak, process.memoryUsage().rss);
        }, 25);
        try {
          const reply = await streamUpload(`${url}/api/upload`, largeBytes);
          expect(reply.status, reply.text).toBe(200);
          expect(JSON.parse(reply.text)).toMatchObject({ fileName: 'large.bin', size: largeBytes });
        } finally {
          clearInterval(sampler);
        }
        expect(peak - before, `RSS grew by ${Math.round((peak - before) / MiB)} MiB`).toBeLessThan(limit);
      });
    }, 300_000);
  });
}

/** A multipart upload of `size` zero bytes, generated as the socket takes them (chunked). */
function streamUpload(url: string, size: number): Promise<{ status: number; text: string }> {
  const boundary = 'fileconv-conformance-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="large.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(256 * 1024);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (data: Buffer) => chunks.push(data));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    let sent = 0;
    const write = () => {
      while (sent < size) {
        const piece = size - sent >= chunk.length ? chunk : chunk.subarray(0, size - sent);
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', write);
          return;
        }
      }
      req.end(tail);
    };
    req.write(head);
    write();
  });
}

/**
 * A GET through node:http, which sends only the headers given and decodes nothing (fetch adds
 * its own Accept-Encoding and decompresses): what a client of a given Accept-Encoding receives.
 */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, signal: AbortSignal.timeout(20_000) });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (data: Buffer) => chunks.push(data));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.end();
  });
}
