/**
 * Rate limits per plan over a real port (issue 18): a request with a key (or a host's sign-in)
 * is limited per account at its plan's rates and spends nothing of its IP's anonymous budget;
 * anonymous clients keep the specification's 20 and 60 a minute per IP; failed keys are limited
 * per IP on a counter of their own, so guessing is throttled although keys are now looked at
 * before any limit. A hand-held clock keeps every request in one minute.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createMemoryKeyStore } from '../../src/adapters/keys/memory.js';
import { createApiKey } from '../../src/core/policy/api-keys.js';
import { definePlans, type PlanTable } from '../../src/core/policy/plans.js';
import type { AuthRequest } from '../../src/service/access.js';
import {
  type ApiResponse,
  type CallOptions,
  call,
  expectError,
  fixture,
  grant,
  movableClock,
  pollJob,
  put,
  startServer,
  type TestServer,
} from './harness.js';

/** 10 s into a minute: every request of a test lands in the minute ending at 10:01:00. */
const START = '2026-11-22T10:00:10.000Z';
const RESET = '2026-11-22T10:01:00.000Z';

async function limitedServer(options: { plans?: PlanTable; signIn?: boolean } = {}) {
  const clock = movableClock(START);
  const counters = createMemoryCounterStore({ now: clock.now });
  const keys = createMemoryKeyStore();
  const server = await startServer({
    clock,
    jobStore: 'memory',
    router: {
      counters,
      keys,
      ...(options.plans ? { plans: options.plans } : {}),
      // A host's own sign-in: the x-user header names a Pro account.
      ...(options.signIn
        ? {
            authenticate: (request: AuthRequest) => {
              const user = request.header('x-user');
              return user ? { accountId: `user-${user}`, plan: 'pro' } : null;
            },
          }
        : {}),
    },
  });
  return { server, keys, plans: options.plans };
}

/** One upload-class request: an upload grant (it stores nothing but a pending record). */
function grantFrom(server: TestServer, options: CallOptions): Promise<ApiResponse> {
  return call(server, 'POST', '/api/files/get-upload-url', {
    ...options,
    json: { fileName: 'a.png', fileSize: 100, contentType: 'image/png' },
  });
}

/** The RateLimit-Policy and RateLimit members of one policy ('"upload";q=20;w=60'). */
function member(response: ApiResponse, header: 'ratelimit-policy' | 'ratelimit', policy: string) {
  return response.headers
    .get(header)
    ?.split(', ')
    .find((entry) => entry.startsWith(`"${policy}";`));
}

const HERE = '127.0.0.1';
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** `key` with one character of its secret changed: well-formed, unknown. */
function almost(key: string, at: number): string {
  return key.slice(0, at) + (key[at] === 'a' ? 'b' : 'a') + key.slice(at + 1);
}

