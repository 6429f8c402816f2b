/**
 * The embedded database of a one-machine deployment: one SQLite file (WAL mode) holding jobs,
 * upload records, API keys, rate-limit and quota counters and pending webhook deliveries, so that
 * a restart or a crash forgets none of them. The schema is versioned (PRAGMA user_version) and
 * migrated on open, inside a transaction.
 *
 * Two connections to the one file, because the two kinds of writes want different durability:
 * - `durable` (synchronous=FULL): records a client is told about (a job id, an upload, a key, a
 *   webhook delivery). Every commit is on disk before it returns, power cut included.
 * - `fast` (synchronous=NORMAL): counters, written on every request. A commit survives the
 *   process being killed (it is in the OS's page cache); a power cut may lose the last ones,
 *   which only ever gives a client back a few requests. Measured here: FULL ~0.25 ms a write,
 *   NORMAL ~0.03 ms.
 * - `synced()`, for the records written on every job (an upload, a job): committed on `fast`,
 *   then made durable by one fdatasync of the WAL file on libuv's thread pool, shared by every
 *   caller waiting at that moment (group commit, as a database server does it). The event loop
 *   never waits on the disk for them, and the caller's promise resolves only once they are on
 *   disk, power cut included: what FULL gives, without blocking every other request for it.
 *
 * A file that is not a database, or a database from a newer fileconv, is refused before anything
 * is written to it, with a message that names the file and what to do.
 */
