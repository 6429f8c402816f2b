/**
 * Which storage, job store, queue, counters and key store a `serve` or `worker` process uses.
 * One machine (the default): files and records under the data dir, an in-process queue, memory
 * counters. Many machines: a Redis URL selects the Redis job store, BullMQ queue, counters, key
 * store and Idempotency-Key store; an S3 bucket selects S3 storage. Every process of one
 * deployment must see the same ones. The settings come from the caller (createFileconv, which
 * resolves them from its options and the settings table): nothing here reads the environment.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqliteDatabase } from '../adapters/sqlite/database.js';
import type {
  CounterStore,
  IdempotencyStore,
  JobStore,
  KeyStore,
  Queue,
  Storage,
  WebhookOutbox,
} from '../core/ports/index.js';
import { isRunning, removeDeadProcessDirs } from '../kit/process-temp.js';

/** Which backends to open, resolved by the caller. */
export interface BackendSettings {
  /** Redis for the job store, queue, counters and keys; none: one machine. */
  redisUrl?: string | undefined;
  /** S3 storage for files; none: files in the data dir. */
  s3?: S3Settings | undefined;
  /** With Redis: how long a silent worker keeps its job (BullMQ's lock), ms. */
  queueLockMs: number;
}

/** Where a bucket is, as an option gives it (createFileconv's `s3`): each field optional. */
export interface S3Location {
  endpoint?: string | undefined;
  region?: string | undefined;
  forcePathStyle?: boolean | undefined;
  prefix?: string | undefined;
}

/** A bucket and where it is, every field resolved. */
export interface S3Settings {
  bucket: string;
  endpoint?: string | undefined;
  region: string;
  forcePathStyle: boolean;
  prefix: string;
}

export interface Backends {
  storage: Storage;
  jobs: JobStore;
  queue: Queue;
  counters: CounterStore;
  keys: KeyStore;
  /** Idempotency-Key claims and the answers they replay. */
  idempotency: IdempotencyStore;
  /** Where webhook deliveries wait for their next attempt. */
  outbox: WebhookOutbox;
  /** Whether every process of the deployment shares them (Redis), so API and workers may be apart. */
  shared: boolean;
  /** One line for the start-up log. */
  description: string;
  close(): Promise<void>;
}

