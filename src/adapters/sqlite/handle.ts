/**
 * How each SQLite adapter gets at the database: the one a host (or `fileconv serve`) opened and
 * shares between the job, key, counter and webhook stores, or one of its own opened from a path
 * on first use. An adapter closes only a database it opened itself.
 */
import { FileconvError } from '../../core/errors.js';
import { checkNonEmptyString, checkOptionsObject, invalidOption } from '../validate-options.js';
import { databaseError, openSqliteDatabase, type SqliteConnection, type SqliteDatabase } from './database.js';

export interface SqliteStoreOptions {
  /** A database opened with openSqliteDatabase, shared with the other stores (never closed by this one). */
  database?: SqliteDatabase;
  /** Or the database file to open on first use (and close with the store). */
  path?: string;
}

export interface SqliteHandle {
  get(): Promise<SqliteDatabase>;
  close(): Promise<void>;
}

export function sqliteHandle(adapter: string, options: SqliteStoreOptions | undefined): SqliteHandle {
  const given = checkOptionsObject(adapter, options);
  if ((given.database === undefined) === (given.path === undefined)) {
    throw invalidOption(adapter, 'database', 'either a database or a path (one of them)', given.database);
  }
  if (given.database !== undefined) {
    const { database } = given;
    if (typeof database !== 'object' || database === null || !('durable' in database)) {
      throw invalidOption(adapter, 'database', 'a database from openSqliteDatabase', database);
    }
    let closed = false;
    return {
      get: () =>
        closed
          ? Promise.reject(new FileconvError('INVALID_STATE', `${adapter}: the store is closed.`))
          : Promise.resolve(database),
      async close() {
        closed = true;
      },
    };
  }
  const path = checkNonEmptyString(adapter, 'path', given.path);
  let opening: Promise<SqliteDatabase> | undefined;
  let closed = false;
  return {
    get() {
      if (closed)
        return Promise.reject(new FileconvError('INVALID_STATE', `${adapter}: the store is closed.`));
      opening ??= openSqliteDatabase(path);
      opening.catch(() => {
        opening = undefined;
      });
      return opening;
    },
    async close() {
      closed = true;
      const database = await opening?.catch(() => undefined);
      database?.close();
    },
  };
}

/**
 * A store's way to run its queries: `prepare` makes its statements once, on the connection named
 * (`durable` for records a client is told about, `fast` for counters), and each `run(work)` uses
 * them; SQLite's complaints about the file itself become the operator's message naming it.
 * `synced` is for the records written on every job: the work runs on the fast connection and the
 * promise resolves once it is on disk (SqliteDatabase.synced, a group commit off the event loop).
 */
export function preparedRunner<S>(
  handle: SqliteHandle,
  connection: 'durable' | 'fast' | 'synced',
  prepare: (db: SqliteConnection) => S,
): <R>(work: (statements: S) => R) => Promise<R> {
  let prepared: S | undefined;
  return async <R>(work: (statements: S) => R): Promise<R> => {
    const database = await handle.get();
    try {
      prepared ??= prepare(database[connection === 'durable' ? 'durable' : 'fast']);
      const result = work(prepared);
      if (connection === 'synced') await database.synced();
      return result;
    } catch (error) {
      throw databaseError(database.path, error);
    }
  };
}
