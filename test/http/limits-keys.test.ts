/**
 * API keys over a real port (SERVICE-SPEC 5, 8.3): any Authorization header that is not a live
 * key in the `Bearer <key>` form is 401 UNAUTHORIZED with a WWW-Authenticate challenge, never
 * the Free plan; guessing is throttled per IP by the failed sign-ins limit; and monthly API calls are
 * counted per account, reset with the UTC calendar month.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createMemoryKeyStore } from '../../src/adapters/keys/memory.js';
import { createApiKey, revokeApiKey } from '../../src/core/policy/api-keys.js';
import { definePlans, type PlanTable } from '../../src/core/policy/plans.js';
import { type ApiResponse, call, expectError, movableClock, startServer } from './harness.js';

async function keyedServer(start: string, plans?: PlanTable) {
  const clock = movableClock(start);
  const counters = createMemoryCounterStore({ now: clock.now });
  const keys = createMemoryKeyStore();
  const server = await startServer({ clock, router: { counters, keys, ...(plans ? { plans } : {}) } });
  return { server, clock, keys };
}

const auth = (value: string) => ({ headers: { authorization: value } });

/** `key` with one character of its secret changed, still a well-formed key. */
function almost(key: string, at = key.length - 1): string {
  const changed = key[at] === 'a' ? 'b' : 'a';
  return key.slice(0, at) + changed + key.slice(at + 1);
}

function expectUnauthorized(response: ApiResponse, reason: string, challenge: string): void {
  expectError(response, 401, 'UNAUTHORIZED');
  expect(response.body.error.details).toEqual({ reason });
  expect(response.headers.get('www-authenticate')).toBe(`Bearer realm="fileconv", error="${challenge}"`);
}

function apiCallsState(response: ApiResponse): string | undefined {
  return response.headers
    .get('ratelimit')
    ?.split(', ')
    .find((member) => member.startsWith('"apiCalls"'));
}

describe('API keys', () => {
  it('an almost-right, malformed, wrongly-sent or revoked key is 401 with WWW-Authenticate, never Free', async () => {
    const { server, keys } = await keyedServer('2026-11-22T12:00:00.000Z');
    const { key, record } = await createApiKey(keys, { accountId: 'acct-a', plan: 'plus' });
    const good = await call(server, 'GET', '/api/usage', auth(`Bearer ${key}`));
    expect(good.status, good.text).toBe(200);
    expect([good.body.account, good.body.plan.name]).toEqual(['acct-a', 'plus']);
    // The scheme is case-insensitive and may be followed by several spaces (RFC 9110, RFC 6750).
    expect((await call(server, 'GET', '/api/usage', auth(`bearer   ${key}`))).status).toBe(200);

    const cases: Array<[string, string, string]> = [
      [`Bearer ${almost(key)}`, 'unknown_key', 'invalid_token'], // last secret character
      [`Bearer ${almost(key, 5)}`, 'unknown_key', 'invalid_token'], // a key id character
      [`Bearer ${key.slice(0, -1)}`, 'malformed_key', 'invalid_token'],
      [`Bearer ${key}x`, 'malformed_key', 'invalid_token'],
      [`Token ${key}`, 'malformed_header', 'invalid_request'],
      ['Bearer', 'malformed_header', 'invalid_request'],
      ['Bearer ', 'malformed_header', 'invalid_request'],
      ['Basic dXNlcjpwYXNzd29yZA==', 'malformed_header', 'invalid_request'],
      [key, 'malformed_header', 'invalid_request'],
      [`Bearer ${key} ${key}`, 'malformed_header', 'invalid_request'],
      ['', 'malformed_header', 'invalid_request'],
    ];
    for (const [header, reason, challenge] of cases) {
      // On a read (which Free could do) and on a write (which Free would be charged for).
      expectUnauthorized(await call(server, 'GET', '/api/usage', auth(header)), reason, challenge);
      const upload = await call(server, 'POST', '/api/files/get-upload-url', {
        ...auth(header),
        json: { fileName: 'a.png', fileSize: 10, contentType: 'image/png' },
      });
      expectUnauthorized(upload, reason, challenge);
      // Counted against the IP's failed sign-ins (not an account's budget, which it has none of).
      expect(upload.headers.get('ratelimit')).toMatch(/^"authfail";r=\d+;t=\d+$/);
    }
    expect(await server.fileRecords()).toEqual([]);

    await revokeApiKey(keys, record.id);
    expectUnauthorized(
      await call(server, 'GET', '/api/usage', auth(`Bearer ${key}`)),
      'revoked_key',
      'invalid_token',
    );
    // The same calls without any header are the Free plan.
    const free = await call(server, 'GET', '/api/usage');
    expect([free.status, free.body.account, free.body.plan.name]).toEqual([200, null, 'free']);
  });

  it('guessing keys is throttled per IP: the 61st guess in a minute is 429, not 401', async () => {
    const { server, keys } = await keyedServer('2026-11-22T12:00:00.000Z');
    const { key } = await createApiKey(keys, { accountId: 'acct-a', plan: 'plus' });
    const from = { localAddress: '127.0.0.4' };
    for (let n = 0; n < 60; n++) {
      const guess = await call(server, 'GET', '/api/usage', {
        ...from,
        ...auth(`Bearer ${almost(key, 10 + (n % 40))}`),
      });
      expect(guess.status).toBe(401);
    }
    const throttled = await call(server, 'GET', '/api/usage', { ...from, ...auth(`Bearer ${key}`) });
    expectError(throttled, 429, 'RATE_LIMITED');
    // The right key from another address still works.
    expect((await call(server, 'GET', '/api/usage', auth(`Bearer ${key}`))).status).toBe(200);
  });
});