import { existsSync } from 'node:fs';
import { type FileHandle, mkdir, open, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { FileconvError } from '../../core/errors.js';
import { NO_SPACE_RETRY_AFTER_SECONDS } from '../../kit/local-files.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';
import { loadSqlite } from './sqlite-package.js';

export type SqliteConnection = BetterSqlite3.Database;

export interface SqliteDatabase {
  readonly path: string;
  /** For records a client was told about: each commit is fsync'd. */
  readonly durable: SqliteConnection;
  /** For counters: each commit survives a crash of this process, not a power cut. */
  readonly fast: SqliteConnection;
  /**
   * Resolves once every commit made so far, on either connection, is on disk (power cut
   * included): one fdatasync of the WAL off the event loop for all the callers waiting at once.
   */
  synced(): Promise<void>;
  /** Closes both connections (idempotent). */
  close(): void;
}

export interface OpenSqliteOptions {
  /** How long a write waits for another process's write to finish, ms. Default 5000. */
  busyTimeoutMs?: number;
}

/** What an operator reads when the file cannot be used. */
function unusable(path: string, problem: string, advice: string, cause?: unknown): FileconvError {
  return new FileconvError('INTERNAL', `The database ${path} ${problem}. ${advice}`, {
    details: { path },
    ...(cause === undefined ? {} : { cause }),
  });
}

const RESTORE_ADVICE =
  'Nothing was changed in it. Restore it from a backup, or move it (and its -wal and -shm files) aside to start with an empty database.';

function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Maps SQLite's errors about the file itself onto the operator message; others pass through. */
export function databaseError(path: string, error: unknown): unknown {
  const code = sqliteCode(error);
  if (code === 'SQLITE_NOTADB') return unusable(path, 'is not a SQLite database', RESTORE_ADVICE, error);
  if (code?.startsWith('SQLITE_CORRUPT')) return unusable(path, 'is damaged', RESTORE_ADVICE, error);
  // The disk (or its quota) is full: the write did not happen and may once space is freed.
  if (code === 'SQLITE_FULL') {
    return new FileconvError(
      'NO_SPACE',
      `Writing to the database ${path} failed: no space left on the device.`,
      {
        details: { retryAfterSeconds: NO_SPACE_RETRY_AFTER_SECONDS },
        cause: error,
      },
    );
  }
  return error;
}

/**
 * Opens (creating when missing) the database at `path` and migrates it to this version's schema.
 * Throws a FileconvError naming the file when it is not a database, is damaged, or was made by
 * a newer fileconv.
 */
export async function openSqliteDatabase(
  path: string,
  options: OpenSqliteOptions = {},
): Promise<SqliteDatabase> {
  const Database = await loadSqlite();
  await mkdir(dirname(path), { recursive: true });
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  if (existsSync(path)) await inspectExisting(Database, path);

  const open = (synchronous: 'FULL' | 'NORMAL') => {
    const connection = new Database(path, { timeout: busyTimeoutMs });
    try {
      connection.pragma('journal_mode = WAL');
      connection.pragma(`synchronous = ${synchronous}`);
      return connection;
    } catch (error) {
      connection.close();
      throw databaseError(path, error);
    }
  };
  const durable = open('FULL');
  let fast: SqliteConnection | undefined;
  try {
    migrate(durable, path);
    fast = open('NORMAL');
  } catch (error) {
    durable.close();
    throw error;
  }
  let closed = false;
  const wal = groupCommit(`${path}-wal`);
  return {
    path,
    durable,
    fast,
    synced: () =>
      closed
        ? Promise.reject(new FileconvError('INVALID_STATE', `The database ${path} is closed.`))
        : wal.sync(),
    close() {
      if (closed) return;
      closed = true;
      wal.close();
      fast?.close();
      durable.close();
    },
  };
}

/**
 * Group commit over a WAL file: `sync()` resolves once an fdatasync of the file that began after
 * the call has ended. In WAL mode a commit is the frames appended to that file, so its data on
 * disk is the commit on disk (what synchronous=FULL does inside the commit, on the event loop).
 * One sync runs at a time; the callers that arrive meanwhile share the next one.
 */
function groupCommit(walPath: string): { sync(): Promise<void>; close(): void } {
  // Opened once, on the first sync (the WAL exists from the first commit on). A read-only
  // descriptor may be synced: the kernel flushes the file's pages, whoever wrote them.
  let file: Promise<FileHandle> | undefined;
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const flush = async () => {
    file ??= open(walPath, 'r');
    file.catch(() => {
      file = undefined;
    });
    await (await file).datasync();
  };
  const sync = (): Promise<void> => {
    if (!running) {
      running = flush().finally(() => {
        running = undefined;
      });
      return running;
    }
    // The sync under way may have begun before this caller's commit: it waits for the one after.
    next ??= running
      .catch(() => {})
      .then(() => {
        next = undefined;
        return sync();
      });
    return next;
  };
  return {
    sync,
    close() {
      const closing = file;
      file = undefined;
      // After the sync under way, whose callers are owed its answer.
      void Promise.resolve(running)
        .catch(() => {})
        .then(() => closing?.then((handle) => handle.close()))
        .catch(() => {});
    },
  };
}

/** The 16 bytes every SQLite database file starts with. */
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Looks at an existing file before anything writes to it: its header (not a database; a newer
 * fileconv's schema version, kept at offset 60) and a quick integrity check (damaged), through
 * a read-only connection. A read-only open of a WAL database makes -wal and -shm files beside
 * it; those it made (empty, where none were before) are removed again.
 */
async function inspectExisting(Database: typeof BetterSqlite3, path: string): Promise<void> {
  const header = Buffer.alloc(100);
  const handle = await open(path, 'r');
  let bytesRead: number;
  try {
    ({ bytesRead } = await handle.read(header, 0, 100, 0));
  } finally {
    await handle.close();
  }
  if (bytesRead === 0) return; // an empty file is an empty database to SQLite
  if (bytesRead < 100 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) {
    throw unusable(path, 'is not a SQLite database', RESTORE_ADVICE);
  }
  const version = header.readUInt32BE(60);
  if (version > SCHEMA_VERSION) {
    throw unusable(
      path,
      `was made by a newer fileconv (schema version ${version}; this one knows up to ${SCHEMA_VERSION})`,
      'Nothing was changed in it. Run the newer fileconv, or restore a backup made by this version.',
    );
  }
  const companions = [`${path}-wal`, `${path}-shm`].filter((file) => !existsSync(file));
  try {
    const reader = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const check = reader.pragma('quick_check(1)', { simple: true });
      if (check !== 'ok') throw unusable(path, `is damaged (${String(check)})`, RESTORE_ADVICE);
    } finally {
      reader.close();
    }
  } catch (error) {
    throw databaseError(path, error);
  } finally {
    for (const file of companions) {
      const made = await stat(file).catch(() => null);
      if (made?.isFile() && (made.size === 0 || file.endsWith('-shm'))) await rm(file, { force: true });
    }
  }
}

/** Applies the migrations this file has not had yet, all in one transaction. */
function migrate(connection: SqliteConnection, path: string): void {
  try {
    connection
      .transaction(() => {
        const current = connection.pragma('user_version', { simple: true }) as number;
        // Another process may have migrated between the inspection and this transaction.
        if (current > SCHEMA_VERSION) {
          throw unusable(
            path,
            `was made by a newer fileconv (schema version ${current})`,
            'Run the newer fileconv.',
          );
        }
        for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
          connection.exec(MIGRATIONS[version - 1]!);
        }
        if (current !== SCHEMA_VERSION) connection.pragma(`user_version = ${SCHEMA_VERSION}`);
      })
      // IMMEDIATE: two processes starting at once migrate one after the other, not both.
      .immediate();
  } catch (error) {
    throw databaseError(path, error);
  }
}
