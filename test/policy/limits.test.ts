import { describe, expect, it } from 'vitest';
import {
  AUTH_FAILURE_LIMIT,
  clientKeyOf,
  decide,
  planRateLimit,
  QUOTAS,
  quotaExceededError,
  quotaLimit,
  quotaSlot,
  RATE_LIMITS,
  rateLimitClassOf,
  rateLimitedError,
  rateLimitSlot,
} from '../../src/core/policy/limits.js';
import { DEFAULT_PLANS } from '../../src/core/policy/plans.js';

const at = (iso: string) => Date.parse(iso);

describe('RATE_LIMITS and rateLimitClassOf', () => {
  it('has the specified limits: 20 per minute for upload and convert, 60 for the rest', () => {
    expect(RATE_LIMITS.upload).toEqual({ name: 'upload', limit: 20, windowMs: 60_000, scope: 'ip' });
    expect(RATE_LIMITS.default).toEqual({ name: 'default', limit: 60, windowMs: 60_000, scope: 'ip' });
  });

  it("planRateLimit: a plan's rates per IP under the specification's names, per account under their own", () => {
    // Free per IP is exactly the specification's rules: what anonymous clients always had.
    expect(planRateLimit(DEFAULT_PLANS.free!, 'upload', 'ip')).toEqual(RATE_LIMITS.upload);
    expect(planRateLimit(DEFAULT_PLANS.free!, 'default', 'ip')).toEqual(RATE_LIMITS.default);
    expect(planRateLimit(DEFAULT_PLANS.pro!, 'upload', 'account')).toEqual({
      name: 'upload-account',
      limit: 300,
      windowMs: 60_000,
      scope: 'account',
    });
    expect(planRateLimit(DEFAULT_PLANS.pro!, 'default', 'account')).toMatchObject({
      name: 'default-account',
      limit: 1_200,
    });
    expect(
      planRateLimit({ ...DEFAULT_PLANS.pro!, requestsPerMinute: null }, 'default', 'account'),
    ).toBeNull();
    // Failed sign-ins per IP: the default class's rate.
    expect(AUTH_FAILURE_LIMIT).toEqual({ name: 'authfail', limit: 60, windowMs: 60_000, scope: 'ip' });
  });

  it.each([
    ['POST', '/api/upload'],
    ['POST', '/api/convert'],
    ['POST', '/api/files/get-upload-url'],
    ['POST', '/api/files/multipart'],
    ['POST', '/api/jobs/create'],
    ['POST', '/api/jobs/batch'],
    ['PUT', '/api/files/file_123/content'],
    ['post', '/api/upload'],
    ['POST', '/api/upload/'],
    ['POST', '/API/Upload'],
    ['POST', '/api/convert?x=1'],
    ['PUT', '/api/files/abc/content?sig=xyz&expires=1'],
  ])('%s %s is upload class', (method, path) => {
    expect(rateLimitClassOf(method, path)).toBe('upload');
  });

  it.each([
    ['GET', '/api/jobs/job_1'],
    ['GET', '/api/upload'],
    ['DELETE', '/api/jobs/job_1'],
    ['GET', '/api/jobs/job_1/result'],
    ['GET', '/api/download'],
    ['GET', '/api/formats'],
    ['GET', '/api/health'],
    ['PUT', '/api/files/a/b/content'],
    ['PUT', '/api/files//content'],
    ['POST', '/api/upload/extra'],
    ['POST', '/api/jobs/job_1'],
  ])('%s %s is default class', (method, path) => {
    expect(rateLimitClassOf(method, path)).toBe('default');
  });
});

describe('counter slots', () => {
  it('names the rate-limit window in the key and expires at its end', () => {
    const now = 29_360_160 * 60_000 + 1234;
    expect(rateLimitSlot({ rule: RATE_LIMITS.upload, clientKey: 'ip:203.0.113.7', now })).toEqual({
      key: 'rate:upload:ip:203.0.113.7:29360160',
      expiresAt: 29_360_161 * 60_000,
      window: { id: '29360160', start: 29_360_160 * 60_000, end: 29_360_161 * 60_000 },
    });
  });

  it('keeps IPv6 client keys whole', () => {
    expect(rateLimitSlot({ rule: RATE_LIMITS.default, clientKey: 'ip:2001:db8::1', now: 0 }).key).toBe(
      'rate:default:ip:2001:db8::1:0',
    );
  });

  it('uses the UTC day, hour and month for quotas', () => {
    const now = at('2028-02-29T23:59:59.999Z');
    expect(quotaSlot({ kind: 'conversions', clientKey: 'ip:203.0.113.7', now })).toMatchObject({
      key: 'quota:conversions:ip:203.0.113.7:2028-02-29',
      expiresAt: at('2028-03-01T00:00:00Z'),
    });
    expect(quotaSlot({ kind: 'files', clientKey: 'account:a1', now }).key).toBe(
      'quota:files:account:a1:2028-02-29T23',
    );
    expect(quotaSlot({ kind: 'apiCalls', clientKey: 'account:a1', now })).toMatchObject({
      key: 'quota:apiCalls:account:a1:2028-02',
      expiresAt: at('2028-03-01T00:00:00Z'),
    });
  });

  it('refuses an empty, overlong or control-character client key', () => {
    for (const clientKey of ['', 'x'.repeat(257), 'ip:1.2.3.4\n', 'a b']) {
      expect(() => rateLimitSlot({ rule: RATE_LIMITS.default, clientKey, now: 0 })).toThrow(
        expect.objectContaining({ code: 'INVALID_REQUEST' }),
      );
    }
  });

  it('makes client keys from an identity or an IP', () => {
    expect(clientKeyOf(null, '203.0.113.7')).toBe('ip:203.0.113.7');
    expect(clientKeyOf({ accountId: 'acc_1' }, '203.0.113.7')).toBe('account:acc_1');
  });

  it('reads each quota limit from the plan', () => {
    expect(quotaLimit(DEFAULT_PLANS.free!, 'conversions')).toBe(5);
    expect(quotaLimit(DEFAULT_PLANS.plus!, 'apiCalls')).toBe(1_000);
    expect(quotaLimit(DEFAULT_PLANS.pro!, 'conversions')).toBeNull();
    expect(quotaLimit(DEFAULT_PLANS.pro!, 'files')).toBeNull();
    expect(quotaLimit(DEFAULT_PLANS.free!, 'uploadBytes')).toBe(100 * 1024 * 1024);
    expect(quotaLimit(DEFAULT_PLANS.enterprise!, 'uploadBytes')).toBeNull();
    expect(Object.keys(QUOTAS)).toEqual(['conversions', 'files', 'uploadBytes', 'apiCalls']);
  });
});

