/**
 * SQLite IdempotencyStore: Idempotency-Key claims and answers in the embedded database, so a
 * restart replays what was answered before it, and every process of one machine sharing the
 * file sees one claim. A claim is an upsert that takes a key only when it is absent or its
 * lease (or lifetime) has passed, inside an IMMEDIATE transaction; writes use the durable
 * connection, since a lost answer would let a retry create a second job. Expired rows are
 * deleted by a periodic sweep.
 */
import type { IdempotencyClaim, IdempotencyStore } from '../../core/ports/index.js';
import type { SqliteConnection } from '../sqlite/database.js';
import { preparedRunner, type SqliteStoreOptions, sqliteHandle } from '../sqlite/handle.js';
import { checkFunction, checkPositiveInteger } from '../validate-options.js';
import { checkDuration, checkIdempotencyKey, checkText } from './idempotency-rules.js';

const ADAPTER = 'createSqliteIdempotencyStore';

export interface SqliteIdempotencyStoreOptions extends SqliteStoreOptions {
  /** How often expired entries are deleted, ms. Default 60000. */
  sweepIntervalMs?: number;
  /** The clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

export interface SqliteIdempotencyStore extends IdempotencyStore {
  /** Deletes expired entries now; returns how many. */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

interface Row {
  fingerprint: string;
  answer: string | null;
}

export function createSqliteIdempotencyStore(options: SqliteIdempotencyStoreOptions): SqliteIdempotencyStore {
  const handle = sqliteHandle(ADAPTER, options);
  const sweepIntervalMs = checkPositiveInteger(ADAPTER, 'sweepIntervalMs', options.sweepIntervalMs, 60_000);
  const now = checkFunction(ADAPTER, 'now', options.now, Date.now);
  const statements = (db: SqliteConnection) => {
    const take = db.prepare(
      `INSERT INTO idempotency_keys (key, token, fingerprint, answer, expires_at)
       VALUES (@key, @token, @fingerprint, NULL, @expiresAt)
       ON CONFLICT (key) DO UPDATE SET
         token = excluded.token, fingerprint = excluded.fingerprint, answer = NULL,
         expires_at = excluded.expires_at
       WHERE idempotency_keys.expires_at <= @now`,
    );
    const read = db.prepare('SELECT fingerprint, answer FROM idempotency_keys WHERE key = ?');
    const claim = db.transaction(
      (args: { key: string; token: string; fingerprint: string; expiresAt: number; now: number }) => {
        if (take.run(args).changes === 1) return { state: 'claimed' } as IdempotencyClaim;
        const row = read.get(args.key) as Row;
        return (
          row.answer === null
            ? { state: 'pending', fingerprint: row.fingerprint }
            : { state: 'done', fingerprint: row.fingerprint, answer: row.answer }
        ) as IdempotencyClaim;
      },
    );
    const pendingOf = 'key = @key AND token = @token AND answer IS NULL AND expires_at > @now';
    return {
      claim: (args: Parameters<typeof claim>[0]) => claim.immediate(args),
      renew: db.prepare(`UPDATE idempotency_keys SET expires_at = @expiresAt WHERE ${pendingOf}`),
      complete: db.prepare(
        `UPDATE idempotency_keys SET fingerprint = @fingerprint, answer = @answer, expires_at = @expiresAt
         WHERE ${pendingOf}`,
      ),
      release: db.prepare(`DELETE FROM idempotency_keys WHERE ${pendingOf}`),
      sweep: db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?'),
    };
  };
  const run = preparedRunner(handle, 'durable', statements);
  const sweep = () => run((s) => s.sweep.run(now()).changes);
  const sweeper = setInterval(() => {
    sweep().catch(() => {
      // Retried at the next interval; an expired entry is ignored by every query meanwhile.
    });
  }, sweepIntervalMs);
  sweeper.unref();

  return {
    async claim(key, { token, fingerprint, leaseMs }) {
      checkIdempotencyKey(key, token);
      checkText('fingerprint', fingerprint);
      const lease = checkDuration('lease', leaseMs);
      const at = now();
      return run((s) => s.claim({ key, token, fingerprint, expiresAt: at + lease, now: at }));
    },
    async renew(key, token, leaseMs) {
      checkIdempotencyKey(key, token);
      const lease = checkDuration('lease', leaseMs);
      const at = now();
      return run((s) => s.renew.run({ key, token, expiresAt: at + lease, now: at }).changes === 1);
    },
    async complete(key, { token, fingerprint, answer, ttlMs }) {
      checkIdempotencyKey(key, token);
      checkText('fingerprint', fingerprint);
      checkText('answer', answer);
      const ttl = checkDuration('lifetime', ttlMs);
      const at = now();
      return run(
        (s) =>
          s.complete.run({ key, token, fingerprint, answer, expiresAt: at + ttl, now: at }).changes === 1,
      );
    },
    async release(key, token) {
      checkIdempotencyKey(key, token);
      await run((s) => s.release.run({ key, token, now: now() }));
    },
    sweep,
    async close() {
      clearInterval(sweeper);
      await handle.close();
    },
  };
}
