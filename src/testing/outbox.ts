/**
 * Conformance suite for WebhookOutbox adapters: `testWebhookOutbox('my outbox', () => create())`.
 * It pins down what durable webhook delivery rests on: a delivery is stored field for field,
 * only due ones are claimed, soonest first, a claim leases them (a second claim within the lease
 * gets nothing, one after it gets them again), concurrent claims never share a delivery, and a
 * rescheduled or removed delivery behaves as such.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { WebhookDelivery, WebhookOutbox } from '../core/ports/index.js';
import { type AdapterFactory, useFreshInstance } from './fresh-instance.js';

/** A complete delivery with a unique id; `overrides` win. */
export function sampleDelivery(overrides: Partial<WebhookDelivery> = {}): WebhookDelivery {
  const id = randomUUID();
  return {
    id,
    jobId: randomUUID(),
    type: 'job.completed',
    url: 'https://hooks.example.com/fileconv?ünï=1',
    body: JSON.stringify({ id, type: 'job.completed', note: 'ünïcödé ✓' }),
    attempts: 0,
    dueAt: 1_000,
    lastError: null,
    ...overrides,
  };
}

export function testWebhookOutbox(name: string, factory: AdapterFactory<WebhookOutbox>): void {
  describe(`WebhookOutbox conformance: ${name}`, () => {
    const outbox = useFreshInstance(factory);
    // Times far from any other test's, so suites sharing one Redis never see each other's due items.
    const base = () => Date.now() + 10 * 365 * 86_400_000 + Math.floor(Math.random() * 1e9);

    it('stores a delivery and hands it back field for field when due', async () => {
      const now = base();
      const delivery = sampleDelivery({ dueAt: now - 10 });
      await outbox().add(delivery);
      expect(await outbox().claimDue(now, 1000, 10)).toEqual([{ ...delivery, dueAt: now + 1000 }]);
    });

    it('refuses a second delivery with the same id and a malformed one', async () => {
      const delivery = sampleDelivery();
      await outbox().add(delivery);
      await expect(outbox().add({ ...delivery })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      await expect(outbox().add(sampleDelivery({ id: '../x' }))).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
      await expect(outbox().add(sampleDelivery({ type: 'job.started' as never }))).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
      await expect(outbox().add(sampleDelivery({ dueAt: Number.NaN }))).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
    });

    it('claims only due deliveries, soonest first, at most `limit`', async () => {
      const now = base();
      const later = sampleDelivery({ dueAt: now + 5000 });
      const first = sampleDelivery({ dueAt: now - 300 });
      const second = sampleDelivery({ dueAt: now - 200 });
      const third = sampleDelivery({ dueAt: now - 100 });
      for (const delivery of [later, third, first, second]) await outbox().add(delivery);
      const claimed = await outbox().claimDue(now, 1000, 2);
      expect(claimed.map((delivery) => delivery.id)).toEqual([first.id, second.id]);
      expect((await outbox().claimDue(now, 1000, 10)).map((delivery) => delivery.id)).toEqual([third.id]);
    });

    it('leases what it claims: nothing again within the lease, everything again after it', async () => {
      const now = base();
      const delivery = sampleDelivery({ dueAt: now });
      await outbox().add(delivery);
      expect(await outbox().claimDue(now, 1000, 10)).toHaveLength(1);
      expect(await outbox().claimDue(now + 999, 1000, 10)).toEqual([]);
      const again = await outbox().claimDue(now + 1000, 1000, 10);
      expect(again.map((item) => [item.id, item.dueAt])).toEqual([[delivery.id, now + 2000]]);
    });

    it('never hands one delivery to two concurrent claims', async () => {
      const now = base();
      const ids: string[] = [];
      for (let index = 0; index < 20; index++) {
        const delivery = sampleDelivery({ dueAt: now - index });
        ids.push(delivery.id);
        await outbox().add(delivery);
      }
      const claims = await Promise.all(Array.from({ length: 8 }, () => outbox().claimDue(now, 60_000, 5)));
      const claimed = claims.flat().map((delivery) => delivery.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect([...claimed].sort()).toEqual([...ids].sort());
    });

    it('reschedules: the new attempts, error and due time are what the next claim sees', async () => {
      const now = base();
      const delivery = sampleDelivery({ dueAt: now });
      await outbox().add(delivery);
      const [claimed] = await outbox().claimDue(now, 1000, 10);
      await outbox().reschedule({
        ...claimed!,
        attempts: 1,
        lastError: 'receiver answered 503',
        dueAt: now + 50,
      });
      expect(await outbox().claimDue(now + 49, 1000, 10)).toEqual([]);
      const [next] = await outbox().claimDue(now + 50, 1000, 10);
      expect(next).toMatchObject({ id: delivery.id, attempts: 1, lastError: 'receiver answered 503' });
    });

    it('takes due times with a fraction of a millisecond (a jittered backoff)', async () => {
      const now = base();
      const delivery = sampleDelivery({ dueAt: now + 0.25 });
      await outbox().add(delivery);
      await outbox().reschedule({ ...delivery, attempts: 1, dueAt: now + 10.5 });
      expect(await outbox().claimDue(now, 1000, 10)).toEqual([]);
      expect(await outbox().claimDue(now + 11, 1000, 10)).toHaveLength(1);
    });

    it('forgets a removed delivery, and a reschedule does not bring it back', async () => {
      const now = base();
      const delivery = sampleDelivery({ dueAt: now });
      await outbox().add(delivery);
      await outbox().remove(delivery.id);
      await outbox().remove(delivery.id);
      await outbox().reschedule({ ...delivery, attempts: 1 });
      expect(await outbox().claimDue(now + 10_000, 1000, 10)).toEqual([]);
      await outbox().add(delivery);
      expect(await outbox().claimDue(now, 1000, 10)).toHaveLength(1);
    });
  });
}
