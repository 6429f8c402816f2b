/**
 * Redis KeyStore: API key records shared by every API process of a deployment, so a key made or
 * revoked by `fileconv keys` on any machine counts everywhere at once. Layout: the record as JSON
 * at `<prefix>:apikey:<id>`, its id at `<prefix>:apikey-hash:<sha256>` for authentication, and
 * sorted sets by createdAt (ties by id) of all keys (`<prefix>:apikeys`) and of each account
 * (`<prefix>:apikeys:account:<accountId>`). Create is one Lua script that checks id and hash
 * together; revoke is a compare-and-set on the record, so concurrent revokes keep the first instant.
 */
import { FileconvError } from '../../core/errors.js';
import type { ApiKeyRecord, KeyStore } from '../../core/ports/index.js';
import {
  checkErrorReporter,
  openRedis,
  type RedisConnectionOptions,
  resolveRedisSettings,
} from '../redis/connection.js';
import { getMany, instantScore, luaScript, parseStored, runScript } from '../redis/records.js';
import { checkOptionsObject } from '../validate-options.js';
import {
  assertStorableKeyRecord,
  duplicateKeyError,
  isKeyId,
  selectKeys,
  unknownKeyError,
} from './key-rules.js';

const ADAPTER = 'createRedisKeyStore';
const HASH = /^[0-9a-f]{64}$/;
/** Compare-and-set attempts of one revoke before giving up (each lost round means another revoke won). */
const REVOKE_ROUNDS = 10;

export interface RedisKeyStoreOptions extends RedisConnectionOptions {
  /** Called with connection errors while the client reconnects. Default: a process warning, at most one a minute. */
  onError?: (error: unknown) => void;
}

export interface RedisKeyStore extends KeyStore {
  /** Closes the store's own Redis client (a given `connection` stays open). */
  close(): Promise<void>;
}

/**
 * KEYS[1] record, KEYS[2] hash -> id, KEYS[3] all keys, KEYS[4] the account's keys.
 * ARGV[1] record JSON, ARGV[2] id, ARGV[3] createdAt score. Returns 0 when stored, 1 for a
 * taken id, 2 for a taken hash.
 */
const CREATE = luaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 2 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
return 0
`);

/** KEYS[1] record. ARGV[1] the JSON it must hold, ARGV[2] the JSON to store. 1 = replaced. */
const COMPARE_AND_SET = luaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`);

/** A KeyStore on Redis, shared by every process of a deployment. */
export function createRedisKeyStore(options?: RedisKeyStoreOptions): RedisKeyStore {
  const given = checkOptionsObject(ADAPTER, options);
  const settings = resolveRedisSettings(ADAPTER, given);
  const redis = openRedis(settings, 'keys', checkErrorReporter(ADAPTER, given.onError));
  const recordKey = (id: string) => redis.key(`apikey:${id}`);
  const hashKey = (hash: string) => redis.key(`apikey-hash:${hash}`);
  const allIndex = redis.key('apikeys');
  const accountIndex = (accountId: string) => redis.key(`apikeys:account:${accountId}`);

  async function readRecord(id: string): Promise<{ text: string; record: ApiKeyRecord } | null> {
    const text = await redis.run('read an API key', (client) => client.get(recordKey(id)));
    return text === null ? null : { text, record: parseStored<ApiKeyRecord>(settings, recordKey(id), text) };
  }

  return {
    async create(record) {
      assertStorableKeyRecord(record);
      const outcome = await redis.run('store an API key', (client) =>
        runScript(
          client,
          CREATE,
          [recordKey(record.id), hashKey(record.hash), allIndex, accountIndex(record.accountId)],
          [JSON.stringify(record), record.id, instantScore(record.createdAt)],
        ),
      );
      if (outcome === 1) throw duplicateKeyError(record, 'id');
      if (outcome === 2) throw duplicateKeyError(record, 'hash');
    },

    async findByHash(hash) {
      if (typeof hash !== 'string' || !HASH.test(hash)) return null;
      const id = await redis.run('look up an API key', (client) => client.get(hashKey(hash)));
      return id === null ? null : ((await readRecord(id))?.record ?? null);
    },

    async list(filter) {
      const accountId = filter?.accountId;
      const index = accountId === undefined ? allIndex : accountIndex(accountId);
      const records = await redis.run('list API keys', async (client) => {
        const ids = await client.zrange(index, 0, '-1');
        const texts = await getMany(client, ids.map(recordKey));
        return texts.flatMap((text, position) =>
          text === null ? [] : [parseStored<ApiKeyRecord>(settings, recordKey(ids[position]!), text)],
        );
      });
      return selectKeys(records, filter);
    },

    async revoke(id, revokedAt) {
      if (!isKeyId(id)) throw unknownKeyError(id);
      for (let round = 0; round < REVOKE_ROUNDS; round++) {
        const stored = await readRecord(id);
        if (!stored) throw unknownKeyError(id);
        if (stored.record.revokedAt !== null) return stored.record;
        const revoked = { ...stored.record, revokedAt };
        assertStorableKeyRecord(revoked);
        const replaced = await redis.run('revoke an API key', (client) =>
          runScript(client, COMPARE_AND_SET, [recordKey(id)], [stored.text, JSON.stringify(revoked)]),
        );
        if (replaced === 1) return revoked;
      }
      // Only reachable when the record keeps changing under us without being revoked.
      throw new FileconvError('VERSION_CONFLICT', `The API key "${id}" kept changing; try again.`, {
        details: { id },
      });
    },

    close: () => redis.close(),
  };
}
