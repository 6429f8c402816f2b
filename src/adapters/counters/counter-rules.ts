/**
 * What every embedded CounterStore refuses the same way: an empty key, an amount that is not an
 * integer, an expiry that is not epoch milliseconds.
 */
import { FileconvError } from '../../core/errors.js';

export function checkCounterArguments(key: unknown, amount?: unknown, expiresAt?: unknown): void {
  if (typeof key !== 'string' || key === '') {
    throw new FileconvError('INVALID_REQUEST', 'A counter key must be a non-empty string.');
  }
  if (amount !== undefined && !Number.isSafeInteger(amount)) {
    throw new FileconvError('INVALID_REQUEST', `A counter amount must be an integer; got ${String(amount)}.`);
  }
  if (expiresAt !== undefined && (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `A counter expiry must be epoch ms; got ${String(expiresAt)}.`,
    );
  }
}
