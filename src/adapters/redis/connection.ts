/**
 * How the Redis adapters (job store, counters, key store, BullMQ queue) reach Redis: the common
 * options, one client per adapter (ioredis loaded lazily) with settings that make a command fail
 * within seconds while Redis is unreachable instead of hanging, and Redis failures turned into
 * FileconvErrors that say which Redis could not do what.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { FileconvError, isFileconvError } from '../../core/errors.js';
import {
  checkFunction,
  checkNonEmptyString,
  checkPositiveInteger,
  describeValue,
  invalidOption,
} from '../validate-options.js';
import { loadIoredis } from './packages.js';

export type RedisClient = Redis;

const DEFAULT_URL = 'redis://127.0.0.1:6379';
const DEFAULT_PREFIX = 'fileconv';
/** Reconnection attempts a command waits through before it fails (ioredis `maxRetriesPerRequest`). */
const RETRIES_PER_COMMAND = 3;
/** Connection errors are reported at most this often per adapter by the default reporter. */
const WARNING_INTERVAL_MS = 60_000;

export interface RedisConnectionOptions {
  /** Redis to use, `redis://` or `rediss://`. Default redis://127.0.0.1:6379 (the environment is not read). */
  url?: string;
  /**
   * An ioredis client to use instead of opening one from `url`. It is used as it is (its retry
   * settings decide how commands behave while Redis is down) and never closed by the adapter.
   */
  connection?: RedisClient;
  /** Namespace of every key the adapter writes (`<prefix>:...`). Default 'fileconv'. */
  prefix?: string;
  /** A command without a reply after this many ms fails (Redis hung or unreachable). Default 5000. */
  commandTimeoutMs?: number;
}

/** Options after validation, defaults applied. */
export interface RedisSettings {
  adapter: string;
  url: string;
  connection: RedisClient | undefined;
  prefix: string;
  commandTimeoutMs: number;
  /** Where commands go, for messages: the URL without its password, or 'the given connection'. */
  where: string;
}

/** The URL with any password replaced, safe for logs and error messages. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an unparsable URL';
  }
}

function looksLikeIoredis(value: unknown): value is RedisClient {
  const candidate = value as Partial<Record<'duplicate' | 'evalsha' | 'quit', unknown>> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.duplicate === 'function' &&
    typeof candidate.evalsha === 'function' &&
    typeof candidate.quit === 'function'
  );
}

/** Validates the options every Redis adapter takes; `given` is the checked options object. */
export function resolveRedisSettings(adapter: string, given: Partial<RedisConnectionOptions>): RedisSettings {
  const prefix =
    given.prefix === undefined ? DEFAULT_PREFIX : checkNonEmptyString(adapter, 'prefix', given.prefix);
  if (/\s/.test(prefix) || prefix.length > 100) {
    throw invalidOption(adapter, 'prefix', 'at most 100 characters without spaces', prefix);
  }
  const commandTimeoutMs = checkPositiveInteger(adapter, 'commandTimeoutMs', given.commandTimeoutMs, 5000);
  if (given.connection !== undefined) {
    if (!looksLikeIoredis(given.connection)) {
      throw invalidOption(adapter, 'connection', 'an ioredis client', given.connection);
    }
    if (given.url !== undefined) {
      throw invalidOption(adapter, 'url', 'left out when "connection" is given', given.url);
    }
    return {
      adapter,
      url: '',
      connection: given.connection,
      prefix,
      commandTimeoutMs,
      where: 'the given connection',
    };
  }
  // Never $REDIS_URL: an adapter takes its URL from its caller (the preset resolves fileconv's
  // own variable), so a host's Redis is not taken for fileconv's by accident.
  const url = given.url === undefined ? DEFAULT_URL : checkNonEmptyString(adapter, 'url', given.url);
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw invalidOption(adapter, 'url', 'a redis:// or rediss:// URL', redactRedisUrl(url));
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw invalidOption(adapter, 'url', 'a redis:// or rediss:// URL', redactRedisUrl(url));
  }
  return { adapter, url, connection: undefined, prefix, commandTimeoutMs, where: redactRedisUrl(url) };
}

/**
 * Client settings for the adapters' own clients. While Redis is unreachable ioredis keeps
 * reconnecting (at most every 2 s); a command waits through a few reconnection attempts and at
 * most `commandTimeoutMs`, then fails, so a request never hangs on a dead Redis.
 */
export function storeClientOptions(settings: RedisSettings, role: string): RedisOptions {
  return {
    maxRetriesPerRequest: RETRIES_PER_COMMAND,
    commandTimeout: settings.commandTimeoutMs,
    connectTimeout: Math.max(settings.commandTimeoutMs, 2000),
    retryStrategy: (times: number) => Math.min(times * 200, 2000),
    connectionName: `${settings.prefix}:${role}`,
  };
}

