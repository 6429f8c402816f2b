/**
 * Shared pieces of the webhook tests: an engine on memory ports with fake (copying or failing)
 * converters, and a real HTTP receiver on 127.0.0.1 that records every delivery and answers
 * with scripted statuses. Everything started here is closed after each test.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../../src/adapters/storage/memory.js';
import { type Converter, createEngine, type Engine, type EngineOptions } from '../../src/index.js';
import { copyConverter } from '../helpers/fake-converters.js';
import { tempDir } from '../helpers/temp.js';

export const OWNER = 'acct_webhooks';
export const WEBHOOK_SECRET = 'fileconv-webhook-test-secret-0123456789abcdef';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** txt -> md fails, every other step copies; the copy waits a little after reporting progress. */
export function testConverters(): Converter[] {
  const failing: Converter = {
    name: 'broken',
    edges: [{ from: 'txt', to: 'html', cost: 1 }],
    available: async () => ({ ok: true }),
    async convert() {
      throw new Error('the fake converter broke');
    },
  };
  return [copyConverter('copy', [{ from: 'txt', to: 'md', cost: 1 }], 100), failing];
}

export async function startEngine(overrides: Partial<EngineOptions> = {}): Promise<Engine> {
  const engine = createEngine({
    storage: createMemoryStorage(),
    jobs: createMemoryJobStore(),
    queue: createMemoryQueue(),
    converters: testConverters(),
    tempDir: await tempDir(),
    sweepIntervalMs: 0,
    // Every progress report saved and emitted: the event tests follow a job step by step.
    progressIntervalMs: 0,
    ...overrides,
  });
  cleanups.push(() => engine.close());
  return engine;
}

/** Uploads a small text file and creates a job for it (targetFormat 'md' completes, 'html' fails). */
export async function createTextJob(engine: Engine, targetFormat: 'md' | 'html', webhookUrl?: string) {
  const file = await engine.uploadFile({ owner: OWNER, fileName: 'note.txt', body: Buffer.from('hello\n') });
  return engine.createJob({
    owner: OWNER,
    fileId: file.id,
    targetFormat,
    ...(webhookUrl === undefined ? {} : { webhookUrl }),
  });
}

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedDelivery[];
}

/** A receiver answering `statuses[i]` to the i-th request (the last one thereafter). */
export async function startReceiver(statuses: number[] = [200]): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = statuses[Math.min(received.length, statuses.length) - 1]!;
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/fileconv`, port, received };
}

/** Registers a cleanup (a dispatcher's close) run after the test, before the engine closes. */
export function onCleanup(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}

/**
 * Flow A over HTTP against a running service: an upload grant, the PUT of `png`, and a PNG ->
 * WebP job with `webhookUrl`. Resolves with the job id.
 */
export async function createWebhookJobOverHttp(
  baseUrl: string,
  png: Buffer,
  webhookUrl: string,
): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((response) => response.json() as Promise<Record<string, string>>);
  const grant = await post('/api/files/get-upload-url', {
    fileName: 'dot.png',
    fileSize: png.length,
    contentType: 'image/png',
  });
  await fetch(grant.uploadUrl!, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png });
  const { jobId } = await post('/api/jobs/create', {
    fileKey: grant.fileKey,
    sourceFormat: 'png',
    targetFormat: 'webp',
    fileSize: png.length,
    webhookUrl,
  });
  if (!jobId) throw new Error('the job was not created');
  return jobId;
}
