/**
 * Redis IdempotencyStore: Idempotency-Key claims and answers shared by every API node of a
 * deployment. A key is one hash, `<prefix>:idempotency:<key>` (t: the claiming token, f: the
 * fingerprint, a: the answer once done), whose Redis expiry is the lease while pending and the
 * lifetime once done, so a claim whose process died simply disappears. Each operation is one
 * Lua script: of any number of concurrent claims on any nodes exactly one is granted, and only
 * the claim's own token can renew, complete or release it.
 */
import type { IdempotencyClaim, IdempotencyStore } from '../../core/ports/index.js';
import {
  checkErrorReporter,
  openRedis,
  type RedisConnectionOptions,
  resolveRedisSettings,
} from '../redis/connection.js';
import { luaScript, runScript } from '../redis/records.js';
import { checkOptionsObject } from '../validate-options.js';
import { checkDuration, checkIdempotencyKey, checkText } from './idempotency-rules.js';

const ADAPTER = 'createRedisIdempotencyStore';

export interface RedisIdempotencyStoreOptions extends RedisConnectionOptions {
  /** Called with connection errors while the client reconnects. Default: a process warning, at most one a minute. */
  onError?: (error: unknown) => void;
}

export interface RedisIdempotencyStore extends IdempotencyStore {
  /** Closes the store's own Redis client (a given `connection` stays open). */
  close(): Promise<void>;
}

// KEYS[1] the key; ARGV token, fingerprint, lease ms. Returns nil when claimed, else {f, a|nil}.
const CLAIM = luaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HMGET', KEYS[1], 'f', 'a')
end
redis.call('HSET', KEYS[1], 't', ARGV[1], 'f', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return false
`);

/** The guard every later step shares: the key is still the token's own pending claim. */
const OWN_PENDING = `redis.call('HGET', KEYS[1], 't') == ARGV[1] and redis.call('HEXISTS', KEYS[1], 'a') == 0`;

// ARGV token, lease ms.
const RENEW = luaScript(`
if ${OWN_PENDING} then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);

// ARGV token, ttl ms, fingerprint, answer.
const COMPLETE = luaScript(`
if ${OWN_PENDING} then
  redis.call('HSET', KEYS[1], 'f', ARGV[3], 'a', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);

// ARGV token.
const RELEASE = luaScript(`
if ${OWN_PENDING} then
  redis.call('DEL', KEYS[1])
end
return 0
`);

export function createRedisIdempotencyStore(options?: RedisIdempotencyStoreOptions): RedisIdempotencyStore {
  const given = checkOptionsObject(ADAPTER, options);
  const settings = resolveRedisSettings(ADAPTER, given);
  const redis = openRedis(settings, 'idempotency', checkErrorReporter(ADAPTER, given.onError));
  const keyOf = (key: string) => redis.key(`idempotency:${key}`);
  const script = (action: string, lua: typeof CLAIM, key: string, args: (string | number)[]) =>
    redis.run(action, (client) => runScript(client, lua, [keyOf(key)], args));

  return {
    async claim(key, { token, fingerprint, leaseMs }): Promise<IdempotencyClaim> {
      checkIdempotencyKey(key, token);
      checkText('fingerprint', fingerprint);
      const lease = checkDuration('lease', leaseMs);
      const found = (await script('claim an idempotency key', CLAIM, key, [token, fingerprint, lease])) as
        | [string, string | null]
        | null;
      if (!found) return { state: 'claimed' };
      const [stored, answer] = found;
      return answer === null
        ? { state: 'pending', fingerprint: stored }
        : { state: 'done', fingerprint: stored, answer };
    },
    async renew(key, token, leaseMs) {
      checkIdempotencyKey(key, token);
      const lease = checkDuration('lease', leaseMs);
      return (await script('renew an idempotency key', RENEW, key, [token, lease])) === 1;
    },
    async complete(key, { token, fingerprint, answer, ttlMs }) {
      checkIdempotencyKey(key, token);
      checkText('fingerprint', fingerprint);
      checkText('answer', answer);
      const ttl = checkDuration('lifetime', ttlMs);
      return (
        (await script('store an idempotent answer', COMPLETE, key, [token, ttl, fingerprint, answer])) === 1
      );
    },
    async release(key, token) {
      checkIdempotencyKey(key, token);
      await script('release an idempotency key', RELEASE, key, [token]);
    },
    close: () => redis.close(),
  };
}