/**
 * What a BullMQ worker's clients change in `storeClientOptions`: BullMQ runs the worker's
 * commands on one and blocks for new ids on a copy of it; both wait through outages
 * (`maxRetriesPerRequest: null`, as BullMQ requires for the blocking one) instead of failing,
 * since a worker has nobody to report a failure to.
 */
export const WORKER_CLIENT_OVERRIDES = {
  maxRetriesPerRequest: null,
  commandTimeout: undefined,
  enableOfflineQueue: true,
} as const satisfies RedisOptions;

/** Client settings for a BullMQ worker's own client (see WORKER_CLIENT_OVERRIDES). */
export function workerClientOptions(settings: RedisSettings): RedisOptions {
  return { ...storeClientOptions(settings, 'worker'), ...WORKER_CLIENT_OVERRIDES };
}

/** What an UNAVAILABLE answer suggests: about the time ioredis takes to reconnect a few times. */
const REDIS_RETRY_AFTER_SECONDS = 5;

/** Replies of a Redis that is starting, failing over or busy: it will serve again shortly. */
const TRANSIENT_REPLY = /^(LOADING|BUSY|READONLY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;

/** Turns whatever a Redis call threw into a FileconvError naming the adapter, the Redis and the action. */
export function redisError(settings: RedisSettings, action: string, error: unknown): FileconvError {
  if (isFileconvError(error)) return error;
  const reason = error instanceof Error ? error.message : describeValue(error);
  // A ReplyError is Redis answering that a command was wrong (a bug of ours: INTERNAL), unless
  // it says Redis cannot serve yet (loading its data after a restart, a replica mid-failover).
  // Anything else (connection refused or closed, command timeout, retries exhausted) means Redis
  // is out of reach. Both are UNAVAILABLE, a 503 with Retry-After, so clients and load balancers
  // back off and workers wait.
  const answered =
    error instanceof Error && error.name === 'ReplyError' && !TRANSIENT_REPLY.test(error.message);
  return new FileconvError(
    answered ? 'INTERNAL' : 'UNAVAILABLE',
    `${settings.adapter}: Redis at ${settings.where} could not ${action}: ${reason}`,
    {
      cause: error,
      details: {
        adapter: settings.adapter,
        redis: settings.where,
        ...(answered ? {} : { retryAfterSeconds: REDIS_RETRY_AFTER_SECONDS }),
      },
    },
  );
}

/** A reporter that emits a process warning for the first connection error of each minute. */
export function throttledWarning(adapter: string): (error: unknown) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (error) => {
    const now = Date.now();
    if (now - last < WARNING_INTERVAL_MS) return;
    last = now;
    const message = error instanceof Error ? error.message : describeValue(error);
    process.emitWarning(`${adapter}: Redis connection error (reconnecting): ${message}`, {
      code: 'FILECONV_REDIS',
    });
  };
}

/** The `onError` option of a store: a function, or the throttled warning. */
export function checkErrorReporter(adapter: string, value: unknown): (error: unknown) => void {
  return checkFunction(adapter, 'onError', value, throttledWarning(adapter));
}

export interface RedisHandle {
  readonly settings: RedisSettings;
  /** `<prefix>:<rest>`. */
  key(rest: string): string;
  /** The client, opened on first use. */
  client(): Promise<RedisClient>;
  /** Runs `work` with the client; anything it throws becomes a FileconvError naming `action`. */
  run<T>(action: string, work: (client: RedisClient) => Promise<T>): Promise<T>;
  /** Closes the client the handle opened (never a given `connection`). Idempotent. */
  close(): Promise<void>;
}

/**
 * One adapter's access to Redis: the given `connection`, or a client of its own opened lazily
 * (ioredis is only imported then), whose connection errors go to `onError` while it reconnects.
 */
export function openRedis(
  settings: RedisSettings,
  role: string,
  onError: (error: unknown) => void,
): RedisHandle {
  let opened: Promise<RedisClient> | undefined;
  let closed = false;

  function client(): Promise<RedisClient> {
    if (closed) {
      return Promise.reject(
        new FileconvError('INVALID_STATE', `${settings.adapter}: the Redis connection is closed.`),
      );
    }
    if (settings.connection) return Promise.resolve(settings.connection);
    opened ??= loadIoredis(settings.adapter).then((RedisClass) => {
      const created = new RedisClass(settings.url, storeClientOptions(settings, role));
      created.on('error', (error: unknown) => {
        try {
          onError(error);
        } catch {
          // A throwing reporter must not become an unhandled 'error' event.
        }
      });
      return created;
    });
    opened.catch(() => {
      opened = undefined;
    });
    return opened;
  }

  return {
    settings,
    key: (rest) => `${settings.prefix}:${rest}`,
    client,
    async run(action, work) {
      try {
        return await work(await client());
      } catch (error) {
        throw redisError(settings, action, error);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      const own = await opened?.catch(() => undefined);
      if (own) await closeClient(own);
    },
  };
}

/** QUIT when connected (pending replies arrive first), else drop the connection at once. */
export async function closeClient(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
