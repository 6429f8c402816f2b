/**
 * The fileconv service as the HTTP benchmarks run it: assembled like `fileconv serve`
 * (bin/commands/serve.ts) but without the access log, rate limits or quotas, on 127.0.0.1 and a
 * random port, with the sharp converter only and the storage and job store each benchmark asks for.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import express from 'express';
import { createHttpRouter } from '../src/adapters/http/express.js';
import { createFsJobStore } from '../src/adapters/jobs/fs.js';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createSqliteJobStore } from '../src/adapters/jobs/sqlite.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createFsStorage } from '../src/adapters/storage/fs.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import { createSharpConverter } from '../src/converters/sharp/index.js';
import { definePlans } from '../src/core/policy/plans.js';
import { createEngine, type Engine } from '../src/index.js';

export interface BenchServiceConfig {
  /** Everything the service writes goes under this directory. */
  dir: string;
  storage: 'fs' | 'memory';
  /** 'sqlite': the embedded database of `fileconv serve` (a file in `dir`). */
  jobs: 'memory' | 'fs' | 'sqlite';
  /** Upload limit of the Free plan (the plan of callers without a key). Default: the plan table's (25 MB). */
  maxFileBytes?: number;
  /** fs storage's fsync option. Default: the adapter's (true). */
  fsync?: boolean;
}

export interface BenchService {
  url: string;
  engine: Engine;
  server: Server;
  stop(): Promise<void>;
}

/** Listens on 127.0.0.1 with an OS-chosen port. */
export function listenLocal(app: express.Express): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (error?: Error) => {
      if (error) reject(error);
      else resolve(server);
    });
  });
}

export function portOf(server: Server): number {
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('server has no port');
  return address.port;
}

export async function startBenchService(config: BenchServiceConfig): Promise<BenchService> {
  const tempDir = join(config.dir, 'tmp');
  await mkdir(tempDir, { recursive: true });
  const engine = createEngine({
    converters: [createSharpConverter()],
    storage:
      config.storage === 'fs'
        ? createFsStorage({
            dir: join(config.dir, 'files'),
            ...(config.fsync === undefined ? {} : { fsync: config.fsync }),
          })
        : createMemoryStorage(),
    jobs:
      config.jobs === 'fs'
        ? createFsJobStore({ dir: join(config.dir, 'jobs') })
        : config.jobs === 'sqlite'
          ? createSqliteJobStore({ path: join(config.dir, 'fileconv.db') })
          : createMemoryJobStore(),
    queue: createMemoryQueue(),
    tempDir,
    onError: (error, context) => console.error(`fileconv bench: ${context}:`, error),
  });
  await engine.start();

  const app = express();
  app.disable('x-powered-by');
  app.use(
    createHttpRouter(engine, {
      signingSecret: randomBytes(32),
      // No `counters` or `keys`: nothing is rate-limited or metered, as when a host embeds the
      // router without them; the access middleware still runs on every request.
      ...(config.maxFileBytes === undefined
        ? {}
        : { plans: definePlans({ free: { maxFileBytes: config.maxFileBytes } }) }),
    }),
  );
  app.use((_req, res) => {
    res.status(404).json({ error: { code: 'NOT_FOUND', message: 'No such endpoint.' } });
  });
  const server = await listenLocal(app);
  return {
    url: `http://127.0.0.1:${portOf(server)}`,
    engine,
    server,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await engine.close({ graceMs: 5000 });
      await closed;
    },
  };
}
