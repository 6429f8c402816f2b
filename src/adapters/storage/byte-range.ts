/**
 * Byte-range checks shared by storage adapters, so every backend answers the same way:
 * a malformed range or one starting at or past the end is INVALID_REQUEST, and an end past
 * the last byte is clamped (as HTTP and S3 do).
 */
import { FileconvError } from '../../core/errors.js';
import type { ByteRange } from '../../core/ports/index.js';

function invalidRange(key: string, reason: string, details: Record<string, unknown>): FileconvError {
  return new FileconvError('INVALID_REQUEST', `Invalid byte range for "${key}": ${reason}.`, {
    details: { key, ...details },
  });
}

/** Checks the range's shape (before the object is even looked up). */
export function checkByteRange(key: string, range: ByteRange | undefined): void {
  if (range === undefined) return;
  if (range === null || typeof range !== 'object') throw invalidRange(key, 'it must be an object', {});
  const { start, end } = range;
  if (typeof start !== 'number' || !Number.isSafeInteger(start) || start < 0) {
    throw invalidRange(key, 'start must be a non-negative integer', { start });
  }
  if (end !== undefined && (typeof end !== 'number' || !Number.isSafeInteger(end) || end < start)) {
    throw invalidRange(key, 'end must be an integer not below start', { start, end });
  }
}

/**
 * Inclusive `[start, end]` of a range against an object of `size` bytes, or null for no range.
 * Throws INVALID_REQUEST when the range starts at or past the end (not satisfiable).
 */
export function resolveByteRange(
  key: string,
  range: ByteRange | undefined,
  size: number,
): { start: number; end: number } | null {
  if (range === undefined) return null;
  if (range.start >= size) {
    throw invalidRange(key, 'it starts at or past the end of the object', { ...range, size });
  }
  return { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) };
}
