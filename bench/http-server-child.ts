/**
 * A benchmark server in its own process, started by startChildServer (bench/http-client.ts)
 * with its configuration as JSON in argv[2]. Modes:
 *
 * - `fileconv`: the service (bench/http-app.ts) with the storage and job store asked for;
 * - `busboy`: the bare baseline for uploads: plain node:http, busboy piping the file into
 *   fs.createWriteStream, answering with the size once the file is closed;
 * - `express-json`: the bare baseline for job polling: one Express route answering `json`;
 * - `adapter-fileconv`, `adapter-bare`: the adapter benchmark's servers (bench/http-adapters.ts):
 *   fileconv mounted in `framework`, or the same routes written bare in it.
 *
 * It samples its own RSS every 50 ms and answers IPC messages: `rss` (baseline at start, peak
 * since start, current), `cpu` (CPU time used so far), `clean` (delete uploaded bytes), `stop`. It exits when the parent
 * disconnects, and after 15 minutes whatever happens.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, fdatasync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import busboy from 'busboy';
import type { Framework } from './http-adapters-bare.js';
import type { ChildMessage } from './http-client.js';

interface ChildConfig {
  mode: 'fileconv' | 'busboy' | 'express-json' | 'adapter-fileconv' | 'adapter-bare';
  storage?: 'fs' | 'memory';
  jobs?: 'memory' | 'fs' | 'sqlite';
  maxFileBytes?: number;
  fsync?: boolean;
  /** busboy: durability of the written file (a diagnostic; the baseline is 'none'). */
  sync?: SyncMode;
  /** express-json: the body every GET /api/jobs/:jobId answers. */
  json?: unknown;
  /** adapter-*: the framework serving the routes. */
  framework?: Framework;
  /** adapter-bare: the body GET /api/health answers. */
  health?: unknown;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
const reply = (message: ChildMessage) => process.send?.(message);

const safety = setTimeout(() => process.exit(2), 15 * 60_000);
safety.unref();
process.on('disconnect', () => process.exit(0));

let baseline = process.memoryUsage().rss;
let peak = baseline;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 50);

/** The descriptor of an open fs.WriteStream (a documented property the typings lack). */
const fdOf = (stream: NodeJS.WritableStream) => (stream as unknown as { fd: number | null }).fd;

/** How the bare upload server makes the file durable: not at all, fsync at the end, or also every 64 MiB. */
type SyncMode = 'none' | 'end' | 'periodic';
const PERIODIC_SYNC_BYTES = 64 * 1024 * 1024;

/**
 * Plain node:http + busboy -> fs.createWriteStream: what any hand-written upload endpoint does.
 * `sync` other than 'none' is a diagnostic: 'end' fsyncs before close (like fs storage), and
 * 'periodic' also starts an fdatasync every 64 MiB so the disk writes overlap the upload.
 */
async function startBusboy(dir: string, sync: SyncMode): Promise<{ server: Server; stop(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/api/upload') {
      res.writeHead(404).end();
      return;
    }
    const fail = (error: unknown) => {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(String(error));
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1 } });
    } catch (error) {
      fail(error);
      return;
    }
    let written: Promise<number> | undefined;
    parser.on('file', (_field, stream) => {
      const out = createWriteStream(join(dir, randomUUID()), { flush: sync !== 'none' });
      written = new Promise<number>((resolve, reject) => {
        out.on('close', () => resolve(out.bytesWritten));
        out.on('error', reject);
      });
      if (sync === 'periodic') {
        let unsynced = 0;
        let syncing = false;
        stream.on('data', (chunk: Buffer) => {
          unsynced += chunk.length;
          if (unsynced < PERIODIC_SYNC_BYTES || syncing || typeof fdOf(out) !== 'number' || out.writableEnded)
            return;
          unsynced = 0;
          syncing = true;
          fdatasync(fdOf(out)!, () => {
            syncing = false;
          });
        });
      }
      stream.pipe(out);
    });
    parser.on('error', fail);
    parser.on('close', () => {
      if (!written) return fail('no file');
      written.then((size) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ size }));
      }, fail);
    });
    req.pipe(parser);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function startExpressJson(body: unknown): Promise<{ server: Server; stop(): Promise<void> }> {
  const { default: express } = await import('express');
  const app = express();
  app.disable('x-powered-by');
  app.get('/api/jobs/:jobId', (_req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json(body);
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  return {
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), `fileconv-bench-${config.mode}-`));
  let running: { server: Server; stop(): Promise<void> } | { port: number; stop(): Promise<void> };
  let clean = async () => {};
  if (config.mode === 'adapter-fileconv') {
    const { startFileconv } = await import('./http-adapters-mounts.js');
    running = await startFileconv(config.framework ?? 'node', dir);
  } else if (config.mode === 'adapter-bare') {
    const { startBare } = await import('./http-adapters-bare.js');
    running = await startBare(config.framework ?? 'node', { dir, health: config.health ?? {} });
  } else if (config.mode === 'fileconv') {
    // Loaded only here, so the bare baselines' processes hold no fileconv code (nor sharp).
    const { startBenchService } = await import('./http-app.js');
    running = await startBenchService({
      dir,
      storage: config.storage ?? 'fs',
      jobs: config.jobs ?? 'memory',
      ...(config.maxFileBytes === undefined ? {} : { maxFileBytes: config.maxFileBytes }),
      ...(config.fsync === undefined ? {} : { fsync: config.fsync }),
    });
    // Uploaded bytes only: the records stay, which nothing here reads again.
    clean = async () => {
      await rm(join(dir, 'files', 'uploads'), { recursive: true, force: true });
    };
  } else if (config.mode === 'busboy') {
    const uploads = join(dir, 'uploads');
    await mkdir(uploads);
    running = await startBusboy(uploads, config.sync ?? 'none');
    clean = async () => {
      for (const name of await readdir(uploads)) await rm(join(uploads, name), { force: true });
    };
  } else {
    running = await startExpressJson(config.json ?? {});
  }

  const stop = async () => {
    clearInterval(sampler);
    await running.stop();
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('message', (message: { type: string }) => {
    const handle = async () => {
      if (message.type === 'rss') {
        const current = process.memoryUsage().rss;
        peak = Math.max(peak, current);
        reply({ type: 'rss', baseline, peak, current });
      } else if (message.type === 'cpu') {
        const usage = process.cpuUsage();
        reply({ type: 'cpu', user: usage.user, system: usage.system });
      } else if (message.type === 'clean') {
        await clean();
        reply({ type: 'cleaned' });
      } else if (message.type === 'stop') {
        await stop();
      }
    };
    handle().catch((error: unknown) => reply({ type: 'failed', message: String(error) }));
  });
  // Let start-up allocations settle before taking the baseline.
  await new Promise((resolve) => setTimeout(resolve, 200));
  baseline = process.memoryUsage().rss;
  peak = baseline;
  reply({ type: 'ready', port: portOf(running), rss: baseline });
}

function portOf(running: { server: Server } | { port: number }): number {
  if ('port' in running) return running.port;
  const address = running.server.address();
  if (!address || typeof address === 'string') throw new Error('server has no port');
  return address.port;
}

main().catch((error: unknown) => {
  reply({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
