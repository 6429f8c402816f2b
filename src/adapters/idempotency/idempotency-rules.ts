/**
 * What every IdempotencyStore refuses the same way: an empty key or token, a lease or lifetime
 * that is not a positive number of milliseconds, a fingerprint or answer that is not a string.
 */
import { FileconvError } from '../../core/errors.js';

function refuse(what: string, value: unknown): never {
  throw new FileconvError('INVALID_REQUEST', `An idempotency ${what}; got ${String(value)}.`);
}

export function checkIdempotencyKey(key: unknown, token?: unknown): void {
  if (typeof key !== 'string' || key === '') refuse('key must be a non-empty string', key);
  if (token !== undefined && (typeof token !== 'string' || token === ''))
    refuse('token must be a non-empty string', token);
}

export function checkDuration(what: string, ms: unknown): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0)
    refuse(`${what} must be a positive number of ms`, ms);
  return Math.ceil(ms);
}

export function checkText(what: string, value: unknown): void {
  if (typeof value !== 'string') refuse(`${what} must be a string`, typeof value);
}
