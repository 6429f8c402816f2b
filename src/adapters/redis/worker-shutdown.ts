/**
 * What the BullMQ queue needs to close a worker when Redis may be gone: BullMQ's graceful close
 * waits for Redis to answer, forever, so the queue counts its running handlers itself and
 * watches whether its Redis connection is lost.
 */
import type { RedisClient } from './connection.js';

/** Counts running handlers, so close() can wait for them even when BullMQ cannot help. */
export function createHandlerTracker() {
  let running = 0;
  const waiters: (() => void)[] = [];
  return {
    async track(work: () => Promise<void>): Promise<void> {
      running++;
      try {
        await work();
      } finally {
        running--;
        if (running === 0) for (const wake of waiters.splice(0)) wake();
      }
    },
    idle(): Promise<void> {
      return running === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/** Resolves once `client` has been without a connection for `graceMs`; `stop()` ends the watch. */
export function watchUnreachable(
  client: RedisClient,
  graceMs: number,
): { lost: Promise<void>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let downSince: number | undefined;
  const lost = new Promise<void>((resolve) => {
    timer = setInterval(() => {
      if (client.status === 'ready') downSince = undefined;
      else if (downSince === undefined) downSince = Date.now();
      else if (Date.now() - downSince >= graceMs) resolve();
    }, 100);
    timer.unref();
  });
  return { lost, stop: () => clearInterval(timer) };
}
