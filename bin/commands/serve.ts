/**
 * `fileconv serve` (what `npm start` runs): the whole service on one machine with nothing to set
 * up. Filesystem storage and job store under the data dir, in-process queue and workers, a
 * signing secret created on first start and kept in the data dir. With REDIS_URL (and S3_BUCKET)
 * it is one API node of many, with or without its own workers (--no-worker). SIGTERM/SIGINT stop
 * taking requests, let running conversions finish within a grace period, leave the rest queued.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { createNodeHandler } from '../../adapters/http/node.js';
import { createWebhookDispatcher, type WebhookDispatcher } from '../../adapters/webhooks/http.js';
import {
  createEngine,
  type Engine,
  FileconvError,
  refundFailedConversions,
  type WebhookOutbox,
} from '../../src/index.js';
import { defaultConverters } from '../assembly.js';
import { type BackendFlags, createBackends, processTempDir, requireShared } from '../backends.js';
import { createServiceLog, logFormatOf } from '../logging.js';

export interface ServeFlags extends BackendFlags {
  port?: number;
  host?: string;
  data?: string;
  publicUrl?: string;
  concurrency?: number;
  worker?: boolean;
  graceSeconds?: number;
  retentionHours?: number;
  /** Proxies whose X-Forwarded-For is believed: 'loopback', addresses, subnets, or a hop count. */
  trustProxy?: string;
  log?: boolean;
  /** json (default when stdout is not a terminal) or pretty. */
  logFormat?: string;
  /** The web converter page at the service's root URL; false with --no-web. Default on. */
  web?: boolean;
}

export interface RunningService {
  server: Server;
  engine: Engine;
  url: string;
  /** Graceful stop: no new requests, conversions get `graceSeconds` to finish, the rest stay queued. */
  stop(): Promise<void>;
  /** Which backends it runs on, for the start-up log. */
  description: string;
}

/**
 * The signing secret: $FILECONV_SIGNING_SECRET (shared by every API node of a deployment), else
 * the one kept in the data dir, created (0600) on first start.
 */
export async function loadOrCreateSecret(dataDir: string): Promise<Buffer> {
  const fromEnv = process.env.FILECONV_SIGNING_SECRET;
  if (fromEnv) return Buffer.from(fromEnv, 'utf8');
  const path = join(dataDir, 'signing-secret');
  try {
    const secret = Buffer.from((await readFile(path, 'utf8')).trim(), 'base64url');
    if (secret.length >= 32) return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32);
  await writeFile(path, `${secret.toString('base64url')}\n`, { mode: 0o600 });
  return secret;
}

/**
 * Webhook delivery when $FILECONV_WEBHOOK_SECRET (32+ bytes, the same on every node) is set:
 * without a secret receivers could not verify deliveries, so jobs' webhooks are then not sent.
 * Every node runs one: API nodes send job.canceled, workers job.completed and job.failed.
 * FILECONV_WEBHOOK_ALLOW_PRIVATE=1 lets them reach private addresses (receivers on an intranet).
 */
export function webhooksFromEnv(engine: Engine, outbox: WebhookOutbox): WebhookDispatcher | undefined {
  const secret = process.env.FILECONV_WEBHOOK_SECRET;
  return secret
    ? createWebhookDispatcher(engine, {
        secret,
        outbox,
        allowPrivateAddresses: process.env.FILECONV_WEBHOOK_ALLOW_PRIVATE === '1',
        onDelivery: (report) => {
          if (!report.ok) console.error(`fileconv: webhook for job ${report.jobId} failed: ${report.error}`);
        },
      })
    : undefined;
}

/** The data dir from --data, $FILECONV_DATA or ./data. */
export function dataDirOf(flags: { data?: string }): string {
  return resolve(flags.data ?? process.env.FILECONV_DATA ?? 'data');
}

