/**
 * The retry helper as pure timing logic: a fake clock advanced by a fake sleep, fixed randomness.
 * Retries only UNAVAILABLE, backs off exponentially with bounded jitter, never waits past the
 * budget (shared by the calls of one job), and a wait ends at once when its signal aborts.
 */
import { describe, expect, it } from 'vitest';
import { FileconvError } from '../src/core/errors.js';
import {
  abortableSleep,
  backoffDelay,
  createOutageBudget,
  INITIAL_DELAY_MS,
  MAX_DELAY_MS,
  retryWhileUnavailable,
} from '../src/core/retry.js';

const away = () => new FileconvError('UNAVAILABLE', 'S3 is away.', { details: { key: 'k' } });

/** A clock that only the fake sleep (and each failing call, `callMs`) moves. */
function fakeTime(callMs = 0) {
  let now = 0;
  const waits: number[] = [];
  return {
    now: () => now,
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
      now += ms;
    },
    /** A call that fails `times` times (each taking callMs), then answers 'ok'. */
    failing(times: number, error: () => Error = away) {
      let calls = 0;
      const work = async () => {
        calls++;
        now += callMs;
        if (calls <= times) throw error();
        return 'ok';
      };
      return { work, calls: () => calls };
    },
  };
}

describe('backoffDelay', () => {
  it('doubles from the first delay up to the cap, half of each step random', () => {
    const low = [1, 2, 3, 4, 5, 6, 7, 30, 1000].map((attempt) => backoffDelay(attempt, () => 0));
    const high = [1, 2, 3, 4, 5, 6, 7, 30, 1000].map((attempt) => backoffDelay(attempt, () => 1));
    expect(low).toEqual([125, 250, 500, 1000, 2000, 2500, 2500, 2500, 2500]);
    expect(high).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000, 5000]);
    expect(INITIAL_DELAY_MS).toBe(250);
    expect(MAX_DELAY_MS).toBe(5000);
  });
});

describe('retryWhileUnavailable', () => {
  it('retries UNAVAILABLE with growing waits until the call succeeds', async () => {
    const time = fakeTime();
    const call = time.failing(4);
    const budget = createOutageBudget(120_000);
    const result = await retryWhileUnavailable(call.work, { budget, ...time, random: () => 0.5 });
    expect(result).toBe('ok');
    expect(call.calls()).toBe(5);
    expect(time.waits).toEqual([188, 375, 750, 1500]);
    expect(budget.spentMs).toBe(188 + 375 + 750 + 1500);
  });

  it('throws anything else at once: NOT_FOUND does not get better by waiting', async () => {
    const time = fakeTime();
    const call = time.failing(1, () => new FileconvError('NOT_FOUND', 'No object.'));
    await expect(
      retryWhileUnavailable(call.work, { budget: createOutageBudget(120_000), ...time }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(call.calls()).toBe(1);
    expect(time.waits).toEqual([]);
  });

  it('gives up with UNAVAILABLE once the budget is spent, counting the failed calls too', async () => {
    const time = fakeTime(1_000); // each failing call takes 1 s (a connect timeout)
    const call = time.failing(Number.POSITIVE_INFINITY);
    const budget = createOutageBudget(10_000);
    const error: FileconvError = await retryWhileUnavailable(call.work, {
      budget,
      ...time,
      random: () => 1,
    }).then(
      () => {
        throw new Error('it never succeeds');
      },
      (caught: unknown) => caught as FileconvError,
    );
    expect(error).toMatchObject({ code: 'UNAVAILABLE', details: { key: 'k', attempts: call.calls() } });
    expect(error.message).toBe('S3 is away. (still failing after 6 attempts; the job waited 11 s in all)');
    expect(error.cause).toBeInstanceOf(FileconvError);
    // Calls at 0, 1.25, 2.75, 4.75, 7.75 s; the fifth wait is cut to what is left (1.25 s, not
    // 4 s), so the last attempt comes as the budget ends; it fails after its own 1 s.
    expect(time.waits).toEqual([250, 500, 1000, 2000, 1250]);
    expect(budget.spentMs).toBe(11_000);
    expect(time.now()).toBe(11_000);
  });

  it('shares one budget between the calls of a job', async () => {
    const time = fakeTime();
    const budget = createOutageBudget(3_000);
    await retryWhileUnavailable(time.failing(3).work, { budget, ...time, random: () => 1 }); // 250+500+1000
    expect(budget.spentMs).toBe(1_750);
    await expect(
      retryWhileUnavailable(time.failing(Number.POSITIVE_INFINITY).work, {
        budget,
        ...time,
        random: () => 1,
      }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(budget.spentMs).toBe(3_000);
  });

  it('with a budget of 0 throws the first UNAVAILABLE as it is', async () => {
    const time = fakeTime();
    const first = away();
    const error = await retryWhileUnavailable(
      async () => {
        throw first;
      },
      { budget: createOutageBudget(0), ...time },
    ).catch((caught: unknown) => caught);
    expect(error).toBe(first);
    expect(time.waits).toEqual([]);
  });

  it('calls onRetry before each wait, and an aborted signal ends the wait with its reason', async () => {
    const controller = new AbortController();
    const canceled = new FileconvError('CANCELED', 'The job was canceled.');
    const seen: number[] = [];
    const started = Date.now();
    const error = await retryWhileUnavailable(
      async () => {
        throw away();
      },
      {
        budget: createOutageBudget(120_000),
        signal: controller.signal,
        onRetry: (_, attempt) => {
          seen.push(attempt);
          if (attempt === 2) setTimeout(() => controller.abort(canceled), 10);
        },
      },
    ).catch((caught: unknown) => caught);
    expect(error).toBe(canceled);
    expect(seen).toEqual([1, 2]);
    expect(Date.now() - started).toBeLessThan(INITIAL_DELAY_MS + 200); // the second wait was cut short
  });
});

describe('abortableSleep', () => {
  it('rejects at once with the reason of an already aborted signal', async () => {
    const reason = new Error('stop');
    await expect(abortableSleep(10_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('resolves after the time without a signal', async () => {
    await expect(abortableSleep(5, undefined)).resolves.toBeUndefined();
  });
});
