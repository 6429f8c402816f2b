/**
 * The bound on waiting jobs (core/policy/overload.ts): which creates are refused with OVERLOADED,
 * the Retry-After it carries, and the option's check.
 */
import { describe, expect, it } from 'vitest';
import { FileconvError } from '../../src/core/errors.js';
import {
  assertQueueRoom,
  maxQueuedJobsOf,
  OVERLOADED_RETRY_AFTER_SECONDS,
} from '../../src/core/policy/overload.js';

/** The error assertQueueRoom throws, or null when it lets the jobs in. */
function refusal(waiting: number | undefined, adding: number, maxQueuedJobs: number | undefined) {
  try {
    assertQueueRoom({ waiting, adding, maxQueuedJobs });
    return null;
  } catch (error) {
    if (error instanceof FileconvError) return error;
    throw error;
  }
}

describe('assertQueueRoom', () => {
  it('lets jobs in up to the bound and refuses the one past it', () => {
    expect(refusal(0, 1, 2)).toBeNull();
    expect(refusal(1, 1, 2)).toBeNull();
    const refused = refusal(2, 1, 2);
    expect(refused?.code).toBe('OVERLOADED');
    expect(refused?.status).toBe(503);
    expect(refused?.details).toEqual({
      waiting: 2,
      maxQueuedJobs: 2,
      retryAfterSeconds: OVERLOADED_RETRY_AFTER_SECONDS,
    });
    // A backlog already past the bound (a burst overshot it) is refused too.
    expect(refusal(7, 1, 2)?.code).toBe('OVERLOADED');
  });

  it('counts a batch whole: refused when its jobs would not all fit', () => {
    expect(refusal(1, 3, 4)).toBeNull();
    expect(refusal(2, 3, 4)?.code).toBe('OVERLOADED');
  });

  it('takes a batch larger than the bound into an empty queue, or a retry could never succeed', () => {
    expect(refusal(0, 5, 2)).toBeNull();
    expect(refusal(1, 5, 2)?.code).toBe('OVERLOADED');
  });

  it('refuses nothing without a bound, or when the queue could not count', () => {
    expect(refusal(1_000_000, 1, undefined)).toBeNull();
    expect(refusal(undefined, 1, 2)).toBeNull();
  });
});

describe('maxQueuedJobsOf', () => {
  it('takes a whole number above 0, or nothing (no bound)', () => {
    expect(maxQueuedJobsOf(1, 'test')).toBe(1);
    expect(maxQueuedJobsOf(undefined, 'test')).toBeUndefined();
  });

  it.each([0, -1, 1.5, '3', Number.NaN, null])('refuses %s, naming the option', (given) => {
    expect(() => maxQueuedJobsOf(given, 'fileconv HTTP')).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining('fileconv HTTP: maxQueuedJobs must be a whole number above 0'),
      }),
    );
  });
});
