/**
 * Conformance suite for IdempotencyStore adapters:
 * `testIdempotencyStore('my store', () => createMyStore())`. It pins down what the HTTP
 * service's Idempotency-Key rests on: of concurrent claims exactly one wins, the others see the
 * claim pending with its fingerprint, a completed key answers `done` with what was stored until
 * its lifetime ends, a lapsed lease can be taken over (and the old claimant then changes
 * nothing), and only the claim's own token renews, completes or releases it. Lease and lifetime
 * tests use the real clock with short (~100 ms) durations.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IdempotencyStore } from '../core/ports/index.js';
import { type AdapterFactory, useFreshInstance } from './fresh-instance.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A key no other test (or earlier run on a shared Redis) uses. */
const freshKey = (label: string) => `test:${label}:${randomUUID()}`;
const LONG = 60_000;

export function testIdempotencyStore(name: string, factory: AdapterFactory<IdempotencyStore>): void {
  describe(`IdempotencyStore conformance: ${name}`, () => {
    const store = useFreshInstance(factory);
    const claim = (key: string, token: string, fingerprint = 'fp', leaseMs = LONG) =>
      store().claim(key, { token, fingerprint, leaseMs });

    it('grants a free key, then shows it pending with the claimed fingerprint', async () => {
      const key = freshKey('pending');
      expect(await claim(key, 'a', 'head-1')).toEqual({ state: 'claimed' });
      expect(await claim(key, 'b', 'head-2')).toEqual({ state: 'pending', fingerprint: 'head-1' });
    });

    it('grants exactly one of 50 concurrent claims', async () => {
      const key = freshKey('race');
      const outcomes = await Promise.all(Array.from({ length: 50 }, (_, n) => claim(key, `t${n}`)));
      expect(outcomes.filter((outcome) => outcome.state === 'claimed')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.state === 'pending')).toHaveLength(49);
    });

    it('answers done with the completed fingerprint and answer, unicode and large answers intact', async () => {
      const key = freshKey('done');
      await claim(key, 'a', 'head');
      const answer = JSON.stringify({ status: 200, body: `ünïcödé ${'x'.repeat(200_000)}` });
      expect(await store().complete(key, { token: 'a', fingerprint: 'head body', answer, ttlMs: LONG })).toBe(
        true,
      );
      expect(await claim(key, 'b', 'other')).toEqual({ state: 'done', fingerprint: 'head body', answer });
      // Neither a second completion nor a release by anyone touches a done key.
      expect(await store().complete(key, { token: 'a', fingerprint: 'x', answer: 'y', ttlMs: LONG })).toBe(
        false,
      );
      await store().release(key, 'a');
      expect(await claim(key, 'c')).toMatchObject({ state: 'done', answer });
    });

    it('keeps keys independent', async () => {
      const base = freshKey('independent');
      expect(await claim(base, 'a')).toEqual({ state: 'claimed' });
      expect(await claim(`${base}:1`, 'a')).toEqual({ state: 'claimed' });
      expect(await claim(`${base}1`, 'a')).toEqual({ state: 'claimed' });
    });

    it('frees a released key for the next claim; a stranger cannot release it', async () => {
      const key = freshKey('release');
      await claim(key, 'a', 'first');
      await store().release(key, 'stranger');
      expect(await claim(key, 'b')).toEqual({ state: 'pending', fingerprint: 'first' });
      await store().release(key, 'a');
      expect(await claim(key, 'b', 'second')).toEqual({ state: 'claimed' });
      expect(await claim(key, 'c')).toEqual({ state: 'pending', fingerprint: 'second' });
    });

    it('lets a lapsed lease be taken over; the old claimant then can neither complete nor release', async () => {
      const key = freshKey('lease');
      await claim(key, 'dead', 'old', 100);
      await sleep(250);
      expect(await claim(key, 'next', 'new')).toEqual({ state: 'claimed' });
      expect(await store().renew(key, 'dead', LONG)).toBe(false);
      expect(await store().complete(key, { token: 'dead', fingerprint: 'x', answer: 'y', ttlMs: LONG })).toBe(
        false,
      );
      await store().release(key, 'dead');
      expect(await claim(key, 'third')).toEqual({ state: 'pending', fingerprint: 'new' });
    });

    it('keeps a renewed lease alive past its first term', async () => {
      const key = freshKey('renew');
      await claim(key, 'a', 'fp', 150);
      expect(await store().renew(key, 'a', LONG)).toBe(true);
      expect(await store().renew(key, 'stranger', LONG)).toBe(false);
      await sleep(250);
      expect(await claim(key, 'b')).toEqual({ state: 'pending', fingerprint: 'fp' });
    });

    it('forgets a done answer at the end of its lifetime', async () => {
      const key = freshKey('ttl');
      await claim(key, 'a');
      await store().complete(key, { token: 'a', fingerprint: 'fp', answer: 'kept', ttlMs: 100 });
      expect(await claim(key, 'b')).toMatchObject({ state: 'done' });
      await sleep(250);
      expect(await claim(key, 'c')).toEqual({ state: 'claimed' });
    });

    it('completes only its own claim', async () => {
      const key = freshKey('own');
      await claim(key, 'a');
      expect(await store().complete(key, { token: 'b', fingerprint: 'x', answer: 'y', ttlMs: LONG })).toBe(
        false,
      );
      expect(await store().complete(key, { token: 'a', fingerprint: 'fp', answer: 'ok', ttlMs: LONG })).toBe(
        true,
      );
      expect(await claim(key, 'c')).toEqual({ state: 'done', fingerprint: 'fp', answer: 'ok' });
    });
  });
}
