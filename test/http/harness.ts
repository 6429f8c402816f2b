/**
 * End-to-end harness for the HTTP API: the service mounted under `/v1` through one of its
 * adapters (FILECONV_HTTP_ADAPTER: express (default), node, fetch through @hono/node-server, or
 * fastify; `npm test` runs the HTTP suites once per adapter), listening on a real port, backed by a real engine (fs storage, fs or memory job store,
 * memory queue, the sharp converter) in private temp dirs. Helpers drive it with global fetch
 * (JSON, multipart) and node:http (raw bodies and headers), and list what storage kept.
 * Every server started here is closed, and every temp dir removed, after each test.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAdaptorServer } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, expect } from 'vitest';
import { createHttpRouter } from '../../src/adapters/http/express.js';
import { createFastifyPlugin, fileconvFrameworkErrors } from '../../src/adapters/http/fastify.js';
import { createFetchHandler } from '../../src/adapters/http/fetch.js';
import { createNodeHandler } from '../../src/adapters/http/node.js';
import { createFsJobStore } from '../../src/adapters/jobs/fs.js';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createFsStorage } from '../../src/adapters/storage/fs.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { createEngine, definePlans, type Engine, type EngineOptions, type Queue } from '../../src/index.js';
import type { AuthRequest, HttpServiceOptions } from '../../src/service/service.js';

/** The router's signing secret (>= 32 bytes); tests that forge URLs sign with it too. */
export const SECRET = 'fileconv-http-e2e-signing-secret-0123456789';
/** Where the router is mounted: every link it hands out must carry it. */
export const PREFIX = '/v1';
export const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');

export interface StartOptions {
  /**
   * Run the engine's worker (engine.start()). Default true; false keeps jobs queued, as on an API
   * node whose workers run elsewhere: the memory queue then does not say it is in-process
   * (see `sharedQueue`), so the service accepts jobs nobody here runs yet. To test an in-process
   * queue without a worker, pass `engine: { queue: createMemoryQueue() }` too.
   */
  start?: boolean;
  /** Reuse the dirs of an earlier server (a restart); they stay owned by the first. */
  root?: string;
  /** Job records in files (needed for restarts and to list file records). Default 'fs'. */
  jobStore?: 'fs' | 'memory';
  /** Identify callers by the `x-test-client` header (owner `client:<value>`), for ownership tests. */
  clients?: boolean;
  /** The Free plan's upload limit, bytes (the plans' default otherwise). */
  maxFileBytes?: number;
  /** Service options over the harness's own (an `authenticate` here replaces `clients`'s). */
  router?: Omit<HttpServiceOptions, 'signingSecret'>;
  engine?: Partial<EngineOptions>;
  /**
   * A hand-moved clock for both the router (`now`: limit windows, URL signatures) and the engine
   * (records, upload and result expiry); `router.now` / `engine.now` still override it.
   */
  clock?: MovableClock;
  /**
   * One server for a whole test file (started in beforeAll, e.g. beside a browser): not stopped
   * after each test; the caller's `stop()` closes it and removes its dirs, and the caller checks
   * `serverErrors` itself.
   */
  perFile?: boolean;
}

/** A clock that stands still until a test moves it. */
export interface MovableClock {
  /** Epoch ms (the router's `now`, a counter store's `now`). */
  now(): number;
  /** The same instant as a Date (the engine's `now`). */
  date(): Date;
  /** Jumps to an instant: an ISO string or epoch ms. */
  set(at: string | number): void;
  advance(ms: number): void;
}

export function movableClock(start: string | number): MovableClock {
  const toMs = (at: string | number) => (typeof at === 'number' ? at : Date.parse(at));
  let current = toMs(start);
  if (!Number.isFinite(current)) throw new Error(`movableClock: bad instant ${String(start)}`);
  return {
    now: () => current,
    date: () => new Date(current),
    set(at) {
      current = toMs(at);
    },
    advance(ms) {
      current += ms;
    },
  };
}

