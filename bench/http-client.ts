/**
 * The HTTP client side shared by the HTTP benchmarks: plain node:http requests (no fetch, so
 * the client costs the same for fileconv and for the bare baselines), multipart bodies built by
 * hand, a bounded keep-alive load generator, and child-process servers with RSS sampling.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { type Agent, request } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

export interface HttpResponse {
  status: number;
  headers: import('node:http').IncomingHttpHeaders;
  body: Buffer;
}

export interface RequestInit {
  method?: string;
  headers?: Record<string, string | number>;
  /** A complete body, or chunks streamed with backpressure (give content-length yourself). */
  body?: Buffer | string | AsyncIterable<Buffer> | Iterable<Buffer>;
  agent?: Agent;
  /** Stream the response body into this file instead of buffering it. */
  saveTo?: string;
  /** Connect from this local address (a fresh connection, without the agent's keep-alive pool). */
  localAddress?: string;
}

/** One request; resolves with the buffered response (or an empty body when `saveTo` is given). */
export function send(url: string, init: RequestInit = {}): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    const req = request(url, {
      method: init.method ?? 'GET',
      headers: init.headers,
      agent: init.agent,
      ...(init.localAddress ? { localAddress: init.localAddress } : {}),
    });
    req.on('error', reject);
    req.on('response', (res) => {
      if (init.saveTo && res.statusCode === 200) {
        pipeline(res, createWriteStream(init.saveTo)).then(
          () => resolve({ status: 200, headers: res.headers, body: Buffer.alloc(0) }),
          reject,
        );
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    const body = init.body;
    if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) {
      req.end(body);
    } else {
      pipeline(Readable.from(body, { objectMode: false }), req).catch(reject);
    }
  });
}

/** send(), then fails unless the status is 200; returns the parsed JSON body. */
export async function sendJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const res = await send(url, init);
  if (res.status !== 200) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${res.body}`);
  return JSON.parse(res.body.toString('utf8')) as T;
}

/** The framing of a multipart/form-data body with one file in the field `file`. */
export function multipartFraming(fileName: string, contentType: string) {
  const boundary = `----fileconv-bench-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
      `Content-Type: ${contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { boundary, head, tail, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A whole multipart body around `file`, for small uploads. */
export function multipartBody(fileName: string, contentType: string, file: Buffer) {
  const framing = multipartFraming(fileName, contentType);
  return { body: Buffer.concat([framing.head, file, framing.tail]), contentType: framing.contentType };
}

/**
 * Sends `total` GET requests to `url`, at most `concurrency` in flight over keep-alive
 * connections, and fails on any status but 200. Bounded: stops after `total`.
 */
export async function hammer(url: string, total: number, concurrency: number, agent: Agent): Promise<void> {
  let issued = 0;
  const worker = async () => {
    while (issued < total) {
      issued++;
      const res = await send(url, { agent });
      if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${res.body}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

// ---- Child-process servers ---------------------------------------------------------------

/** What the child server says on IPC. */
export type ChildMessage =
  | { type: 'ready'; port: number; rss: number }
  | { type: 'rss'; baseline: number; peak: number; current: number }
  | { type: 'cpu'; user: number; system: number }
  | { type: 'cleaned' }
  | { type: 'failed'; message: string };

/** The parent's handle on a server running in bench/http-server-child.ts. */
export interface ChildServer {
  url: string;
  /** RSS (bytes) right after the server started: the baseline growth is measured against. */
  baselineRss: number;
  /** Peak RSS seen by the child's 50 ms sampler since it started (or since the last reset). */
  rss(): Promise<{ baseline: number; peak: number; current: number }>;
  /** CPU time the child has used so far (process.cpuUsage(): all its threads), µs. */
  cpu(): Promise<{ user: number; system: number }>;
  /** Removes whatever the uploads left on disk. */
  clean(): Promise<void>;
  stop(): Promise<void>;
}

const CHILD_SCRIPT = fileURLToPath(new URL('./http-server-child.ts', import.meta.url));

/**
 * Starts bench/http-server-child.ts in its own Node process (tsx loader), so its RSS is the
 * server's alone. `config` is passed as JSON in argv. The child exits when the parent goes away.
 * BENCH_CHILD_CPU_PROF=<dir> makes every child write a V8 CPU profile there (node --cpu-prof);
 * BENCH_CHILD_NODE_ARGS adds Node flags to every child (e.g. --trace-gc).
 */
export async function startChildServer(config: Record<string, unknown>): Promise<ChildServer> {
  const profileDir = process.env.BENCH_CHILD_CPU_PROF;
  const child: ChildProcess = fork(CHILD_SCRIPT, [JSON.stringify(config)], {
    execArgv: [
      '--import',
      'tsx',
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...(process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T extends ChildMessage['type']>(type: T): Promise<Extract<ChildMessage, { type: T }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: ChildMessage) => {
        if (message.type === 'failed') {
          cleanup();
          reject(new Error(`bench server child: ${message.message}`));
        } else if (message.type === type) {
          cleanup();
          resolve(message as Extract<ChildMessage, { type: T }>);
        }
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`bench server child exited (${code}) before sending '${type}'`));
      };
      const cleanup = () => {
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.on('exit', onExit);
    });
  const ready = await next('ready');
  return {
    url: `http://127.0.0.1:${ready.port}`,
    baselineRss: ready.rss,
    async rss() {
      const reply = next('rss');
      child.send({ type: 'rss' });
      return reply;
    },
    async cpu() {
      const reply = next('cpu');
      child.send({ type: 'cpu' });
      const { user, system } = await reply;
      return { user, system };
    },
    async clean() {
      const reply = next('cleaned');
      child.send({ type: 'clean' });
      await reply;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
