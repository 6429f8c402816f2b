/**
 * The embedded database's schema, as the migrations that build it: MIGRATIONS[n - 1] takes a
 * database from version n - 1 to n. Append only: a released migration is never edited, since
 * databases out there already ran it.
 *
 * Records are kept whole as JSON (the stores hand out exactly what they were given), beside the
 * columns the queries need: status and creation time for job listings, expiry for the sweeps,
 * the due time of webhook deliveries, the hash of API keys. Instants are epoch milliseconds.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: jobs, uploads, API keys, counters, webhook deliveries.
  `
  CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    record TEXT NOT NULL
  ) STRICT;
  CREATE INDEX jobs_by_status ON jobs (status, created_at, id);

  CREATE TABLE files (
    id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    record TEXT NOT NULL
  ) STRICT;
  CREATE INDEX files_by_expiry ON files (expires_at, id);

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    record TEXT NOT NULL
  ) STRICT;
  CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at, id);

  CREATE TABLE counters (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX counters_by_expiry ON counters (expires_at);

  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    due_at INTEGER NOT NULL,
    record TEXT NOT NULL
  ) STRICT;
  CREATE INDEX webhook_deliveries_by_due ON webhook_deliveries (due_at, id);
  `,
  // 2: Idempotency-Key claims and the answers they replay (answer NULL while pending).
  `
  CREATE TABLE idempotency_keys (
    key TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    answer TEXT,
    expires_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