export interface TestServer {
  /** Base URL of the mounted router, e.g. http://127.0.0.1:12345/v1 */
  url: string;
  engine: Engine;
  root: string;
  /** The engine's clock runs at real time plus an offset that tests can move forward. */
  advanceClock(ms: number): void;
  /** 5xx errors the router reported. */
  serverErrors: unknown[];
  /** Closes the HTTP server and the engine (idempotent). */
  stop(): Promise<void>;
  /** Every file under the storage dir (objects, metadata, temp files), relative paths, sorted. */
  storedFiles(): Promise<string[]>;
  /** Ids of the file records the job store holds (fs job store only). */
  fileRecords(): Promise<string[]>;
  /** Ids of the job records the job store holds (fs job store only). */
  jobRecords(): Promise<string[]>;
  /** Whatever conversions left in the engine's temp dir (must be nothing). */
  tempLeftovers(): Promise<string[]>;
  /** Bytes the server has read from all its connections so far (headers and bodies). */
  bytesReceived(): number;
}

const servers: TestServer[] = [];
const roots: string[] = [];

afterEach(async () => {
  const stopping = servers.splice(0);
  // Servers first (they hold files open), then their dirs.
  await Promise.all(stopping.map((server) => server.stop()));
  await Promise.all(roots.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  // No test expects a 5xx: every bad input must be refused with its own code.
  const unexpected = stopping.flatMap((server) => server.serverErrors);
  expect(unexpected, 'errors the router reported as 5xx').toEqual([]);
});

/**
 * The queue as a shared one (BullMQ) looks to the engine: without `hasHandler`, so nothing here
 * judges whether a worker runs (the test plays the remote worker by calling engine.start() later).
 */
export function sharedQueue(queue: Queue): Queue {
  const size = queue.size?.bind(queue);
  return {
    enqueue: (jobId, enqueueOptions) => queue.enqueue(jobId, enqueueOptions),
    process: (handler, processOptions) => queue.process(handler, processOptions),
    close: () => queue.close(),
    ...(size ? { size } : {}),
  };
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  let root = options.root;
  if (!root) {
    root = await mkdtemp(join(tmpdir(), 'fileconv-http-'));
    if (!options.perFile) roots.push(root);
  }
  const dirs = { storage: join(root, 'storage'), jobs: join(root, 'jobs'), temp: join(root, 'temp') };
  await mkdir(dirs.temp, { recursive: true });
  let offsetMs = 0;
  const engine = createEngine({
    storage: createFsStorage({ dir: dirs.storage, fsync: false }),
    jobs:
      options.jobStore === 'memory'
        ? createMemoryJobStore()
        : createFsJobStore({ dir: dirs.jobs, fsync: false }),
    queue: options.start === false ? sharedQueue(createMemoryQueue()) : createMemoryQueue(),
    converters: [createSharpConverter()],
    tempDir: dirs.temp,
    sweepIntervalMs: 0,
    now: options.clock ? options.clock.date : () => new Date(Date.now() + offsetMs),
    ...options.engine,
  });
  const serverErrors: unknown[] = [];
  const serviceOptions: HttpServiceOptions = {
    signingSecret: SECRET,
    ...(options.maxFileBytes === undefined
      ? {}
      : { plans: definePlans({ free: { maxFileBytes: options.maxFileBytes } }) }),
    onError: (error) => serverErrors.push(error),
    ...(options.clock ? { now: options.clock.now } : {}),
    ...(options.clients
      ? {
          // Each x-test-client value is an account of its own, on the Free plan.
          authenticate: (request: AuthRequest) => ({
            accountId: `client-${request.header('x-test-client') ?? 'anonymous'}`,
            plan: 'free',
          }),
        }
      : {}),
    ...options.router,
  };
  if (options.start !== false) await engine.start();
  const server = await listen(mountService(engine, serviceOptions));
  const { port } = server.address() as AddressInfo;
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => sockets.add(socket));

  let stopped: Promise<void> | undefined;
  const handle: TestServer = {
    url: `http://127.0.0.1:${port}${PREFIX}`,
    engine,
    root,
    serverErrors,
    advanceClock(ms) {
      offsetMs += ms;
    },
    stop() {
      stopped ??= (async () => {
        // Let responses in flight finish (a download's pipeline may still be closing its file
        // after the client has every byte); cut what is still open after a second.
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const cut = setTimeout(() => server.closeAllConnections(), 1_000);
        await closed;
        clearTimeout(cut);
        await engine.close({ graceMs: 5_000 });
        if (options.perFile && !options.root) await rm(root, { recursive: true, force: true });
      })();
      return stopped;
    },
    async storedFiles() {
      return listFiles(dirs.storage);
    },
    fileRecords: () => recordIds(join(dirs.jobs, 'files')),
    jobRecords: () => recordIds(join(dirs.jobs, 'jobs')),
    tempLeftovers: () => readdir(dirs.temp),
    bytesReceived: () => [...sockets].reduce((sum, socket) => sum + socket.bytesRead, 0),
  };
  if (!options.perFile) servers.push(handle);
  return handle;
}

