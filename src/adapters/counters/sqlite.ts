/**
 * SQLite CounterStore: rate-limit and quota counters in the embedded database, so a restart (or
 * a crash) gives nobody a fresh daily quota. An increment is one upsert that treats an expired
 * counter as 0, on the database's fast connection (a commit survives the process being killed;
 * a power cut may lose the last few, which only ever favours the client). Expired rows are
 * deleted by a periodic sweep, so one-off client IPs cannot grow the table without bound.
 */
import type { CounterStore } from '../../core/ports/index.js';
import type { SqliteConnection } from '../sqlite/database.js';
import { preparedRunner, type SqliteStoreOptions, sqliteHandle } from '../sqlite/handle.js';
import { checkFunction, checkPositiveInteger } from '../validate-options.js';
import { checkCounterArguments } from './counter-rules.js';

const ADAPTER = 'createSqliteCounterStore';

export interface SqliteCounterStoreOptions extends SqliteStoreOptions {
  /** How often expired counters are deleted, ms. Default 60000. */
  sweepIntervalMs?: number;
  /** The clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

export interface SqliteCounterStore extends CounterStore {
  /** Deletes expired counters now; returns how many. */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

export function createSqliteCounterStore(options: SqliteCounterStoreOptions): SqliteCounterStore {
  const handle = sqliteHandle(ADAPTER, options);
  const sweepIntervalMs = checkPositiveInteger(ADAPTER, 'sweepIntervalMs', options.sweepIntervalMs, 60_000);
  const now = checkFunction(ADAPTER, 'now', options.now, Date.now);
  const statements = (db: SqliteConnection) => ({
    // An expired row counts as 0: it restarts at `amount` with the new expiry.
    increment: db
      .prepare(
        `INSERT INTO counters (key, value, expires_at) VALUES (@key, @amount, @expiresAt)
         ON CONFLICT (key) DO UPDATE SET
           value = CASE WHEN counters.expires_at <= @now THEN @amount ELSE counters.value + @amount END,
           expires_at = @expiresAt
         RETURNING value`,
      )
      .pluck(),
    read: db.prepare('SELECT value FROM counters WHERE key = ? AND expires_at > ?').pluck(),
    sweep: db.prepare('DELETE FROM counters WHERE expires_at <= ?'),
  });
  const run = preparedRunner(handle, 'fast', statements);
  const sweep = () => run((s) => s.sweep.run(now()).changes);
  const sweeper = setInterval(() => {
    sweep().catch(() => {
      // A failed sweep is retried at the next interval; counters stay correct meanwhile.
    });
  }, sweepIntervalMs);
  sweeper.unref();

  return {
    async increment(key, amount, expiresAt) {
      checkCounterArguments(key, amount, expiresAt);
      return run(
        (s) => s.increment.get({ key, amount, expiresAt: Math.ceil(expiresAt), now: now() }) as number,
      );
    },
    async get(key) {
      checkCounterArguments(key);
      return run((s) => (s.read.get(key, now()) as number | undefined) ?? 0);
    },
    sweep,
    async close() {
      clearInterval(sweeper);
      await handle.close();
    },
  };
}
