import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryCounterStore, type MemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { FileconvError } from '../../src/core/errors.js';
import {
  consumeQuota,
  enforceRateLimit,
  quotaStatus,
  rateLimitSpent,
  refundQuota,
} from '../../src/core/policy/enforce.js';
import { AUTH_FAILURE_LIMIT, planRateLimit } from '../../src/core/policy/limits.js';
import { DEFAULT_PLANS, definePlans } from '../../src/core/policy/plans.js';
import type { CounterStore } from '../../src/core/ports/index.js';

const at = (iso: string) => Date.parse(iso);

/** A fake clock shared by the test and the store, so counters expire when the policy says. */
let clock: number;
let counters: MemoryCounterStore;

beforeEach(() => {
  clock = at('2026-03-10T12:00:00.000Z');
  counters = createMemoryCounterStore({ now: () => clock });
});
afterEach(() => counters.close());

const free = DEFAULT_PLANS.free!;
const plus = DEFAULT_PLANS.plus!;
const pro = DEFAULT_PLANS.pro!;

describe('rateLimitSpent and per-account rules', () => {
  it('reads whether a budget is used up without spending it', async () => {
    const input = { rule: AUTH_FAILURE_LIMIT, clientKey: 'ip:203.0.113.7', now: clock };
    for (let n = 0; n < 100; n++) expect(await rateLimitSpent(counters, input)).toBe(false);
    for (let n = 0; n < 59; n++) await enforceRateLimit(counters, input);
    expect(await rateLimitSpent(counters, input)).toBe(false);
    await enforceRateLimit(counters, input);
    expect(await rateLimitSpent(counters, input)).toBe(true);
    // Another address, and the next minute, have room.
    expect(await rateLimitSpent(counters, { ...input, clientKey: 'ip:203.0.113.8' })).toBe(false);
    expect(await rateLimitSpent(counters, { ...input, now: clock + 60_000 })).toBe(false);
  });

  it("counts an account's rule apart from the IP rule of the same class", async () => {
    const rule = planRateLimit(pro, 'upload', 'account')!;
    const outcomes = [];
    for (let n = 0; n < 301; n++) {
      outcomes.push(await enforceRateLimit(counters, { rule, clientKey: 'account:acc_1', now: clock }));
    }
    expect(outcomes[299]!.allowed).toBe(true);
    expect(outcomes[300]!.error).toMatchObject({
      code: 'RATE_LIMITED',
      details: { policy: 'upload-account', scope: 'account', limit: 300 },
    });
    expect(outcomes[0]!.headers['RateLimit-Policy']).toBe('"upload-account";q=300;w=60');
    const ip = await enforceRateLimit(counters, { rule: 'upload', clientKey: 'ip:203.0.113.7', now: clock });
    expect(ip.decision.remaining).toBe(19);
  });
});

