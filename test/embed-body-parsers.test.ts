/**
 * Embedding behind a host's body parsers (issue 29, scope 3), through the Express adapter (the
 * Node adapters share its reading of the request), the Fastify plugin and the fetch handler. Most Express apps run
 * `app.use(express.json())` before anything else; that reads every JSON body to its end, and
 * POST /api/convert then waited forever for bytes that never came. Now what a parser kept is used
 * where it still says what the client sent (express.json's object, express.raw's Buffer), and a
 * body taken into anything else (a form, a stream read by hand, a fetch Request already read) is
 * refused at once with CONFIG, said to the host's log too. The client's timeout below is only a
 * guard against the hang this fixes: every assertion is on the answer's status and code.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import express, { type RequestHandler } from 'express';
import Fastify from 'fastify';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpRouter } from '../src/adapters/http/express.js';
import { createFastifyPlugin } from '../src/adapters/http/fastify.js';
import { createFetchHandler } from '../src/adapters/http/fetch.js';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createFsStorage } from '../src/adapters/storage/fs.js';
import { createSharpConverter } from '../src/converters/sharp/index.js';
import { createEngine, type Engine } from '../src/index.js';

const SECRET = 'fileconv-embedding-test-signing-secret-0123456789';
const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** Long past any answer here; only there so a regression fails instead of hanging the suite. */
const HANG_GUARD_MS = 15_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startedEngine(): Promise<Engine> {
  const root = await mkdtemp(join(tmpdir(), 'fileconv-host-parsers-'));
  const engine = createEngine({
    storage: createFsStorage({ dir: join(root, 'storage'), fsync: false }),
    jobs: createMemoryJobStore(),
    queue: createMemoryQueue(),
    converters: [createSharpConverter()],
    tempDir: root,
    sweepIntervalMs: 0,
  });
  await engine.start();
  cleanups.push(async () => {
    await engine.close();
    await rm(root, { recursive: true, force: true });
  });
  return engine;
}

interface HostApp {
  url: string;
  /** What the service reported to the host's log (onError). */
  logged: unknown[];
}