async function recordIds(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => []);
  return names
    .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort();
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

export function fixture(name: string): Promise<Buffer> {
  return readFile(join(FIXTURES, name));
}

// ---- Adapters -------------------------------------------------------------------------------

export type AdapterName = 'express' | 'node' | 'fetch' | 'fastify';
const ADAPTERS: readonly AdapterName[] = ['express', 'node', 'fetch', 'fastify'];

/** The adapter these tests run through: FILECONV_HTTP_ADAPTER, default express. */
export const HTTP_ADAPTER: AdapterName = (() => {
  const chosen = process.env.FILECONV_HTTP_ADAPTER ?? 'express';
  if (!ADAPTERS.includes(chosen as AdapterName))
    throw new Error(`FILECONV_HTTP_ADAPTER=${chosen}: use ${ADAPTERS.join(', ')}`);
  return chosen as AdapterName;
})();

type Mounted = { kind: 'server'; server: Server } | { kind: 'fastify'; app: ReturnType<typeof Fastify> };

/** The service mounted at PREFIX through HTTP_ADAPTER, not yet listening. */
function mountService(engine: Engine, options: HttpServiceOptions): Mounted {
  switch (HTTP_ADAPTER) {
    case 'express': {
      const { authenticate, ...rest } = options;
      const app = express();
      app.use(
        PREFIX,
        createHttpRouter(engine, {
          ...rest,
          ...(authenticate
            ? {
                authenticate: (req) =>
                  authenticate({
                    method: req.method,
                    path: req.path,
                    header: (name) => req.get(name),
                    raw: req,
                  }),
              }
            : {}),
        }),
      );
      return { kind: 'server', server: createServer(app) };
    }
    case 'node':
      return {
        kind: 'server',
        server: createServer(createNodeHandler(engine, { ...options, basePath: PREFIX })),
      };
    case 'fetch': {
      // Compression on: these suites check the service's answers, compressed ones included.
      const handler = createFetchHandler(engine, { compression: true, ...options, basePath: PREFIX });
      const server = createAdaptorServer({
        fetch: (request: Request, env: { incoming: { socket: { remoteAddress?: string | undefined } } }) =>
          handler(request, { remoteAddress: env.incoming.socket.remoteAddress }),
      }) as Server;
      return { kind: 'server', server };
    }
    case 'fastify': {
      const app = Fastify({ frameworkErrors: fileconvFrameworkErrors });
      app.register(createFastifyPlugin(engine, options), { prefix: PREFIX });
      return { kind: 'fastify', app };
    }
  }
}

async function listen(mounted: Mounted): Promise<Server> {
  if (mounted.kind === 'fastify') {
    await mounted.app.listen({ port: 0, host: '127.0.0.1' });
    return mounted.app.server;
  }
  const { server } = mounted;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

// ---- HTTP helpers ---------------------------------------------------------------------------

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or null when the body is empty or not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert their types
  body: any;
  text: string;
}

