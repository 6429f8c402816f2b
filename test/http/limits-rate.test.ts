/**
 * Per-IP rate limits over a real port (DESIGN.md section 5, SERVICE-SPEC 8.1): 20 upload-class
 * requests and 60 others per fixed minute, counted per client IP. Other client IPs are real
 * sockets bound to loopback aliases (127.0.0.2, ...), and a hand-moved clock puts requests on
 * either side of a minute boundary without waiting. X-Forwarded-For is believed only from
 * proxies the host trusts.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import type { HttpRouterOptions } from '../../src/adapters/http/express.js';
import {
  type ApiResponse,
  type CallOptions,
  call,
  expectError,
  fixture,
  movableClock,
  startServer,
  type TestServer,
  uploadA,
} from './harness.js';

/** 2026-11-22T10:00:00.000Z: a minute boundary. */
const T0 = Date.parse('2026-11-22T10:00:00.000Z');
/** X-RateLimit-Reset of the minute starting at T0: its end, epoch seconds. */
const RESET_T0 = String(T0 / 1000 + 60);

async function limitedServer(router: Partial<Omit<HttpRouterOptions, 'authenticate'>> = {}) {
  const clock = movableClock(T0);
  // The store's own expiry must run on the same clock as the windows it counts.
  const counters = createMemoryCounterStore({ now: clock.now });
  const server = await startServer({ clock, jobStore: 'memory', router: { counters, ...router } });
  return { server, clock };
}

/** One upload-class request: an upload grant (it stores nothing but a pending record). */
function grantFrom(server: TestServer, options: CallOptions = {}): Promise<ApiResponse> {
  return call(server, 'POST', '/api/files/get-upload-url', {
    ...options,
    json: { fileName: 'a.png', fileSize: 100, contentType: 'image/png' },
  });
}

const ONE = { localAddress: '127.0.0.1' };
const TWO = { localAddress: '127.0.0.2' };

function limitHeaders(response: ApiResponse) {
  const get = (name: string) => response.headers.get(name);
  return {
    policy: get('ratelimit-policy'),
    state: get('ratelimit'),
    limit: get('x-ratelimit-limit'),
    remaining: get('x-ratelimit-remaining'),
    reset: get('x-ratelimit-reset'),
    retryAfter: get('retry-after'),
  };
}

describe('per-IP rate limits', () => {
  it('a burst of exactly 20 upload-class requests passes; the 21st is 429 with its headers; another IP passes', async () => {
    const { server, clock } = await limitedServer();
    clock.set(T0 + 10_000);
    for (let n = 1; n <= 20; n++) {
      const response = await grantFrom(server, ONE);
      expect(response.status, response.text).toBe(200);
      expect(limitHeaders(response)).toEqual({
        policy: '"upload";q=20;w=60',
        state: `"upload";r=${20 - n};t=50`,
        limit: '20',
        remaining: String(20 - n),
        reset: RESET_T0,
        retryAfter: null,
      });
    }
    clock.set(T0 + 15_200); // 44.8 s before the window ends: Retry-After rounds up to 45
    const refused = await grantFrom(server, ONE);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(limitHeaders(refused)).toEqual({
      policy: '"upload";q=20;w=60',
      state: '"upload";r=0;t=45',
      limit: '20',
      remaining: '0',
      reset: RESET_T0,
      retryAfter: '45',
    });
    expect(refused.body.error.details).toEqual({
      policy: 'upload',
      scope: 'ip',
      limit: 20,
      remaining: 0,
      resetAt: '2026-11-22T10:01:00.000Z',
      retryAfterSeconds: 45,
    });
    // Still refused on retry; another client IP has its own counter.
    expectError(await grantFrom(server, ONE), 429, 'RATE_LIMITED');
    const other = await grantFrom(server, TWO);
    expect(other.status, other.text).toBe(200);
    expect(limitHeaders(other).remaining).toBe('19');
    // The refused IP may still use the other class.
    const usage = await call(server, 'GET', '/api/usage', ONE);
    expect(usage.status).toBe(200);
    expect(limitHeaders(usage)).toMatchObject({ policy: '"default";q=60;w=60', remaining: '59' });
    // The next minute starts afresh.
    clock.set(T0 + 60_000);
    expect((await grantFrom(server, ONE)).status).toBe(200);
  });

  it('the 61st poll of a job in a minute is 429; the upload class is counted apart', async () => {
    const { server, clock } = await limitedServer();
    const from = { localAddress: '127.0.0.3' };
    const png = await fixture('fixture.png');
    const granted = await uploadA(server, png, 'p.png', 'image/png', from); // grant + PUT: 2 upload-class
    const created = await call(server, 'POST', '/api/jobs/create', {
      ...from,
      json: { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: png.length },
    });
    expect(created.status, created.text).toBe(200);
    expect(limitHeaders(created).state).toContain('"upload";r=17;t=60');
    const path = `/api/jobs/${created.body.jobId}`;
    clock.set(T0 + 30_000);
    for (let n = 1; n <= 60; n++) {
      const poll = await call(server, 'GET', path, from);
      expect(poll.status, `poll ${n}: ${poll.text}`).toBe(200);
      expect(limitHeaders(poll)).toMatchObject({
        policy: '"default";q=60;w=60',
        state: `"default";r=${60 - n};t=30`,
      });
    }
    const refused = await call(server, 'GET', path, from);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.body.error.details.policy).toBe('default');
    expect(limitHeaders(refused)).toMatchObject({ limit: '60', remaining: '0', retryAfter: '30' });
    // Upload-class requests from the same IP still pass: 3 of 20 were used.
    const upload = await grantFrom(server, from);
    expect(upload.status, upload.text).toBe(200);
    expect(limitHeaders(upload)).toMatchObject({ policy: '"upload";q=20;w=60', remaining: '16' });
    clock.set(T0 + 60_000);
    expect((await call(server, 'GET', path, from)).status).toBe(200);
  });

  it('requests at 59.999 s and 60.000 s land in different windows', async () => {
    const { server, clock } = await limitedServer();
    clock.set(T0 + 59_999);
    for (let n = 1; n <= 20; n++) expect((await grantFrom(server, ONE)).status).toBe(200);
    const late = await grantFrom(server, ONE);
    expectError(late, 429, 'RATE_LIMITED');
    // One millisecond left, and Retry-After is never 0 on a refusal.
    expect(limitHeaders(late)).toMatchObject({ state: '"upload";r=0;t=1', retryAfter: '1', reset: RESET_T0 });
    clock.set(T0 + 60_000);
    for (let n = 1; n <= 20; n++) {
      const response = await grantFrom(server, ONE);
      expect(response.status, `request ${n} of the new minute`).toBe(200);
      if (n === 1) {
        expect(limitHeaders(response)).toMatchObject({
          state: '"upload";r=19;t=60',
          reset: String(T0 / 1000 + 120),
        });
      }
    }
    const refused = await grantFrom(server, ONE);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(limitHeaders(refused).retryAfter).toBe('60');
  });
});