describe('decide', () => {
  const windowEnd = at('2026-03-10T12:01:00.000Z');
  const now = at('2026-03-10T12:00:17.000Z');

  it('passes the 20th request of 20 and refuses the 21st', () => {
    expect(decide({ limit: 20, count: 20, windowEnd, now })).toEqual({
      allowed: true,
      limit: 20,
      remaining: 0,
      resetAt: windowEnd,
      retryAfterSeconds: 0,
    });
    expect(decide({ limit: 20, count: 21, windowEnd, now })).toEqual({
      allowed: false,
      limit: 20,
      remaining: 0,
      resetAt: windowEnd,
      retryAfterSeconds: 43,
    });
  });

  it('passes the 60th of 60 and refuses the 61st', () => {
    expect(decide({ limit: 60, count: 60, windowEnd, now }).allowed).toBe(true);
    expect(decide({ limit: 60, count: 61, windowEnd, now }).allowed).toBe(false);
    expect(decide({ limit: 60, count: 1, windowEnd, now }).remaining).toBe(59);
  });

  it('rounds the wait up, and never says 0 to a refused request', () => {
    expect(decide({ limit: 1, count: 2, windowEnd, now: windowEnd - 1500 }).retryAfterSeconds).toBe(2);
    expect(decide({ limit: 1, count: 2, windowEnd, now: windowEnd - 1 }).retryAfterSeconds).toBe(1);
  });

  it('refuses everything with a limit of 0', () => {
    expect(decide({ limit: 0, count: 1, windowEnd, now }).allowed).toBe(false);
  });
});

describe('denial errors', () => {
  const decision = decide({
    limit: 20,
    count: 21,
    windowEnd: at('2026-03-10T12:01:00Z'),
    now: at('2026-03-10T12:00:17Z'),
  });

  it('RATE_LIMITED carries limit, remaining 0, resetAt ISO and retryAfterSeconds', () => {
    const error = rateLimitedError(RATE_LIMITS.upload, decision);
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      details: {
        policy: 'upload',
        scope: 'ip',
        limit: 20,
        remaining: 0,
        resetAt: '2026-03-10T12:01:00.000Z',
        retryAfterSeconds: 43,
      },
    });
    expect(error.message).toBe(
      'Too many requests: this endpoint allows 20 requests per minute. Try again in 43 seconds.',
    );
  });

  it("RATE_LIMITED says the scope: an account's plan rate, or the failed sign-ins of an address", () => {
    const account = rateLimitedError(planRateLimit(DEFAULT_PLANS.pro!, 'upload', 'account')!, decision);
    expect(account.details).toMatchObject({ policy: 'upload-account', scope: 'account' });
    expect(account.message).toBe(
      'Too many requests: your plan allows 300 requests per minute to this endpoint. Try again in 43 seconds.',
    );
    const failures = rateLimitedError(AUTH_FAILURE_LIMIT, decision);
    expect(failures.details).toMatchObject({ policy: 'authfail', scope: 'ip' });
    expect(failures.message).toMatch(
      /^Too many failed sign-ins: this address may fail 60 times per minute\./,
    );
  });

  it('QUOTA_EXCEEDED names the plan, the quota and when it resets', () => {
    const daily = decide({
      limit: 5,
      count: 6,
      windowEnd: at('2026-03-11T00:00:00Z'),
      now: at('2026-03-10T18:30:00Z'),
    });
    const error = quotaExceededError(DEFAULT_PLANS.free!, 'conversions', daily);
    expect(error).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      status: 429,
      details: {
        quota: 'conversions',
        plan: 'free',
        limit: 5,
        remaining: 0,
        resetAt: '2026-03-11T00:00:00.000Z',
        retryAfterSeconds: 19_800,
      },
    });
    expect(error.message).toBe(
      'The Free plan allows 5 conversions per day; the quota resets at 2026-03-11T00:00:00.000Z.',
    );
  });
});
