/**
 * `fileconv keys create|list|revoke`: API keys in the service's data dir (the same key store
 * `fileconv serve` reads, so a key works on a running server at once). A key is printed once,
 * at creation; only its SHA-256 is stored. The data dir, Redis and plans are found as serve
 * finds them (flags, environment, config file), so a key lands where serve looks for it and may
 * name a plan the config file adds.
 */

import { createApiKey, type KeyStore, revokeApiKey } from '../../src/index.js';
import { type EffectiveConfig, resolveConfig } from '../../src/preset/effective-config.js';
import { table } from './formats.js';

interface DataFlags {
  data?: string;
  redisUrl?: string;
  /** serve's config file (default $FILECONV_CONFIG, else ./fileconv.config.json when present). */
  config?: string;
  json?: boolean;
}

/** The settings serve would run with, for these flags. */
function settingsOf(flags: DataFlags): Promise<EffectiveConfig> {
  return resolveConfig({
    ...(flags.config === undefined ? {} : { config: flags.config }),
    ...(flags.data === undefined ? {} : { data: flags.data }),
    ...(flags.redisUrl === undefined ? {} : { redisUrl: flags.redisUrl }),
  });
}

/** The deployment's key store: Redis when one is set (what the API nodes read), else the data dir's database. */
async function keyStoreOf(config: EffectiveConfig): Promise<KeyStore> {
  const redisUrl = config.redis?.url;
  if (redisUrl) {
    const { createRedisKeyStore } = await import('../../src/adapters/keys/redis.js');
    return createRedisKeyStore({ url: redisUrl });
  }
  const [{ createSqliteKeyStore }, { openDataDirDatabase }] = await Promise.all([
    import('../../src/adapters/keys/sqlite.js'),
    import('../../src/preset/backends.js'),
  ]);
  const database = await openDataDirDatabase(config.dataDir);
  const keys = createSqliteKeyStore({ database });
  return {
    ...keys,
    async close() {
      await keys.close();
      database.close();
    },
  };
}

/** Runs `work` with the key store and closes it after (a Redis connection would keep the CLI alive). */
async function withKeyStore<T>(
  flags: DataFlags,
  work: (keys: KeyStore, config: EffectiveConfig) => Promise<T>,
): Promise<T> {
  const config = await settingsOf(flags);
  const keys = await keyStoreOf(config);
  try {
    return await work(keys, config);
  } finally {
    await keys.close?.();
  }
}

export async function runKeysCreate(
  flags: DataFlags & { plan: string; account: string; label?: string },
): Promise<void> {
  const { key, record } = await withKeyStore(flags, (keys, config) =>
    createApiKey(keys, {
      accountId: flags.account,
      plan: flags.plan,
      label: flags.label,
      plans: config.plans,
    }),
  );
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ key, id: record.id, accountId: record.accountId, plan: record.plan })}\n`,
    );
    return;
  }
  process.stdout.write(`${key}\n`);
  process.stderr.write(
    `Created key ${record.id} for account ${record.accountId} on plan ${record.plan}. It is shown only now: store it safely.\n` +
      `Use it as: Authorization: Bearer ${key.slice(0, 8)}...\n`,
  );
}

export async function runKeysList(flags: DataFlags & { account?: string }): Promise<void> {
  const records = await withKeyStore(flags, (keys) =>
    keys.list(flags.account ? { accountId: flags.account } : {}),
  );
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify(
        records.map(({ hash: _hash, ...rest }) => rest),
        null,
        2,
      )}\n`,
    );
    return;
  }
  const rows = records.map((r) => [
    r.id,
    r.accountId,
    r.plan,
    r.revokedAt ? `revoked ${r.revokedAt}` : 'active',
    r.createdAt,
    r.label,
  ]);
  process.stdout.write(table(['ID', 'ACCOUNT', 'PLAN', 'STATUS', 'CREATED', 'LABEL'], rows));
}

export async function runKeysRevoke(id: string, flags: DataFlags): Promise<void> {
  const record = await withKeyStore(flags, (keys) => revokeApiKey(keys, id));
  process.stdout.write(`Revoked key ${record.id} (account ${record.accountId}).\n`);
}
