/**
 * Conformance suite for CounterStore adapters: `testCounterStore('my store', () => createMyStore())`.
 * It pins down what rate limits and quotas rest on: an increment returns the new value, refunds
 * (negative amounts) work, a counter is gone at its absolute expiry, keys are independent and
 * concurrent increments never lose an update or hand two callers the same value. Expiry tests
 * use the real clock with short (~100 ms) lifetimes, since the port takes absolute instants.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CounterStore } from '../core/ports/index.js';
import { type AdapterFactory, useFreshInstance } from './fresh-instance.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A key no other test (or earlier run on a shared Redis) uses. */
const freshKey = (label: string) => `test:${label}:${randomUUID()}`;
/** Far enough ahead that no test outlives it. */
const later = () => Date.now() + 60_000;

export function testCounterStore(name: string, factory: AdapterFactory<CounterStore>): void {
  describe(`CounterStore conformance: ${name}`, () => {
    const store = useFreshInstance(factory);

    it('reads 0 for a counter never written', async () => {
      expect(await store().get(freshKey('absent'))).toBe(0);
    });

    it('returns the new value from each increment and keeps it', async () => {
      const key = freshKey('sum');
      const expiresAt = later();
      expect(await store().increment(key, 1, expiresAt)).toBe(1);
      expect(await store().increment(key, 1, expiresAt)).toBe(2);
      expect(await store().increment(key, 5, expiresAt)).toBe(7);
      expect(await store().get(key)).toBe(7);
    });

    it('takes negative amounts (refunds), down to zero and below', async () => {
      const key = freshKey('refund');
      const expiresAt = later();
      await store().increment(key, 3, expiresAt);
      expect(await store().increment(key, -1, expiresAt)).toBe(2);
      expect(await store().increment(key, -2, expiresAt)).toBe(0);
      expect(await store().increment(key, -1, expiresAt)).toBe(-1);
      expect(await store().get(key)).toBe(-1);
    });

    it('keeps keys independent, including keys that share a prefix', async () => {
      const base = freshKey('independent');
      const expiresAt = later();
      const keys = [base, `${base}:1`, `${base}1`, `rate:upload:ip:2001:db8::1:${base}`, `${base}:ünï cödé`];
      for (const [index, key] of keys.entries()) await store().increment(key, index + 1, expiresAt);
      for (const [index, key] of keys.entries()) expect(await store().get(key)).toBe(index + 1);
    });

    it('forgets a counter at its expiry and starts again from 0', async () => {
      const key = freshKey('expiry');
      const expiresAt = Date.now() + 100;
      expect(await store().increment(key, 4, expiresAt)).toBe(4);
      expect(await store().get(key)).toBe(4);
      await sleep(Math.max(0, expiresAt - Date.now()) + 100);
      expect(await store().get(key)).toBe(0);
      expect(await store().increment(key, 1, Date.now() + 60_000)).toBe(1);
    });

    it('returns the value of an increment whose expiry has passed, then reads 0', async () => {
      const key = freshKey('past');
      expect(await store().increment(key, 2, Date.now() - 1000)).toBe(2);
      expect(await store().get(key)).toBe(0);
    });

    it('keeps a counter whose expiry is still ahead', async () => {
      const key = freshKey('ahead');
      await store().increment(key, 1, Date.now() + 400);
      await sleep(50);
      expect(await store().get(key)).toBe(1);
    });

    it('loses no update among 200 concurrent increments and hands out each value once', async () => {
      const key = freshKey('concurrent');
      const expiresAt = later();
      const values = await Promise.all(
        Array.from({ length: 200 }, () => store().increment(key, 1, expiresAt)),
      );
      expect(await store().get(key)).toBe(200);
      expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));
    });

    it('sums concurrent increments and refunds on several keys exactly', async () => {
      const keys = [freshKey('mixed-a'), freshKey('mixed-b')];
      const expiresAt = later();
      await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          store().increment(keys[index % 2]!, index % 4 < 2 ? 3 : -1, expiresAt),
        ),
      );
      // Per key: 25 increments of 3 and 25 of -1.
      for (const key of keys) expect(await store().get(key)).toBe(50);
    });
  });
}
