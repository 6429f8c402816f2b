/**
 * Redis WebhookOutbox: pending webhook deliveries shared by every process of a deployment, so a
 * delivery a worker or API node still owes survives that process and is sent by whichever
 * dispatcher claims it next. A delivery is a JSON string (`<prefix>:webhook:<id>`) plus its due
 * time as the score in one sorted set (`<prefix>:webhooks:due`); add, claim, reschedule and
 * remove are each one Lua script, so a claim moves due deliveries a lease ahead atomically and
 * two dispatchers never claim the same one.
 */
import type { WebhookDelivery, WebhookOutbox } from '../../core/ports/index.js';
import {
  checkErrorReporter,
  openRedis,
  type RedisConnectionOptions,
  resolveRedisSettings,
} from '../redis/connection.js';
import { luaScript, parseStored, runScript } from '../redis/records.js';
import { checkOptionsObject } from '../validate-options.js';
import { assertStorableDelivery, checkClaim, duplicateDeliveryError } from './delivery-rules.js';

const ADAPTER = 'createRedisOutbox';

export interface RedisOutboxOptions extends RedisConnectionOptions {
  /** Called with connection errors while the client reconnects. Default: a process warning, at most one a minute. */
  onError?: (error: unknown) => void;
}

// KEYS: due set, record key. ARGV: id, json, dueAt. Returns 0 when the id exists.
const ADD = luaScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1`);

// KEYS: due set. ARGV: now, lease until, limit, record key prefix. Returns the claimed records.
const CLAIM = luaScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  local record = redis.call('GET', ARGV[4] .. id)
  if record then
    redis.call('ZADD', KEYS[1], ARGV[2], id)
    table.insert(out, record)
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out`);

// KEYS: due set, record key. ARGV: id, json, dueAt. Only a delivery still stored is updated.
const RESCHEDULE = luaScript(`
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1`);

export function createRedisOutbox(options?: RedisOutboxOptions): WebhookOutbox & { close(): Promise<void> } {
  const given = checkOptionsObject(ADAPTER, options);
  const settings = resolveRedisSettings(ADAPTER, given);
  const redis = openRedis(settings, 'webhooks', checkErrorReporter(ADAPTER, given.onError));
  const dueKey = redis.key('webhooks:due');
  const recordPrefix = redis.key('webhook:');
  // The due time lives in the score; the record keeps the rest (dueAt is put back on read).
  const encode = (delivery: WebhookDelivery) => JSON.stringify({ ...delivery, dueAt: undefined });

  return {
    async add(delivery) {
      assertStorableDelivery(delivery);
      const added = await redis.run('store a webhook delivery', (client) =>
        runScript(
          client,
          ADD,
          [dueKey, recordPrefix + delivery.id],
          [delivery.id, encode(delivery), delivery.dueAt],
        ),
      );
      if (added === 0) throw duplicateDeliveryError(delivery.id);
    },

    async claimDue(now, leaseMs, limit) {
      checkClaim(now, leaseMs, limit);
      const leaseUntil = now + leaseMs;
      const records = (await redis.run('claim due webhook deliveries', (client) =>
        runScript(client, CLAIM, [dueKey], [now, leaseUntil, limit, recordPrefix]),
      )) as string[];
      return records.map((text) => ({
        ...parseStored<Omit<WebhookDelivery, 'dueAt'>>(settings, dueKey, text),
        dueAt: leaseUntil,
      }));
    },

    async reschedule(delivery) {
      assertStorableDelivery(delivery);
      await redis.run('reschedule a webhook delivery', (client) =>
        runScript(
          client,
          RESCHEDULE,
          [dueKey, recordPrefix + delivery.id],
          [delivery.id, encode(delivery), delivery.dueAt],
        ),
      );
    },

    async remove(id) {
      await redis.run('remove a webhook delivery', (client) =>
        client
          .multi()
          .del(recordPrefix + id)
          .zrem(dueKey, id)
          .exec(),
      );
    },

    close: () => redis.close(),
  };
}
