/**
 * In-memory WebhookOutbox for one process: deliveries in a Map, gone with the process. For hosts
 * that embed the engine and accept that a restart drops pending webhook retries; `fileconv
 * serve` keeps them in its SQLite database, and a scaled-out deployment in Redis.
 */
import type { WebhookDelivery, WebhookOutbox } from '../../core/ports/index.js';
import { assertStorableDelivery, checkClaim, duplicateDeliveryError } from './delivery-rules.js';

export function createMemoryOutbox(): WebhookOutbox {
  const deliveries = new Map<string, WebhookDelivery>();
  return {
    async add(delivery) {
      assertStorableDelivery(delivery);
      if (deliveries.has(delivery.id)) throw duplicateDeliveryError(delivery.id);
      deliveries.set(delivery.id, { ...delivery });
    },
    async claimDue(now, leaseMs, limit) {
      checkClaim(now, leaseMs, limit);
      const due = [...deliveries.values()]
        .filter((delivery) => delivery.dueAt <= now)
        .sort((a, b) => a.dueAt - b.dueAt || a.id.localeCompare(b.id))
        .slice(0, limit);
      for (const delivery of due) delivery.dueAt = now + leaseMs;
      return due.map((delivery) => ({ ...delivery }));
    },
    async reschedule(delivery) {
      assertStorableDelivery(delivery);
      if (deliveries.has(delivery.id)) deliveries.set(delivery.id, { ...delivery });
    },
    async remove(id) {
      deliveries.delete(id);
    },
  };
}
