/**
 * A private redis-server per test file (test/helpers/redis-process.ts), started before the block
 * and stopped after.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { describeWithEngine } from './engines.js';
import {
  REDIS_INSTALL_HINT,
  type RedisServer,
  redisServerAvailable,
  startRedisServer,
} from './redis-process.js';

export {
  REDIS_INSTALL_HINT,
  type RedisServer,
  redisServerAvailable,
  startRedisServer,
} from './redis-process.js';

/** A key prefix of its own, so tests sharing one Redis never see each other's keys. */
export const freshPrefix = (): string => `t${randomUUID().slice(0, 8)}`;

/**
 * describeWithEngine('redis-server', ...) around `body`, with one private redis-server started
 * before the block and closed after it. `body` gets the server at once, as a stand-in that
 * forwards to the real one: read its url or stop it inside hooks and tests, not while the block
 * is being defined.
 */
export function describeWithRedis(name: string, body: (server: RedisServer) => void): void;
export function describeWithRedis(
  name: string,
  options: { persistent?: boolean },
  body: (server: RedisServer) => void,
): void;
export function describeWithRedis(
  name: string,
  ...args: [(server: RedisServer) => void] | [{ persistent?: boolean }, (server: RedisServer) => void]
): void {
  const [options, body] = args.length === 1 ? [{}, args[0]] : args;
  describeWithEngine('redis-server', redisServerAvailable, REDIS_INSTALL_HINT, name, () => {
    let started: RedisServer | undefined;
    const current = (): RedisServer => {
      if (!started) throw new Error('The Redis server is used before beforeAll started it.');
      return started;
    };
    beforeAll(async () => {
      started = await startRedisServer(options);
    });
    afterAll(() => started?.close());
    body({
      get url() {
        return current().url;
      },
      get port() {
        return current().port;
      },
      stop: () => current().stop(),
      start: () => current().start(),
      restart: () => current().restart(),
      close: () => current().close(),
    });
  });
}
