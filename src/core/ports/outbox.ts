/**
 * The WebhookOutbox port: deliveries the webhook dispatcher still owes, kept where a restart
 * cannot lose them. A delivery is due at `dueAt`; claiming due deliveries moves their `dueAt` a
 * lease ahead, so two dispatchers (API nodes and workers of one deployment) never send the same
 * attempt, and a dispatcher that dies mid-attempt leaves its deliveries due again once the lease
 * ends.
 */
export type WebhookEventType = 'job.completed' | 'job.failed' | 'job.canceled';

export interface WebhookDelivery {
  /** Delivery id, the same on every attempt (the receiver dedupes by it). */
  id: string;
  jobId: string;
  type: WebhookEventType;
  url: string;
  /** The JSON body, fixed when the delivery is made (signed anew on each attempt). */
  body: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due, epoch ms. */
  dueAt: number;
  /** Why the last attempt failed, when one did. */
  lastError: string | null;
}

export interface WebhookOutbox {
  /** Stores a new delivery; INVALID_REQUEST if its id exists. Resolves once it would survive a crash. */
  add(delivery: WebhookDelivery): Promise<void>;
  /**
   * Up to `limit` deliveries due at `now` (dueAt <= now), soonest first, each claimed by moving
   * its dueAt to `now + leaseMs`. Concurrent claims never return the same delivery.
   */
  claimDue(now: number, leaseMs: number, limit: number): Promise<WebhookDelivery[]>;
  /** Saves an attempt's outcome and when to try again; a delivery no longer stored is not stored again. */
  reschedule(delivery: WebhookDelivery): Promise<void>;
  /** Forgets a settled delivery (delivered or given up); removing a missing one is not an error. */
  remove(id: string): Promise<void>;
  close?(): Promise<void>;
}
