/**
 * Helpers the Redis stores share for their records: Lua scripts run by SHA, JSON records read
 * back (a damaged one is an error, never "missing"), sorted-set scores for ISO instants, and
 * chunked multi-key reads.
 */
import { createHash } from 'node:crypto';
import { FileconvError } from '../../core/errors.js';
import type { RedisClient, RedisSettings } from './connection.js';

export interface LuaScript {
  source: string;
  sha: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Runs a script by its SHA, sending the source once when Redis does not know it (first use, or
 * after a restart emptied the script cache). Leaves a shared client's command table alone.
 */
export async function runScript(
  client: RedisClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await client.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return client.eval(script.source, keys.length, ...keys, ...args);
  }
}

/** Parses a stored JSON record; a damaged one is INTERNAL, never read as missing. */
export function parseStored<T>(settings: RedisSettings, key: string, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new FileconvError(
      'INTERNAL',
      `${settings.adapter}: the record at Redis key "${key}" is not JSON.`,
      {
        cause: error,
        details: { adapter: settings.adapter, key },
      },
    );
  }
}

/** An epoch-ms sorted-set score for an ISO instant; '+inf' for one that does not parse. */
export function instantScore(iso: unknown): string {
  const ms = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  return Number.isNaN(ms) ? '+inf' : String(ms);
}

/** MGET in chunks, so a long listing never builds one huge command. */
export async function getMany(client: RedisClient, keys: readonly string[]): Promise<(string | null)[]> {
  const values: (string | null)[] = [];
  for (let start = 0; start < keys.length; start += 500) {
    values.push(...(await client.mget(...keys.slice(start, start + 500))));
  }
  return values;
}