/** An Express app that runs `parsers` on every request, then fileconv mounted at /files. */
async function hostApp(...parsers: RequestHandler[]): Promise<HostApp> {
  const engine = await startedEngine();
  const logged: unknown[] = [];
  const app = express();
  for (const parser of parsers) app.use(parser);
  app.use(
    '/files',
    createHttpRouter(engine, { signingSecret: SECRET, onError: (error) => logged.push(error) }),
  );
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/files`, logged };
}

async function post(url: string, body: string | FormData, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers,
    signal: AbortSignal.timeout(HANG_GUARD_MS),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

function pngForm(png: Buffer): FormData {
  const form = new FormData();
  form.append('file', new Blob([png], { type: 'image/png' }), 'picture.png');
  return form;
}

/** Flow B through the host app: multipart upload, JSON convert, download; the result decoded. */
async function convertPngToWebp(app: HostApp) {
  const png = await readFile(join(FIXTURES, 'fixture.png'));
  const uploaded = await post(`${app.url}/api/upload`, pngForm(png));
  expect(uploaded.status, uploaded.text).toBe(200);
  const convert = () =>
    post(
      `${app.url}/api/convert`,
      JSON.stringify({ fileId: uploaded.body.fileId, fileName: 'picture.png', targetFormat: 'webp' }),
      { 'content-type': 'application/json', 'idempotency-key': 'host-parsed-convert' },
    );
  const converted = await convert();
  expect(converted.status, converted.text).toBe(200);
  // The retry's body, read back from what the parser kept, is the same request: the first answer again.
  expect((await convert()).body).toEqual(converted.body);
  const download = await fetch(`${app.url}/api/download?id=${converted.body.downloadId as string}`);
  expect(download.status).toBe(200);
  const meta = await sharp(Buffer.from(await download.arrayBuffer())).metadata();
  expect([meta.format, meta.width, meta.height]).toEqual(['webp', 64, 48]);
}

describe('fileconv mounted after the host app body parsers', () => {
  it('express.json(): the parsed JSON is used, and a PNG converts through Flow B', async () => {
    const app = await hostApp(express.json());
    await convertPngToWebp(app);
    expect(app.logged).toEqual([]);
  });

  it('express.raw() of every type: the Buffer it kept is the body, the multipart upload included', async () => {
    const app = await hostApp(express.raw({ type: () => true, limit: '10mb' }));
    await convertPngToWebp(app);
    expect(app.logged).toEqual([]);
  });

  it('a JSON body the host parser read is still held to the service own rules (not JSON: refused as ever)', async () => {
    const app = await hostApp(express.json());
    const refused = await post(`${app.url}/api/convert`, JSON.stringify({ fileId: 42 }), {
      'content-type': 'application/json',
    });
    expect(refused.status, refused.text).toBe(400);
    expect((refused.body.error as { code: string }).code).toBe('INVALID_REQUEST');
  });

  it('express.urlencoded(): a form the service cannot read back is CONFIG at once, with a log line', async () => {
    const app = await hostApp(express.urlencoded());
    const refused = await post(`${app.url}/api/convert`, 'fileId=abc&targetFormat=webp', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(refused.status, refused.text).toBe(500);
    const error = refused.body.error as { code: string; message: string };
    expect(error.code).toBe('CONFIG');
    expect(error.message).toContain('mount fileconv before body parsers such as express.json()');
    expect(app.logged).toEqual([expect.objectContaining({ code: 'CONFIG' })]);
  });

  it('a multipart upload whose stream a host middleware read to its end: CONFIG, not a hang', async () => {
    const readToEnd: RequestHandler = (req, _res, next) => {
      req.on('end', () => next());
      req.resume();
    };
    const app = await hostApp(readToEnd);
    const png = await readFile(join(FIXTURES, 'fixture.png'));
    const refused = await post(`${app.url}/api/upload`, pngForm(png));
    expect(refused.status, refused.text).toBe(500);
    expect((refused.body.error as { code: string }).code).toBe('CONFIG');
    expect(app.logged).toHaveLength(1);
  });

  it('a request without a body that a middleware read anyway is answered as usual', async () => {
    const readToEnd: RequestHandler = (req, _res, next) => {
      req.on('end', () => next());
      req.resume();
    };
    const app = await hostApp(readToEnd);
    const formats = await fetch(`${app.url}/api/formats`, { signal: AbortSignal.timeout(HANG_GUARD_MS) });
    expect(formats.status).toBe(200);
    expect(((await formats.json()) as { formats: unknown[] }).formats.length).toBeGreaterThan(0);
  });
});

describe('the Fastify plugin', () => {
  it("keeps the host's body parsers out of its scope, and answers CONFIG for a body a host hook read", async () => {
    const engine = await startedEngine();
    const logged: unknown[] = [];
    const app = Fastify();
    // A host-wide hook that reads every body itself (as a decompressing or logging hook would).
    app.addHook('preParsing', async (request, _reply, payload) => {
      if (request.url.includes('/hooked/')) {
        for await (const _chunk of payload);
        return Readable.from([]);
      }
      return payload;
    });
    const options = { signingSecret: SECRET, onError: (error: unknown) => logged.push(error) };
    app.register(createFastifyPlugin(engine, options), { prefix: '/files' });
    app.register(createFastifyPlugin(engine, options), { prefix: '/hooked' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => app.close());
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ fileId: 'no-such-file', fileName: 'a.png', targetFormat: 'webp' });

    // Fastify's own JSON parser (the host's) is not applied inside the plugin: the service reads it.
    const unknownFile = await post(`${base}/files/api/convert`, body, json);
    expect(unknownFile.status, unknownFile.text).toBe(404);
    const hooked = await post(`${base}/hooked/api/convert`, body, json);
    expect(hooked.status, hooked.text).toBe(500);
    expect((hooked.body.error as { code: string }).code).toBe('CONFIG');
    expect(logged).toEqual([expect.objectContaining({ code: 'CONFIG' })]);
  });
});

describe('the fetch handler given a Request whose body was already read', () => {
  it('answers CONFIG at once and logs it', async () => {
    const engine = await startedEngine();
    const logged: unknown[] = [];
    const handler = createFetchHandler(engine, {
      signingSecret: SECRET,
      onError: (error) => logged.push(error),
    });
    const request = new Request('http://localhost/api/convert', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fileId: 'abc', targetFormat: 'webp' }),
    });
    await request.json(); // what a route handler in front of fileconv might have done
    const response = await handler(request);
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('CONFIG');
    expect(body.error.message).toContain('mount fileconv before body parsers such as express.json()');
    expect(logged).toEqual([expect.objectContaining({ code: 'CONFIG' })]);
  });
});