describe('rate limits per plan', () => {
  it('a Pro key makes 100 uploads in a minute from one IP; an anonymous client there is still refused on its 21st', async () => {
    const { server, keys } = await limitedServer();
    const { key } = await createApiKey(keys, { accountId: 'acct-pro', plan: 'pro' });
    const pro = { localAddress: HERE, headers: bearer(key) };
    const anonymous = { localAddress: HERE };

    // Anonymous traffic first, half of its budget, so both counters are live side by side.
    for (let n = 1; n <= 10; n++) expect((await grantFrom(server, anonymous)).status).toBe(200);
    for (let n = 1; n <= 100; n++) {
      const response = await grantFrom(server, pro);
      expect(response.status, `Pro upload ${n}: ${response.text}`).toBe(200);
      // The account's policy, at Pro's rate, and no per-IP policy at all.
      expect(member(response, 'ratelimit-policy', 'upload-account')).toBe('"upload-account";q=300;w=60');
      expect(member(response, 'ratelimit', 'upload-account')).toBe(`"upload-account";r=${300 - n};t=50`);
      expect(member(response, 'ratelimit-policy', 'upload')).toBeUndefined();
    }
    // The Pro key spent nothing of the IP's budget: exactly 10 more anonymous uploads pass...
    for (let n = 11; n <= 20; n++) {
      const response = await grantFrom(server, anonymous);
      expect(response.status, `anonymous upload ${n}`).toBe(200);
      // ...announced exactly as before plans had rates.
      expect(response.headers.get('ratelimit-policy')).toBe('"upload";q=20;w=60');
      expect(response.headers.get('ratelimit')).toBe(`"upload";r=${20 - n};t=50`);
    }
    // ...and the 21st is refused, per IP.
    const refused = await grantFrom(server, anonymous);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('ratelimit-policy')).toBe('"upload";q=20;w=60');
    expect(refused.body.error.details).toMatchObject({ policy: 'upload', scope: 'ip', limit: 20 });
    // The refused IP does not hold the Pro key back either.
    const after = await grantFrom(server, pro);
    expect(after.status, after.text).toBe(200);
    expect(member(after, 'ratelimit', 'upload-account')).toBe('"upload-account";r=199;t=50');
    // Another class is another budget: Pro's 1,200 a minute for the rest.
    const usage = await call(server, 'GET', '/api/usage', pro);
    expect(member(usage, 'ratelimit-policy', 'default-account')).toBe('"default-account";q=1200;w=60');
    expect(usage.body.rateLimits).toEqual([
      { name: 'upload-account', limit: 300, windowSeconds: 60, scope: 'account' },
      { name: 'default-account', limit: 1200, windowSeconds: 60, scope: 'account' },
    ]);
    expect(usage.body.plan).toMatchObject({ uploadRequestsPerMinute: 300, requestsPerMinute: 1200 });
  });

  it("an account's rate is the account's wherever it calls from; its 429 says policy and scope", async () => {
    const plans = definePlans({ plus: { uploadRequestsPerMinute: 3 } });
    const { server, keys } = await limitedServer({ plans });
    const a = await createApiKey(keys, { accountId: 'acct-a', plan: 'plus', plans });
    const a2 = await createApiKey(keys, { accountId: 'acct-a', plan: 'plus', plans });
    const b = await createApiKey(keys, { accountId: 'acct-b', plan: 'plus', plans });
    // Three addresses, one account (two of its keys): one budget of 3.
    expect((await grantFrom(server, { localAddress: '127.0.0.2', headers: bearer(a.key) })).status).toBe(200);
    expect((await grantFrom(server, { localAddress: '127.0.0.3', headers: bearer(a.key) })).status).toBe(200);
    expect((await grantFrom(server, { localAddress: '127.0.0.4', headers: bearer(a2.key) })).status).toBe(
      200,
    );
    const refused = await grantFrom(server, { localAddress: '127.0.0.5', headers: bearer(a.key) });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.body.error.details).toEqual({
      policy: 'upload-account',
      scope: 'account',
      limit: 3,
      remaining: 0,
      resetAt: RESET,
      retryAfterSeconds: 50,
    });
    expect(refused.body.error.message).toMatch(/your plan allows 3 requests per minute/);
    expect(member(refused, 'ratelimit', 'upload-account')).toBe('"upload-account";r=0;t=50');
    expect(refused.headers.get('retry-after')).toBe('50');
    // Another account, and anonymous callers at the same addresses, have their own budgets.
    expect((await grantFrom(server, { localAddress: '127.0.0.5', headers: bearer(b.key) })).status).toBe(200);
    expect((await grantFrom(server, { localAddress: '127.0.0.5' })).status).toBe(200);
  });

  it('a plan whose rate is null has no rate limit (and no policy for it in the headers)', async () => {
    const plans = definePlans({ enterprise: { uploadRequestsPerMinute: null } });
    const { server, keys } = await limitedServer({ plans });
    const { key } = await createApiKey(keys, { accountId: 'acct-e', plan: 'enterprise', plans });
    const response = await grantFrom(server, { localAddress: HERE, headers: bearer(key) });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('ratelimit-policy')).toBe('"apiCalls";q=100000;w=2592000');
    const usage = await call(server, 'GET', '/api/usage', { headers: bearer(key) });
    expect(usage.body.rateLimits).toEqual([
      { name: 'default-account', limit: 10_000, windowSeconds: 60, scope: 'account' },
    ]);
  });

  it("a host's sign-in is limited per account at its plan's rates too", async () => {
    const { server } = await limitedServer({ signIn: true });
    const signedIn = { localAddress: HERE, headers: { 'x-user': 'ann' } };
    for (let n = 1; n <= 25; n++) {
      const response = await grantFrom(server, signedIn);
      expect(response.status, `signed-in upload ${n}`).toBe(200);
      expect(member(response, 'ratelimit', 'upload-account')).toBe(`"upload-account";r=${300 - n};t=50`);
    }
    // The address's anonymous budget is whole.
    const anonymous = await grantFrom(server, { localAddress: HERE });
    expect(anonymous.headers.get('ratelimit')).toBe('"upload";r=19;t=50');
  });
});