describe('enforceRateLimit', () => {
  async function requests(rule: 'upload' | 'default', count: number, clientKey = 'ip:203.0.113.7') {
    const outcomes = [];
    for (let index = 0; index < count; index++)
      outcomes.push(await enforceRateLimit(counters, { rule, clientKey, now: clock }));
    return outcomes;
  }

  it('passes the 20th upload-class request in a minute and refuses the 21st', async () => {
    const outcomes = await requests('upload', 21);
    expect(outcomes.slice(0, 20).every((outcome) => outcome.allowed && outcome.error === null)).toBe(true);
    expect(outcomes[19]!.decision.remaining).toBe(0);
    const refused = outcomes[20]!;
    expect(refused.allowed).toBe(false);
    expect(refused.error).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 20, remaining: 0, resetAt: '2026-03-10T12:01:00.000Z', retryAfterSeconds: 60 },
    });
    expect(refused.headers).toMatchObject({ 'Retry-After': '60', RateLimit: '"upload";r=0;t=60' });
  });

  it('passes the 60th other request in a minute and refuses the 61st', async () => {
    const outcomes = await requests('default', 61);
    expect(outcomes[59]!.allowed).toBe(true);
    expect(outcomes[60]!.allowed).toBe(false);
    expect(outcomes[0]!.headers['RateLimit-Policy']).toBe('"default";q=60;w=60');
  });

  it('counts each class and each client separately', async () => {
    await requests('upload', 20);
    expect((await requests('default', 1))[0]!.allowed).toBe(true);
    expect((await requests('upload', 1, 'ip:198.51.100.1'))[0]!.allowed).toBe(true);
  });

  it('starts a new window at the next minute: 12:00:59.999 vs 12:01:00.000', async () => {
    clock = at('2026-03-10T12:00:59.999Z');
    const last = await requests('upload', 21);
    expect(last[20]!.allowed).toBe(false);
    expect(last[20]!.decision.retryAfterSeconds).toBe(1);
    clock = at('2026-03-10T12:01:00.000Z');
    const next = await requests('upload', 1);
    expect(next[0]!.allowed).toBe(true);
    expect(next[0]!.decision.remaining).toBe(19);
  });

  it('takes a rule of the host own', async () => {
    const rule = { name: 'default' as const, limit: 2, windowMs: 1000 };
    expect((await enforceRateLimit(counters, { rule, clientKey: 'ip:x', now: clock })).allowed).toBe(true);
    expect((await enforceRateLimit(counters, { rule, clientKey: 'ip:x', now: clock })).allowed).toBe(true);
    const third = await enforceRateLimit(counters, { rule, clientKey: 'ip:x', now: clock });
    expect(third.allowed).toBe(false);
    expect(third.headers['RateLimit-Policy']).toBe('"default";q=2;w=1');
  });
});