export async function startService(flags: ServeFlags): Promise<RunningService> {
  const dataDir = dataDirOf(flags);
  await mkdir(dataDir, { recursive: true });
  const secret = await loadOrCreateSecret(dataDir);
  const backends = await createBackends(dataDir, flags);
  if (flags.worker === false) requireShared(backends, 'fileconv serve --no-worker');
  const { counters, keys } = backends;
  const engine = createEngine({
    converters: defaultConverters(),
    storage: backends.storage,
    jobs: backends.jobs,
    queue: backends.queue,
    tempDir: await processTempDir(dataDir),
    concurrency: flags.concurrency,
    resultTtlMs: flags.retentionHours === undefined ? undefined : flags.retentionHours * 3_600_000,
    onError: (error, context) => console.error(`fileconv: ${context}:`, error),
    onJobSettled: refundFailedConversions(counters),
  });
  const webhooks = webhooksFromEnv(engine, backends.outbox);
  await engine.start({ worker: flags.worker !== false });

  const log = await createServiceLog({ format: logFormatOf(flags.logFormat), requests: flags.log !== false });
  const unwatch = log.watch(engine);
  // The node:http adapter: of the adapters that pass the HTTP suite, the fastest (npm run bench).
  const handler = createNodeHandler(engine, {
    signingSecret: secret,
    publicUrl: flags.publicUrl ?? process.env.FILECONV_PUBLIC_URL,
    counters,
    keys,
    trustProxy: parseTrustProxy(flags.trustProxy ?? process.env.FILECONV_TRUST_PROXY),
    webConverter: flags.web !== false,
    onRequest: (event) => log.request(event),
    onError: (error) => log.error('request failed', error),
  });

  const port = flags.port ?? Number(process.env.PORT ?? 3000);
  const host = flags.host ?? process.env.HOST ?? '0.0.0.0';
  const server = await new Promise<Server>((resolveServer, reject) => {
    const listening = createServer(handler).listen(port, host, () => resolveServer(listening));
    listening.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new FileconvError('INVALID_REQUEST', `Port ${port} is in use: pass --port or set PORT.`, {
              cause: error,
            })
          : error,
      );
    });
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${boundPort}`;

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const closed = new Promise<void>((done) => server.close(() => done()));
      server.closeIdleConnections();
      // Before the engine closes its job store, which records delivery outcomes.
      await webhooks?.close();
      await engine.close({ graceMs: (flags.graceSeconds ?? 30) * 1000 });
      unwatch();
      await backends.close();
      server.closeAllConnections();
      await closed;
    })();
    return stopping;
  };
  return { server, engine, url, stop, description: backends.description };
}

/** `--trust-proxy` as typed: 'true', a hop count ('1'), or addresses/subnets/names ('loopback, 10.0.0.0/8'). */
function parseTrustProxy(value: string | undefined): boolean | number | string | undefined {
  if (value === undefined || value === '' || value === 'false') return undefined;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** Runs until SIGTERM or SIGINT, then stops gracefully. */
export async function runServe(flags: ServeFlags): Promise<void> {
  const service = await startService(flags);
  const workers = flags.worker === false ? 'no workers' : `${flags.concurrency ?? 2} conversions at once`;
  console.log(`fileconv: serving on ${service.url} (${service.description}; ${workers})`);
  if (flags.web !== false) console.log(`fileconv: web converter at ${service.url}/`);
  await untilSignal(service.stop, flags.graceSeconds ?? 30);
}

/** Waits for SIGTERM or SIGINT, then runs `stop`; says what it is doing. */
export async function untilSignal(stop: () => Promise<void>, graceSeconds: number): Promise<void> {
  await new Promise<void>((done) => {
    const onSignal = (signal: string) => {
      console.log(`fileconv: ${signal}: finishing running conversions (up to ${graceSeconds} s)...`);
      stop().then(done, (error: unknown) => {
        console.error(error);
        done();
      });
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
  console.log('fileconv: stopped; unfinished jobs stay queued for the next start.');
}