describe('rate-limit classes', () => {
  it('another spelling the router serves (case, a trailing slash) is still an upload-class request', async () => {
    const { server } = await limitedServer();
    const json = { fileName: 'a.png', fileSize: 100, contentType: 'image/png' };
    const spellings = [
      '/api/files/get-upload-url/',
      '/API/Files/Get-Upload-URL',
      '/api/files/get-upload-url?x=1',
    ];
    for (let n = 0; n < 20; n++) {
      const response = await call(server, 'POST', spellings[n % spellings.length]!, { ...ONE, json });
      expect(response.status, response.text).toBe(200);
      expect(response.headers.get('ratelimit')).toBe(`"upload";r=${19 - n};t=60`);
    }
    expectError(await call(server, 'POST', spellings[1]!, { ...ONE, json }), 429, 'RATE_LIMITED');
  });
});

describe('the client IP and X-Forwarded-For', () => {
  const xff = (address: string) => ({ headers: { 'x-forwarded-for': address } });

  it('without trustProxy a spoofed X-Forwarded-For changes nothing: the 21st is refused anyway', async () => {
    const { server } = await limitedServer();
    for (let n = 1; n <= 20; n++) {
      const response = await grantFrom(server, { ...ONE, ...xff(`203.0.113.${n}`) });
      expect(response.status).toBe(200);
    }
    const refused = await grantFrom(server, { ...ONE, ...xff('198.51.100.77') });
    expectError(refused, 429, 'RATE_LIMITED');
    expectError(await grantFrom(server, { ...ONE, ...xff('127.0.0.2') }), 429, 'RATE_LIMITED');
  });

  it("with trustProxy 'loopback' the forwarded address is the client; a prepended spoof is not", async () => {
    const { server } = await limitedServer({ trustProxy: 'loopback' });
    const client = '203.0.113.9';
    for (let n = 1; n <= 20; n++) {
      expect((await grantFrom(server, { ...ONE, ...xff(client) })).status).toBe(200);
    }
    expectError(await grantFrom(server, { ...ONE, ...xff(client) }), 429, 'RATE_LIMITED');
    // A client of the proxy that sends its own X-Forwarded-For gets it prepended: the proxy's
    // entry (the rightmost untrusted one) still names the real client.
    const spoof = await grantFrom(server, { ...ONE, ...xff(`198.51.100.1, ${client}`) });
    expectError(spoof, 429, 'RATE_LIMITED');
    // Other forwarded clients, and the proxy itself without the header, have their own counters.
    expect((await grantFrom(server, { ...ONE, ...xff('203.0.113.10') })).status).toBe(200);
    expect((await grantFrom(server, ONE)).status).toBe(200);
  });

  it('trustProxy naming one proxy address ignores X-Forwarded-For from any other socket', async () => {
    const { server } = await limitedServer({ trustProxy: ['127.0.0.1'] });
    for (let n = 1; n <= 20; n++) {
      expect((await grantFrom(server, { ...TWO, ...xff(`203.0.113.${n}`) })).status).toBe(200);
    }
    expectError(await grantFrom(server, { ...TWO, ...xff('203.0.113.99') }), 429, 'RATE_LIMITED');
    // Through the trusted proxy the same forwarded address is believed.
    expect((await grantFrom(server, { ...ONE, ...xff('203.0.113.99') })).status).toBe(200);
  });
});