describe('consumeQuota', () => {
  const consume = (
    plan = free,
    extra: { amount?: number; clientKey?: string; kind?: 'conversions' | 'apiCalls' | 'files' } = {},
  ) =>
    consumeQuota(counters, {
      plan,
      kind: extra.kind ?? 'conversions',
      clientKey: extra.clientKey ?? 'ip:203.0.113.7',
      now: clock,
      ...(extra.amount === undefined ? {} : { amount: extra.amount }),
    });

  it('allows 5 Free conversions a day and refuses the 6th until the next UTC midnight, exactly', async () => {
    clock = at('2026-03-10T18:30:00.000Z');
    for (let index = 0; index < 5; index++) expect((await consume()).allowed).toBe(true);
    const refused = await consume();
    expect(refused.allowed).toBe(false);
    expect(refused.ticket).toBeNull();
    expect(refused.error).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      status: 429,
      details: { limit: 5, remaining: 0, resetAt: '2026-03-11T00:00:00.000Z', retryAfterSeconds: 19_800 },
    });
    expect(clock + refused.decision!.retryAfterSeconds * 1000).toBe(at('2026-03-11T00:00:00.000Z'));
    expect(refused.headers['Retry-After']).toBe('19800');
    expect(refused.headers['RateLimit-Policy']).toBe('"conversions";q=5;w=86400');
  });

  it('gives a new day its full quota at 00:00:00.000 UTC', async () => {
    clock = at('2026-03-10T23:59:59.999Z');
    for (let index = 0; index < 5; index++) await consume();
    const refused = await consume();
    expect(refused.allowed).toBe(false);
    expect(refused.decision!.retryAfterSeconds).toBe(1);
    clock = at('2026-03-11T00:00:00.000Z');
    const fresh = await consume();
    expect(fresh.allowed).toBe(true);
    expect(fresh.decision!.remaining).toBe(4);
  });

  it('does not count refused requests', async () => {
    for (let index = 0; index < 5; index++) await consume();
    for (let index = 0; index < 10; index++) expect((await consume()).allowed).toBe(false);
    expect(
      await quotaStatus(counters, {
        plan: free,
        kind: 'conversions',
        clientKey: 'ip:203.0.113.7',
        now: clock,
      }),
    ).toEqual({
      kind: 'conversions',
      limit: 5,
      used: 5,
      remaining: 0,
      resetAt: at('2026-03-11T00:00:00Z'),
    });
  });

  it('refuses a batch that does not fit, whole, and consumes none of it', async () => {
    await consume(free, { amount: 3 });
    const refused = await consume(free, { amount: 3 });
    expect(refused.allowed).toBe(false);
    expect((await consume(free, { amount: 2 })).allowed).toBe(true);
    expect((await consume()).allowed).toBe(false);
  });

  it('never refuses or counts an unlimited (null) quota', async () => {
    for (let index = 0; index < 1000; index++) {
      const outcome = await consume(pro, { clientKey: 'account:acc_pro' });
      expect(outcome).toEqual({
        allowed: true,
        decision: null,
        entry: null,
        headers: {},
        error: null,
        ticket: null,
      });
    }
    expect(counters.size()).toBe(0);
    expect(
      await quotaStatus(counters, {
        plan: pro,
        kind: 'conversions',
        clientKey: 'account:acc_pro',
        now: clock,
      }),
    ).toBeNull();
  });

  it('meters monthly API calls per calendar month: 1,000 for Plus, reset on the 1st', async () => {
    clock = at('2028-02-29T23:59:59.000Z');
    const calls = (count: number) =>
      Promise.all(
        Array.from({ length: count }, () => consume(plus, { kind: 'apiCalls', clientKey: 'account:acc_1' })),
      );
    const first = await calls(1000);
    expect(first.every((outcome) => outcome.allowed)).toBe(true);
    const refused = await consume(plus, { kind: 'apiCalls', clientKey: 'account:acc_1' });
    expect(refused.error).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      details: {
        quota: 'apiCalls',
        plan: 'plus',
        limit: 1000,
        resetAt: '2028-03-01T00:00:00.000Z',
        retryAfterSeconds: 1,
      },
    });
    expect(refused.headers['RateLimit-Policy']).toBe(`"apiCalls";q=1000;w=${29 * 86_400}`);
    clock = at('2028-03-01T00:00:00.000Z');
    expect((await consume(plus, { kind: 'apiCalls', clientKey: 'account:acc_1' })).decision!.remaining).toBe(
      999,
    );
  });

  it('rolls the monthly quota over from Dec 31 to Jan 1', async () => {
    clock = at('2026-12-31T23:59:59.999Z');
    const december = await consume(plus, { kind: 'apiCalls', clientKey: 'account:acc_1' });
    expect(december.decision!.resetAt).toBe(at('2027-01-01T00:00:00Z'));
    clock = at('2027-01-01T00:00:00.000Z');
    expect((await consume(plus, { kind: 'apiCalls', clientKey: 'account:acc_1' })).decision!.remaining).toBe(
      999,
    );
  });

  it('applies an hourly files limit when the host sets one', async () => {
    const plans = definePlans({ plus: { filesPerHour: 2 } });
    clock = at('2026-03-10T12:59:00.000Z');
    expect((await consume(plans.plus, { kind: 'files' })).allowed).toBe(true);
    expect((await consume(plans.plus, { kind: 'files' })).allowed).toBe(true);
    const refused = await consume(plans.plus, { kind: 'files' });
    expect(refused.decision!.retryAfterSeconds).toBe(60);
    clock = at('2026-03-10T13:00:00.000Z');
    expect((await consume(plans.plus, { kind: 'files' })).allowed).toBe(true);
  });

  it('never lets more than the limit through under 50 concurrent requests', async () => {
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => consume()));
    expect(outcomes.filter((outcome) => outcome.allowed)).toHaveLength(5);
    expect(await counters.get('quota:conversions:ip:203.0.113.7:2026-03-10')).toBe(5);
  });

  it('refuses a non-positive or fractional amount', async () => {
    for (const amount of [0, -1, 1.5]) {
      await expect(consume(free, { amount })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    }
  });
});