describe('failed keys are throttled per IP', () => {
  it('a flood of wrong keys: 60 are 401, then 429 for any key, even the right one; anonymous use goes on', async () => {
    const { server, keys } = await limitedServer();
    const { key } = await createApiKey(keys, { accountId: 'acct-g', plan: 'pro' });
    const from = '127.0.0.6';
    for (let n = 1; n <= 60; n++) {
      // Upload-class and other requests alike: each failure spends the address's budget of 60.
      const guess = { localAddress: from, headers: bearer(almost(key, 10 + (n % 40))) };
      const response =
        n % 2 ? await grantFrom(server, guess) : await call(server, 'GET', '/api/usage', guess);
      expectError(response, 401, 'UNAUTHORIZED');
      expect(response.headers.get('ratelimit-policy')).toBe('"authfail";q=60;w=60');
      expect(response.headers.get('ratelimit')).toBe(`"authfail";r=${60 - n};t=50`);
    }
    const wrong = await call(server, 'GET', '/api/usage', {
      localAddress: from,
      headers: bearer(almost(key, 20)),
    });
    expectError(wrong, 429, 'RATE_LIMITED');
    expect(wrong.body.error.details).toMatchObject({ policy: 'authfail', scope: 'ip', limit: 60 });
    expect(wrong.headers.get('retry-after')).toBe('50');
    // The right key from the flooded address is refused too, before it is looked at: a 200
    // among the 429s would tell the guesser which guess was right.
    const right = await grantFrom(server, { localAddress: from, headers: bearer(key) });
    expectError(right, 429, 'RATE_LIMITED');
    expect(right.body.error.details).toMatchObject({ policy: 'authfail', scope: 'ip' });
    // Malformed headers count as failures as well.
    expectError(
      await call(server, 'GET', '/api/usage', {
        localAddress: from,
        headers: { authorization: 'Basic eA==' },
      }),
      429,
      'RATE_LIMITED',
    );
    // The key works from any other address, and the flooded address's anonymous requests (no
    // key: nothing to guess) still have their own budgets, untouched by the failures.
    expect((await grantFrom(server, { localAddress: '127.0.0.7', headers: bearer(key) })).status).toBe(200);
    const anonymous = await grantFrom(server, { localAddress: from });
    expect(anonymous.status, anonymous.text).toBe(200);
    expect(anonymous.headers.get('ratelimit')).toBe('"upload";r=19;t=50');
  });

  it('valid keys never spend the failures budget: 100 good requests, then 60 failures still allowed', async () => {
    const { server, keys } = await limitedServer();
    const { key } = await createApiKey(keys, { accountId: 'acct-v', plan: 'pro' });
    const from = '127.0.0.8';
    for (let n = 1; n <= 100; n++) {
      expect(
        (await call(server, 'GET', '/api/usage', { localAddress: from, headers: bearer(key) })).status,
      ).toBe(200);
    }
    for (let n = 1; n <= 60; n++) {
      const response = await call(server, 'GET', '/api/usage', {
        localAddress: from,
        headers: bearer(almost(key, 30)),
      });
      expect(response.status, `failure ${n}`).toBe(401);
    }
    expectError(
      await call(server, 'GET', '/api/usage', { localAddress: from, headers: bearer(key) }),
      429,
      'RATE_LIMITED',
    );
  });
});

describe('signed URLs (the local upload PUT and result GET)', () => {
  it("an account's upload URLs and result URLs spend no IP budget; a forged one does", async () => {
    const { server, keys } = await limitedServer();
    const { key } = await createApiKey(keys, { accountId: 'acct-flow-a', plan: 'pro' });
    const pro = { localAddress: HERE, headers: bearer(key) };
    const png = await fixture('fixture.png');
    // 30 grant + PUT pairs from one address: 30 upload-class requests of the account and 30
    // PUTs naming its files, where the IP would allow 20 upload-class requests in all.
    const grants = [];
    for (let n = 1; n <= 30; n++) {
      const granted = await grant(
        server,
        { fileName: `${n}.png`, fileSize: png.length, contentType: 'image/png' },
        pro,
      );
      const stored = await put(granted.uploadUrl, png, 'image/png', { localAddress: HERE });
      expect(stored.status, `PUT ${n}: ${stored.text}`).toBe(200);
      expect(stored.headers.get('ratelimit-policy')).toBeNull();
      grants.push(granted);
    }
    // One conversion, and its result fetched 70 times: more than the IP's 60 a minute.
    const created = await call(server, 'POST', '/api/jobs/create', {
      ...pro,
      json: { fileKey: grants[0]!.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: png.length },
    });
    expect(created.status, created.text).toBe(200);
    const job = await pollJob(server, created.body.jobId, pro);
    expect(job.status).toBe('completed');
    for (let n = 1; n <= 70; n++) {
      const download = await call(server, 'GET', job.downloadUrl, { localAddress: HERE });
      expect(download.status, `download ${n}`).toBe(200);
    }
    // The address's anonymous budgets are whole...
    const anonymous = await grantFrom(server, { localAddress: HERE });
    expect(anonymous.headers.get('ratelimit')).toBe('"upload";r=19;t=50');
    // ...until forged URLs spend them: a wrong signature is counted per IP, then refused.
    const forged = grants[1]!.uploadUrl.replace(
      /signature=[^&]+/,
      'signature=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    );
    for (let n = 1; n <= 19; n++) {
      const response = await put(forged, png, 'image/png', { localAddress: HERE });
      expectError(response, 403, 'SIGNATURE_INVALID');
      expect(response.headers.get('ratelimit')).toBe(`"upload";r=${19 - n};t=50`);
    }
    const refused = await put(forged, png, 'image/png', { localAddress: HERE });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.body.error.details).toMatchObject({ policy: 'upload', scope: 'ip' });
    // The account's own uploads are still not held back by the refused address.
    const granted = await grant(
      server,
      { fileName: 'late.png', fileSize: png.length, contentType: 'image/png' },
      pro,
    );
    expect((await put(granted.uploadUrl, png, 'image/png', { localAddress: HERE })).status).toBe(200);
  });
});
