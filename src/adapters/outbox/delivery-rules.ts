/**
 * What every WebhookOutbox checks before it stores a delivery, so a bad record is refused the
 * same way by each (and a host's own outbox can reuse it).
 */
import { FileconvError } from '../../core/errors.js';
import type { WebhookDelivery, WebhookEventType } from '../../core/ports/index.js';

const TYPES: ReadonlySet<WebhookEventType> = new Set(['job.completed', 'job.failed', 'job.canceled']);

function refuse(why: string): FileconvError {
  return new FileconvError('INVALID_REQUEST', `A webhook delivery ${why}.`);
}

export function assertStorableDelivery(delivery: WebhookDelivery): void {
  if (typeof delivery !== 'object' || delivery === null) throw refuse('must be an object');
  if (typeof delivery.id !== 'string' || !/^[A-Za-z0-9._-]{1,100}$/.test(delivery.id))
    throw refuse('id must be 1-100 letters, digits, dots, dashes or underscores');
  if (typeof delivery.jobId !== 'string' || delivery.jobId === '') throw refuse('needs a jobId');
  if (!TYPES.has(delivery.type)) throw refuse(`type must be one of ${[...TYPES].join(', ')}`);
  if (typeof delivery.url !== 'string' || delivery.url === '') throw refuse('needs a url');
  if (typeof delivery.body !== 'string') throw refuse('body must be a string');
  if (!Number.isSafeInteger(delivery.attempts) || delivery.attempts < 0)
    throw refuse('attempts must be a whole number >= 0');
  if (typeof delivery.dueAt !== 'number' || !Number.isFinite(delivery.dueAt))
    throw refuse('dueAt must be epoch ms');
  if (delivery.lastError !== null && typeof delivery.lastError !== 'string')
    throw refuse('lastError must be a string or null');
}

export function checkClaim(now: number, leaseMs: number, limit: number): void {
  if (!Number.isFinite(now)) throw refuse('claim needs `now` as epoch ms');
  if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0)
    throw refuse('lease must be a positive whole number of ms');
  if (!Number.isSafeInteger(limit) || limit <= 0) throw refuse('claim limit must be a positive whole number');
}

export function duplicateDeliveryError(id: string): FileconvError {
  return new FileconvError('INVALID_REQUEST', `A webhook delivery with id ${id} exists.`, {
    details: { id },
  });
}