describe('refundQuota', () => {
  const consume = () =>
    consumeQuota(counters, { plan: free, kind: 'conversions', clientKey: 'ip:203.0.113.7', now: clock });

  it('gives a failed conversion back to the quota', async () => {
    const outcomes = [];
    for (let index = 0; index < 5; index++) outcomes.push(await consume());
    expect((await consume()).allowed).toBe(false);
    expect(await refundQuota(counters, outcomes[4]!.ticket!, clock)).toBe(true);
    const again = await consume();
    expect(again.allowed).toBe(true);
    expect(again.decision!.remaining).toBe(0);
  });

  it('keeps the ticket JSON-safe, so a job record can carry it', async () => {
    const { ticket } = await consume();
    const stored = JSON.parse(JSON.stringify(ticket));
    expect(stored).toEqual({
      kind: 'conversions',
      key: 'quota:conversions:ip:203.0.113.7:2026-03-10',
      expiresAt: at('2026-03-11T00:00:00Z'),
      amount: 1,
    });
    expect(await refundQuota(counters, stored, clock)).toBe(true);
  });

  it('tries a refund a full disk refused again in the background; one a timeout may have applied, never', async () => {
    // Found by the soak: the full disk that failed a job refused its refund too.
    const { ticket } = await consume();
    let refusals: string[] = ['NO_SPACE', 'NO_SPACE'];
    const flaky: CounterStore = {
      ...counters,
      increment: (key, amount, expiresAt) => {
        const code = refusals.shift();
        if (code) return Promise.reject(new FileconvError(code as 'NO_SPACE', 'the store cannot write now'));
        return counters.increment(key, amount, expiresAt);
      },
    };
    const settled = new Promise<boolean>((resolve) => {
      // The caller is answered at once (false: not yet), the refund lands later.
      void refundQuota(flaky, ticket!, clock, { sleep: async () => {}, onSettled: resolve }).then((now) =>
        expect(now).toBe(false),
      );
    });
    expect(await settled).toBe(true);
    expect(await counters.get(ticket!.key)).toBe(0);
    // UNAVAILABLE (a Redis timeout may have applied it): the caller hears of it, nothing repeats.
    refusals = ['UNAVAILABLE'];
    const { ticket: second } = await consume();
    await expect(refundQuota(flaky, second!, clock)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(await counters.get(second!.key)).toBe(1);
  });

  it('does nothing once the window has ended', async () => {
    const { ticket } = await consume();
    clock = at('2026-03-11T00:00:00.000Z');
    await consume();
    expect(await refundQuota(counters, ticket!, clock)).toBe(false);
    expect(await counters.get('quota:conversions:ip:203.0.113.7:2026-03-11')).toBe(1);
  });

  it('never leaves a counter below zero when refunded twice', async () => {
    const { ticket } = await consume();
    await refundQuota(counters, ticket!, clock);
    await refundQuota(counters, ticket!, clock);
    expect(await counters.get(ticket!.key)).toBe(0);
    for (let index = 0; index < 5; index++) expect((await consume()).allowed).toBe(true);
    expect((await consume()).allowed).toBe(false);
  });
});

describe('store failures', () => {
  it('propagate, so the host decides to fail open or closed', async () => {
    const broken: CounterStore = {
      increment: () => Promise.reject(new Error('redis down')),
      get: () => Promise.reject(new Error('redis down')),
    };
    await expect(enforceRateLimit(broken, { rule: 'upload', clientKey: 'ip:x', now: clock })).rejects.toThrow(
      'redis down',
    );
    await expect(
      consumeQuota(broken, { plan: free, kind: 'conversions', clientKey: 'ip:x', now: clock }),
    ).rejects.toThrow('redis down');
  });
});
