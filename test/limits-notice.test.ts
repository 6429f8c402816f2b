/**
 * What `fileconv serve` says about its limits (issue 29, scope 4), as text: the start-up line
 * built from the plans in force, the warning for per-IP limits on a public address without a
 * trust-proxy setting, and the operator's notice on the first refusal of each kind, once.
 * test/serve-limits.test.ts checks the same lines in a real `fileconv serve`'s output.
 */
import { describe, expect, it } from 'vitest';
import { firstLimitTrips, limitsLine, sharedAddressWarning } from '../bin/support/limits-notice.js';
import { DEFAULT_PLANS, definePlans } from '../src/index.js';
import type { RequestEvent } from '../src/service/service.js';

describe('the start-up line', () => {
  it('names the default plans numbers (the specification Free tier) and the ways to change them', () => {
    expect(limitsLine(DEFAULT_PLANS, { on: true, source: 'default' })).toBe(
      'fileconv: limits: Free (no API key, per IP address) 5 conversions/day, 20 uploads/min, 60 other requests/min, ' +
        '100 MB uploaded/hour, files up to 25 MB; with an API key: Plus 100 conversions/day, Pro unlimited conversions, ' +
        'Business unlimited conversions, Enterprise unlimited conversions ' +
        '(change with --plans <file> (or FILECONV_PLANS), API keys for other plans: fileconv keys create; turn off with --no-limits)',
    );
  });

  it('follows the plans in force, limits left out included', () => {
    const plans = definePlans({
      free: { conversionsPerDay: null, uploadRequestsPerMinute: null, maxFileBytes: 50 * 1024 * 1024 },
    });
    const line = limitsLine(plans, { on: true, source: 'default' });
    expect(line).toContain(
      'Free (no API key, per IP address) unlimited conversions, 60 other requests/min, 100 MB uploaded/hour, files up to 50 MB;',
    );
    expect(line).not.toContain('uploads/min');
  });

  it('says "no limits" when they are off, and where that was decided', () => {
    expect(limitsLine(DEFAULT_PLANS, { on: false, source: 'env FILECONV_LIMITS' })).toMatch(
      /^fileconv: limits off \(env FILECONV_LIMITS\): no limits: no rate limits and no quotas/,
    );
  });
});

describe('the shared-address warning', () => {
  it('warns for per-IP limits on a public or wildcard address with no trust-proxy setting', () => {
    for (const host of ['0.0.0.0', '::', '203.0.113.7']) {
      expect(sharedAddressWarning({ limits: true, host, trustProxy: undefined })).toContain(
        'every user shares one address',
      );
    }
  });

  it('is silent on loopback, with limits off, or once a trust-proxy setting is given (false included)', () => {
    expect(sharedAddressWarning({ limits: true, host: '127.0.0.1', trustProxy: undefined })).toBeUndefined();
    expect(sharedAddressWarning({ limits: true, host: 'localhost', trustProxy: undefined })).toBeUndefined();
    expect(sharedAddressWarning({ limits: true, host: '::1', trustProxy: undefined })).toBeUndefined();
    expect(sharedAddressWarning({ limits: false, host: '0.0.0.0', trustProxy: undefined })).toBeUndefined();
    expect(sharedAddressWarning({ limits: true, host: '0.0.0.0', trustProxy: 1 })).toBeUndefined();
    expect(sharedAddressWarning({ limits: true, host: '0.0.0.0', trustProxy: false })).toBeUndefined();
  });
});

describe('the first refusal of each kind', () => {
  const event = (code: string | undefined): RequestEvent => ({
    requestId: 'r',
    method: 'POST',
    route: '/api/convert',
    url: '/api/convert',
    ip: '198.51.100.4',
    status: code ? 429 : 200,
    code,
    durationMs: 1,
    owner: 'ip:198.51.100.4',
    jobIds: [],
    uploadedBytes: 0,
  });

  it('is said once per kind, with the ways out; other answers say nothing', () => {
    const trip = firstLimitTrips();
    expect(trip(event(undefined))).toBeUndefined();
    expect(trip(event('INVALID_REQUEST'))).toBeUndefined();
    const quota = trip(event('QUOTA_EXCEEDED'));
    expect(quota).toContain('a client reached a quota (QUOTA_EXCEEDED, POST /api/convert, ip:198.51.100.4)');
    expect(quota).toContain('fileconv keys create');
    expect(trip(event('QUOTA_EXCEEDED'))).toBeUndefined();
    expect(trip(event('RATE_LIMITED'))).toContain('a client reached a rate limit (RATE_LIMITED');
    expect(trip(event('RATE_LIMITED'))).toBeUndefined();
  });
});