describe('monthly API calls', () => {
  it('the 4th call of a 3-call month is 429 QUOTA_EXCEEDED for that account only, until the month ends', async () => {
    const plans = definePlans({ plus: { apiCallsPerMonth: 3 } });
    const { server, clock, keys } = await keyedServer('2026-11-30T23:59:30.000Z', plans);
    const a = await createApiKey(keys, { accountId: 'acct-a', plan: 'plus', plans });
    const a2 = await createApiKey(keys, { accountId: 'acct-a', plan: 'plus', plans });
    const b = await createApiKey(keys, { accountId: 'acct-b', plan: 'plus', plans });
    const as = (key: string) => (path: string) => call(server, 'GET', path, auth(`Bearer ${key}`));
    const callA = as(a.key);

    // Any endpoint counts: November has 30 days (w), 30 s are left of it (t).
    for (const [n, path] of ['/api/usage', '/api/formats', '/api/jobs/unknown-id'].entries()) {
      const response = await callA(path);
      expect(response.status).toBe(path === '/api/jobs/unknown-id' ? 404 : 200);
      // The account's rate (Plus: 300 a minute), not the IP's 60.
      expect(response.headers.get('ratelimit-policy')).toBe(
        '"default-account";q=300;w=60, "apiCalls";q=3;w=2592000',
      );
      expect(apiCallsState(response)).toBe(`"apiCalls";r=${2 - n};t=30`);
    }
    const fourth = await callA('/api/usage');
    expectError(fourth, 429, 'QUOTA_EXCEEDED');
    expect(fourth.headers.get('retry-after')).toBe('30');
    expect(fourth.body.error.details).toMatchObject({
      quota: 'apiCalls',
      plan: 'plus',
      limit: 3,
      resetAt: '2026-12-01T00:00:00.000Z',
    });
    expectError(await callA('/api/usage'), 429, 'QUOTA_EXCEEDED');
    // Another key of the same account shares its quota; another account has its own.
    expectError(await as(a2.key)('/api/usage'), 429, 'QUOTA_EXCEEDED');
    const other = await as(b.key)('/api/usage');
    expect(other.status, other.text).toBe(200);
    expect(other.body.quotas.apiCalls).toMatchObject({ limit: 3, used: 1, remaining: 2 });

    clock.set('2026-12-01T00:00:00.000Z');
    const december = await callA('/api/usage');
    expect(december.status, december.text).toBe(200);
    expect(apiCallsState(december)).toBe('"apiCalls";r=2;t=2678400');
    expect(december.body.quotas.apiCalls).toEqual({
      limit: 3,
      used: 1,
      remaining: 2,
      resetAt: '2027-01-01T00:00:00.000Z',
    });
  });
});
