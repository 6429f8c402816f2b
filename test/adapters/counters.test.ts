import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { testCounterStore } from '../../src/testing/index.js';

testCounterStore('memory', () => createMemoryCounterStore());

describe('createMemoryCounterStore', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('validates options naming the option, expected and given', () => {
    expect(() => createMemoryCounterStore({ sweepIntervalMs: 0 })).toThrow(
      /option "sweepIntervalMs" must be a positive integer, got 0/,
    );
    expect(() => createMemoryCounterStore({ now: 5 as never })).toThrow(/option "now" must be a function/);
    expect(() => createMemoryCounterStore('x' as never)).toThrow(/option "options" must be an object/);
  });

  it('refuses a bad key, amount or expiry with INVALID_REQUEST', async () => {
    const store = createMemoryCounterStore();
    await expect(store.increment('', 1, Date.now() + 1000)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(store.increment('k', Number.NaN, Date.now() + 1000)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(store.increment('k', 1.5, Date.now() + 1000)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(store.increment('k', 1, Number.POSITIVE_INFINITY)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(store.get(42 as never)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await store.close();
  });

  it('follows the injected clock', async () => {
    let now = 1_000_000;
    const store = createMemoryCounterStore({ now: () => now });
    await store.increment('k', 3, 1_060_000);
    now = 1_059_999;
    expect(await store.get('k')).toBe(3);
    now = 1_060_000;
    expect(await store.get('k')).toBe(0);
    expect(await store.increment('k', 1, 1_120_000)).toBe(1);
    await store.close();
  });

  it('drops expired counters nobody touches again on the periodic sweep', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = createMemoryCounterStore({ sweepIntervalMs: 1000 });
    for (let index = 0; index < 500; index++) await store.increment(`ip:${index}`, 1, 500);
    await store.increment('long', 1, 10_000);
    expect(store.size()).toBe(501);
    vi.advanceTimersByTime(1000);
    expect(store.size()).toBe(1);
    expect(await store.get('long')).toBe(1);
    await store.close();
  });

  it('drops an expired counter when it is next read', async () => {
    let now = 0;
    const store = createMemoryCounterStore({ now: () => now });
    await store.increment('k', 1, 10);
    now = 10;
    expect(store.size()).toBe(1);
    expect(await store.get('k')).toBe(0);
    expect(store.size()).toBe(0);
    expect(store.sweep()).toBe(0);
    await store.close();
  });

  it('does not keep the process alive and stops sweeping on close', async () => {
    const store = createMemoryCounterStore({ sweepIntervalMs: 10 });
    await store.increment('k', 1, Date.now() + 60_000);
    await store.close();
    expect(store.size()).toBe(0);
  });
});