export async function createBackends(dataDir: string, settings: BackendSettings): Promise<Backends> {
  const { redisUrl, s3 } = settings;

  let storage: Storage;
  let storageText: string;
  if (s3) {
    const { createS3Storage } = await import('../adapters/storage/s3.js');
    const { bucket, endpoint, region, forcePathStyle, prefix } = s3;
    storage = createS3Storage({ bucket, ...(endpoint ? { endpoint } : {}), region, forcePathStyle, prefix });
    storageText = `s3://${bucket}${endpoint ? ` at ${endpoint}` : ''}`;
  } else {
    const { createFsStorage } = await import('../adapters/storage/fs.js');
    storage = createFsStorage({ dir: join(dataDir, 'files') });
    storageText = `files in ${join(dataDir, 'files')}`;
  }

  if (redisUrl) {
    const [
      { createRedisJobStore },
      { createBullmqQueue },
      { createRedisCounterStore },
      { createRedisKeyStore },
      { createRedisOutbox },
      { createRedisIdempotencyStore },
    ] = await Promise.all([
      import('../adapters/jobs/redis.js'),
      import('../adapters/queue/bullmq.js'),
      import('../adapters/counters/redis.js'),
      import('../adapters/keys/redis.js'),
      import('../adapters/outbox/redis.js'),
      import('../adapters/idempotency/redis.js'),
    ]);
    const jobs = createRedisJobStore({ url: redisUrl });
    // How fast a dead worker's job is handed to another: BullMQ's lock and stalled check.
    const lockMs = settings.queueLockMs;
    const queue = createBullmqQueue({
      url: redisUrl,
      lockDurationMs: lockMs,
      stalledIntervalMs: Math.max(500, Math.floor(lockMs / 2)),
    });
    const counters = createRedisCounterStore({ url: redisUrl });
    const keys = createRedisKeyStore({ url: redisUrl });
    const outbox = createRedisOutbox({ url: redisUrl });
    const idempotency = createRedisIdempotencyStore({ url: redisUrl });
    return {
      storage,
      jobs,
      queue,
      counters,
      keys,
      idempotency,
      outbox,
      shared: true,
      description: `${storageText}; jobs, queue, limits, keys and webhooks on Redis (${redactUrl(redisUrl)})`,
      async close() {
        await Promise.allSettled([counters.close?.(), keys.close?.(), outbox.close(), idempotency.close()]);
      },
    };
  }

  // One machine: everything that must outlive the process in one SQLite file, one serving
  // process per data dir.
  await mkdir(dataDir, { recursive: true });
  const [
    { createSqliteJobStore },
    { createSqliteKeyStore },
    { createSqliteCounterStore },
    { createSqliteOutbox },
    { createSqliteIdempotencyStore },
    { createMemoryQueue },
    { lockDataDir },
  ] = await Promise.all([
    import('../adapters/jobs/sqlite.js'),
    import('../adapters/keys/sqlite.js'),
    import('../adapters/counters/sqlite.js'),
    import('../adapters/outbox/sqlite.js'),
    import('../adapters/idempotency/sqlite.js'),
    import('../adapters/queue/memory.js'),
    import('./data-dir-lock.js'),
  ]);
  const lock = await lockDataDir(dataDir);
  let database: SqliteDatabase;
  try {
    database = await openDataDirDatabase(dataDir);
  } catch (error) {
    lock.release();
    throw error;
  }
  const counters = createSqliteCounterStore({ database });
  const idempotency = createSqliteIdempotencyStore({ database });
  return {
    storage,
    jobs: createSqliteJobStore({ database }),
    queue: createMemoryQueue(),
    counters,
    keys: createSqliteKeyStore({ database }),
    idempotency,
    outbox: createSqliteOutbox({ database }),
    shared: false,
    description: `${storageText}; jobs, limits, keys and webhooks in ${database.path}, in-process queue`,
    async close() {
      await counters.close();
      await idempotency.close();
      database.close();
      lock.release();
    },
  };
}

/** The embedded database of a data dir. */
export function databasePathOf(dataDir: string): string {
  return join(dataDir, 'fileconv.db');
}

/** Opens the data dir's database, bringing in the records of an older fileconv's JSON stores. */
export async function openDataDirDatabase(dataDir: string): Promise<SqliteDatabase> {
  const [{ openSqliteDatabase }, { importLegacyStores }] = await Promise.all([
    import('../adapters/sqlite/database.js'),
    import('./legacy-import.js'),
  ]);
  const database = await openSqliteDatabase(databasePathOf(dataDir));
  try {
    await importLegacyStores(dataDir, database);
  } catch (error) {
    database.close();
    throw error;
  }
  return database;
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * A temp dir of this process's own under the data dir (`tmp/<pid>`), so processes sharing a data
 * dir never touch each other's work. Dirs of processes that no longer run (killed mid-conversion)
 * are removed on the way, and so are the engines' own dirs such processes left in the OS temp dir
 * (the LibreOffice and Chromium pools'): a process started again after a SIGKILL clears what its
 * predecessor left at start, not when it first uses those engines.
 */
export async function processTempDir(dataDir: string): Promise<string> {
  await removeDeadProcessDirs(tmpdir());
  const parent = join(dataDir, 'tmp');
  await mkdir(parent, { recursive: true });
  for (const entry of await readdir(parent)) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || isRunning(pid)) continue;
    await rm(join(parent, entry), { recursive: true, force: true });
  }
  const own = join(parent, String(process.pid));
  await mkdir(own, { recursive: true });
  return own;
}
