/**
 * A per-key promise chain: work queued under the same key runs one at a time, in call order,
 * while different keys run concurrently. File adapters use it so a read-check-write on one
 * record (or one storage key) cannot interleave with another inside this process.
 */

export type KeyMutex = <T>(key: string, work: () => Promise<T>) => Promise<T>;

export function createKeyMutex(): KeyMutex {
  // The tail of each key's chain; removed when the last holder releases, so idle keys cost nothing.
  const tails = new Map<string, Promise<void>>();
  return async function withKeyLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => held);
    tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}
