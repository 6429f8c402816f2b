/**
 * In-memory KeyStore: key records in a Map for the life of the process, indexed by hash for
 * authentication. For tests and embedding; keys made here vanish on restart. Records are
 * copied on the way in and out, so a caller can never change what is stored.
 */
import type { ApiKeyRecord, KeyStore } from '../../core/ports/index.js';
import {
  assertStorableKeyRecord,
  duplicateKeyError,
  isKeyId,
  selectKeys,
  unknownKeyError,
} from './key-rules.js';

/** An in-memory KeyStore. It takes no options. */
export function createMemoryKeyStore(): KeyStore {
  const byId = new Map<string, ApiKeyRecord>();
  const idByHash = new Map<string, string>();
  return {
    async create(record) {
      assertStorableKeyRecord(record);
      if (byId.has(record.id)) throw duplicateKeyError(record, 'id');
      if (idByHash.has(record.hash)) throw duplicateKeyError(record, 'hash');
      byId.set(record.id, structuredClone(record));
      idByHash.set(record.hash, record.id);
    },
    async findByHash(hash) {
      const id = typeof hash === 'string' ? idByHash.get(hash) : undefined;
      const record = id === undefined ? undefined : byId.get(id);
      return record ? structuredClone(record) : null;
    },
    async list(filter) {
      return selectKeys(byId.values(), filter).map((record) => structuredClone(record));
    },
    async revoke(id, revokedAt) {
      const record = isKeyId(id) ? byId.get(id) : undefined;
      if (!record) throw unknownKeyError(id);
      if (record.revokedAt === null) {
        assertStorableKeyRecord({ ...record, revokedAt });
        record.revokedAt = revokedAt;
      }
      return structuredClone(record);
    },
  };
}