export interface CallOptions {
  /** Sent as JSON with Content-Type application/json. */
  json?: unknown;
  body?: RequestInit['body'];
  headers?: Record<string, string>;
  /** The `x-test-client` header (servers started with `clients: true`). */
  client?: string;
  /**
   * Bind the client socket to this local address (e.g. '127.0.0.2': every 127.x.y.z reaches the
   * server on 127.0.0.1), so the server sees another client IP. Sent with node:http.
   */
  localAddress?: string;
}

/** Who sends a helper's requests: an `x-test-client` value, or full call options (headers, localAddress). */
export type Caller = string | CallOptions;

function callerOptions(caller: Caller | undefined): CallOptions {
  return typeof caller === 'string' ? { client: caller } : { ...caller };
}

/** A request to `path` under the server's base URL (or to an absolute URL). */
export async function call(
  server: TestServer,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.client) headers['x-test-client'] = options.client;
  let body = options.body;
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  }
  const url = path.startsWith('http') ? path : `${server.url}${path}`;
  const response = options.localAddress
    ? await fetchFrom(options.localAddress, url, { method, headers, body })
    : await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** fetch() over node:http from a chosen local address (fetch cannot bind one). Buffers the body. */
async function fetchFrom(localAddress: string, url: string, init: RequestInit): Promise<Response> {
  // Request serialises any fetch body (JSON text, bytes, FormData) and its Content-Type.
  const request = new Request(url, init);
  const bytes = init.body == null ? undefined : Buffer.from(await request.arrayBuffer());
  const headers: Record<string, string> = Object.fromEntries(request.headers);
  if (bytes) headers['content-length'] = String(bytes.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const one of Array.isArray(value) ? value : [value ?? '']) responseHeaders.append(name, one);
        }
        resolve(
          new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: responseHeaders }),
        );
      });
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

/** Asserts the error shape `{ error: { code, message } }` with its status and code. */
export function expectError(response: ApiResponse, status: number, code: string): void {
  expect(
    { status: response.status, code: response.body?.error?.code },
    `body: ${response.text.slice(0, 500)}`,
  ).toEqual({ status, code });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const { error } = response.body as { error: Record<string, unknown> };
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(typeof error.message).toBe('string');
  expect((error.message as string).length).toBeGreaterThan(0);
  for (const key of Object.keys(error)) expect(['code', 'message', 'details']).toContain(key);
}

/** The server still answers: GET /api/health is 200 ok. */
export async function expectAlive(server: TestServer): Promise<void> {
  const health = await call(server, 'GET', '/api/health');
  expect(health.status).toBe(200);
  expect(health.body.status).toBe('ok');
}

// ---- Flow A helpers -------------------------------------------------------------------------

export interface Grant {
  uploadUrl: string;
  fileKey: string;
  fileId: string;
  expiresIn: number;
}

export async function grant(
  server: TestServer,
  request: { fileName: string; fileSize: number; contentType: string },
  client?: Caller,
): Promise<Grant> {
  const response = await call(server, 'POST', '/api/files/get-upload-url', {
    ...callerOptions(client),
    json: request,
  });
  expect(response.status, response.text).toBe(200);
  return response.body as Grant;
}

