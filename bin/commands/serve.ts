/**
 * `fileconv serve` (what `npm start` runs): the whole service on one machine with nothing to set
 * up. Filesystem storage and job store under the data dir, in-process queue and workers, a
 * signing secret created on first start and kept in the data dir. SIGTERM/SIGINT stop taking
 * requests, let running conversions finish within a grace period and leave the rest queued.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import express from 'express';
import morgan from 'morgan';
import { createMemoryCounterStore } from '../../adapters/counters/memory.js';
import { createHttpRouter } from '../../adapters/http/express.js';
import { createFsJobStore } from '../../adapters/jobs/fs.js';
import { createFsKeyStore } from '../../adapters/keys/fs.js';
import { createMemoryQueue } from '../../adapters/queue/memory.js';
import { createFsStorage } from '../../adapters/storage/fs.js';
import { createEngine, type Engine, FileconvError, refundFailedConversions } from '../../src/index.js';
import { defaultConverters } from '../assembly.js';

export interface ServeFlags {
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
}

export interface RunningService {
  server: Server;
  engine: Engine;
  url: string;
  /** Graceful stop: no new requests, conversions get `graceSeconds` to finish, the rest stay queued. */
  stop(): Promise<void>;
}

/** The signing secret kept in the data dir; created (0600) on first start. */
export async function loadOrCreateSecret(dataDir: string): Promise<Buffer> {
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

/** The data dir from --data, $FILECONV_DATA or ./data. */
export function dataDirOf(flags: { data?: string }): string {
  return resolve(flags.data ?? process.env.FILECONV_DATA ?? 'data');
}

export async function startService(flags: ServeFlags): Promise<RunningService> {
  const dataDir = dataDirOf(flags);
  await mkdir(dataDir, { recursive: true });
  const secret = await loadOrCreateSecret(dataDir);
  const counters = createMemoryCounterStore();
  const keys = createFsKeyStore({ dir: join(dataDir, 'keys') });
  const engine = createEngine({
    converters: defaultConverters(),
    storage: createFsStorage({ dir: join(dataDir, 'files') }),
    jobs: createFsJobStore({ dir: join(dataDir, 'jobs') }),
    queue: createMemoryQueue(),
    tempDir: await mkdir(join(dataDir, 'tmp'), { recursive: true }).then(() => join(dataDir, 'tmp')),
    concurrency: flags.concurrency,
    resultTtlMs: flags.retentionHours === undefined ? undefined : flags.retentionHours * 3_600_000,
    onError: (error, context) => console.error(`fileconv: ${context}:`, error),
    onJobSettled: refundFailedConversions(counters),
  });
  await engine.start({ worker: flags.worker !== false });

  const app = express();
  app.disable('x-powered-by');
  if (flags.log !== false) app.use(morgan('combined'));
  app.use(
    createHttpRouter(engine, {
      signingSecret: secret,
      publicUrl: flags.publicUrl ?? process.env.FILECONV_PUBLIC_URL,
      counters,
      keys,
      trustProxy: parseTrustProxy(flags.trustProxy ?? process.env.FILECONV_TRUST_PROXY),
    }),
  );
  app.use((_req, res) => {
    res.status(404).json({ error: { code: 'NOT_FOUND', message: 'No such endpoint.' } });
  });

  const port = flags.port ?? Number(process.env.PORT ?? 3000);
  const host = flags.host ?? process.env.HOST ?? '0.0.0.0';
  const server = await new Promise<Server>((resolveServer, reject) => {
    const listening = app.listen(port, host, () => resolveServer(listening));
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
      await engine.close({ graceMs: (flags.graceSeconds ?? 30) * 1000 });
      await counters.close?.();
      server.closeAllConnections();
      await closed;
    })();
    return stopping;
  };
  return { server, engine, url, stop };
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
  console.log(
    `fileconv: serving on ${service.url} (data in ${resolve(flags.data ?? process.env.FILECONV_DATA ?? 'data')})`,
  );
  await new Promise<void>((done) => {
    const onSignal = (signal: string) => {
      console.log(
        `fileconv: ${signal}: finishing running conversions (up to ${flags.graceSeconds ?? 30} s)...`,
      );
      service.stop().then(done, (error: unknown) => {
        console.error(error);
        done();
      });
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
  console.log('fileconv: stopped; unfinished jobs stay queued for the next start.');
}
