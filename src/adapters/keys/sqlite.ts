/**
 * SQLite KeyStore: API key records (hashes only, never a secret) in the embedded database, the
 * default of `fileconv serve` on one machine. `fileconv keys create/revoke` writes to the same
 * file while the server runs, and the server reads it on every authentication, so a key made or
 * revoked takes effect at once, and a revocation survives any restart.
 */
import type { ApiKeyRecord, KeyStore } from '../../core/ports/index.js';
import type { SqliteConnection } from '../sqlite/database.js';
import { preparedRunner, type SqliteStoreOptions, sqliteHandle } from '../sqlite/handle.js';
import { assertStorableKeyRecord, duplicateKeyError, isKeyId, unknownKeyError } from './key-rules.js';

const ADAPTER = 'createSqliteKeyStore';

export type SqliteKeyStoreOptions = SqliteStoreOptions;

export function createSqliteKeyStore(options: SqliteKeyStoreOptions): KeyStore & { close(): Promise<void> } {
  const handle = sqliteHandle(ADAPTER, options);
  const statements = (db: SqliteConnection) => ({
    insert: db.prepare(
      'INSERT INTO api_keys (id, hash, account_id, created_at, record) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    byId: db.prepare('SELECT record FROM api_keys WHERE id = ?').pluck(),
    byHash: db.prepare('SELECT record FROM api_keys WHERE hash = ?').pluck(),
    all: db.prepare('SELECT record FROM api_keys ORDER BY created_at, id').pluck(),
    ofAccount: db.prepare('SELECT record FROM api_keys WHERE account_id = ? ORDER BY created_at, id').pluck(),
    update: db.prepare('UPDATE api_keys SET record = ? WHERE id = ?'),
    transaction: db.transaction.bind(db),
  });
  const run = preparedRunner(handle, 'durable', statements);
  const parse = (text: string | undefined) =>
    text === undefined ? null : (JSON.parse(text) as ApiKeyRecord);

  return {
    create: (record) =>
      run((s) => {
        assertStorableKeyRecord(record);
        const { changes } = s.insert.run(
          record.id,
          record.hash,
          record.accountId,
          Date.parse(record.createdAt),
          JSON.stringify(record),
        );
        if (changes === 0) throw duplicateKeyError(record, s.byId.get(record.id) ? 'id' : 'hash');
      }),
    findByHash: (hash) =>
      run((s) => (typeof hash === 'string' ? parse(s.byHash.get(hash) as string | undefined) : null)),
    list: (filter) =>
      run((s) => {
        const rows = (
          filter?.accountId === undefined ? s.all.all() : s.ofAccount.all(filter.accountId)
        ) as string[];
        return rows.map((text) => JSON.parse(text) as ApiKeyRecord);
      }),
    revoke: (id, revokedAt) =>
      run((s) =>
        // One transaction: the first revocation's instant is the one kept, whoever else revokes.
        s.transaction(() => {
          const record = isKeyId(id) ? parse(s.byId.get(id) as string | undefined) : null;
          if (!record) throw unknownKeyError(id);
          if (record.revokedAt !== null) return record;
          const revoked = { ...record, revokedAt };
          assertStorableKeyRecord(revoked);
          s.update.run(JSON.stringify(revoked), id);
          return revoked;
        })(),
      ),
    close: () => handle.close(),
  };
}