export async function put(
  uploadUrl: string,
  bytes: Uint8Array,
  contentType: string,
  from?: { localAddress?: string },
): Promise<ApiResponse> {
  const init = { method: 'PUT', headers: { 'content-type': contentType }, body: bytes };
  const response = from?.localAddress
    ? await fetchFrom(from.localAddress, uploadUrl, init)
    : await fetch(uploadUrl, init);
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Grant + PUT: an uploaded file, ready for a job. */
export async function uploadA(
  server: TestServer,
  bytes: Uint8Array,
  fileName: string,
  contentType: string,
  client?: Caller,
): Promise<Grant> {
  const granted = await grant(server, { fileName, fileSize: bytes.length, contentType }, client);
  const stored = await put(granted.uploadUrl, bytes, contentType, callerOptions(client));
  expect(stored.status, stored.text).toBe(200);
  return granted;
}

/** Polls GET /api/jobs/{id} until the job leaves queued/processing. */
export async function pollJob(server: TestServer, jobId: string, client?: Caller, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await call(server, 'GET', `/api/jobs/${jobId}`, callerOptions(client));
    expect(response.status, response.text).toBe(200);
    if (!['queued', 'processing'].includes(response.body.status)) return response.body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${response.body.status}`);
    await sleep(50);
  }
}

// ---- Flow B helpers -------------------------------------------------------------------------

export function multipart(bytes: Uint8Array, fileName: string, type = 'application/octet-stream'): FormData {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), fileName);
  return form;
}

export function uploadB(server: TestServer, bytes: Uint8Array, fileName: string, client?: Caller) {
  return call(server, 'POST', '/api/upload', { ...callerOptions(client), body: multipart(bytes, fileName) });
}

// ---- Raw HTTP (node:http) -------------------------------------------------------------------

export interface RawResult {
  /** 0 when the connection was reset before a response could be read. */
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert their types
  json: any;
  /** The socket error that ended the exchange before a response was read (EPIPE, ECONNRESET). */
  resetBy: string | null;
  /** Body bytes the client handed to the socket before it stopped (or finished). */
  bytesSent: number;
  /** The whole request body was written. */
  bodyFinished: boolean;
}

/**
 * One request with full control of headers and body (no Content-Length unless given: a stream
 * body goes chunked). Behaves like a careful client (RFC 9112 section 9.5): it stops sending the
 * body once a response arrives (unless `keepSendingMs`). Resolves once the response is complete, or with `resetBy` when
 * the server closed the connection before a response could be read.
 */
export function rawRequest(
  url: string,
  init: {
    method: string;
    headers?: Record<string, string>;
    body?: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
    /** Keep sending the body this long after the response, like a client that ignores it. */
    keepSendingMs?: number;
    /** Bind the client socket to this local address (another loopback IP). */
    localAddress?: string;
  },
): Promise<RawResult> {
  return new Promise((resolve) => {
    let bytesSent = 0;
    let bodyFinished = false;
    let answered = false;
    const source =
      init.body === undefined
        ? undefined
        : init.body instanceof Uint8Array
          ? Readable.from([Buffer.from(init.body)])
          : Readable.from(init.body);
    const req = httpRequest(url, {
      method: init.method,
      headers: init.headers ?? {},
      ...(init.localAddress ? { localAddress: init.localAddress } : {}),
    });
    const result = (fields: Partial<RawResult>): RawResult => ({
      status: 0,
      headers: {},
      body: Buffer.alloc(0),
      json: null,
      resetBy: null,
      bytesSent,
      bodyFinished,
      ...fields,
    });
    req.on('response', (res) => {
      answered = true;
      if (!init.keepSendingMs) source?.destroy(); // stop sending: the server has answered
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      const done = async () => {
        if (init.keepSendingMs && !bodyFinished && !req.destroyed) await sleep(init.keepSendingMs);
        source?.destroy();
        const body = Buffer.concat(chunks);
        let json: unknown = null;
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {}
        req.destroy();
        resolve(result({ status: res.statusCode ?? 0, headers: res.headers, body, json }));
      };
      res.on('end', done);
      res.on('aborted', done);
      res.on('error', done);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered) source?.destroy();
      if (!answered) resolve(result({ resetBy: error.code ?? error.message }));
    });
    if (!source) {
      req.end();
      return;
    }
    source.on('data', (chunk: Buffer) => {
      if ((answered && !init.keepSendingMs) || req.destroyed) return;
      bytesSent += chunk.length;
      if (!req.write(chunk)) {
        source.pause();
        req.once('drain', () => source.resume());
      }
    });
    source.on('end', () => {
      bodyFinished = true;
      req.end();
    });
  });
}

/** `total` bytes of zeros in 64 KiB chunks, generated as they are pulled. */
export function* zeros(total: number, chunkBytes = 64 * 1024): Generator<Buffer> {
  const chunk = Buffer.alloc(chunkBytes);
  for (let sent = 0; sent < total; sent += chunkBytes) {
    yield sent + chunkBytes <= total ? chunk : chunk.subarray(0, total - sent);
  }
}
