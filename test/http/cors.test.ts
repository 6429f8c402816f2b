/**
 * CORS through the node:http, Express and Fastify adapters (real ports) and the fetch handler
 * (called directly):
 * preflights answered before routing and access control (no rate limit spent), a plain OPTIONS
 * still routed, actual answers (errors and 429s included) carrying the allow and expose headers
 * for a listed origin, nothing for an origin not listed, '*' with and without credentials, and
 * options refused at creation naming the field.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createHttpRouter } from '../../src/adapters/http/express.js';
import { createFastifyPlugin, fileconvFrameworkErrors } from '../../src/adapters/http/fastify.js';
import { createFetchHandler } from '../../src/adapters/http/fetch.js';
import { createNodeHandler } from '../../src/adapters/http/node.js';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../../src/adapters/storage/memory.js';
import { createEngine, type Engine } from '../../src/index.js';
import type { CorsOptions } from '../../src/service/cors.js';
import type { HttpServiceOptions } from '../../src/service/service.js';

const SECRET = 'fileconv-cors-test-signing-secret-0123456789';
const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.net';
const LISTED: CorsOptions = { origins: [APP, 'http://localhost:5173'], maxAgeSeconds: 120 };

let engine: Engine;
/** Base URLs of the service through node:http, Express and Fastify, each on a port of its own. */
const urls: Record<string, string> = {};
const closers: (() => Promise<unknown>)[] = [];

async function listening(server: Server, name: string): Promise<void> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });
}

beforeAll(async () => {
  engine = createEngine({
    storage: createMemoryStorage(),
    jobs: createMemoryJobStore(),
    queue: createMemoryQueue(),
    converters: [],
    sweepIntervalMs: 0,
  });
  await engine.start();
  await listening(createServer(createNodeHandler(engine, serviceOptions(LISTED))), 'node');
  const app = express();
  app.use(createHttpRouter(engine, serviceOptions(LISTED)));
  await listening(createServer(app), 'express');
  const fastify = Fastify({ frameworkErrors: fileconvFrameworkErrors });
  fastify.register(createFastifyPlugin(engine, serviceOptions(LISTED)));
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  urls.fastify = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}`;
  closers.push(async () => {
    fastify.server.closeAllConnections();
    await fastify.close();
  });
});

afterAll(async () => {
  for (const close of closers) await close();
  await engine.close({ graceMs: 0 });
});

function client(name: string) {
  return (path: string, init?: RequestInit) => fetch(`${urls[name]}${path}`, init);
}

function serviceOptions(cors: CorsOptions | undefined): Omit<HttpServiceOptions, 'authenticate'> {
  return {
    signingSecret: SECRET,
    counters: createMemoryCounterStore(),
    onError: () => {},
    ...(cors ? { cors } : {}),
  };
}

/** A fetch handler of its own (own counters), called without a network. */
function fetchService(cors: CorsOptions | undefined) {
  const handler = createFetchHandler(engine, serviceOptions(cors));
  return (path: string, init: RequestInit = {}) =>
    handler(new Request(`http://service.test${path}`, init), { remoteAddress: '203.0.113.9' });
}

function preflight(origin: string, method = 'PATCH'): RequestInit {
  return {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, idempotency-key, tus-resumable',
    },
  };
}

function headerList(response: Response, name: string): string[] {
  return (response.headers.get(name) ?? '').split(',').map((item) => item.trim().toLowerCase());
}

function expectAllowed(response: Response, origin: string): void {
  expect(response.headers.get('access-control-allow-origin')).toBe(origin);
  expect(headerList(response, 'vary')).toContain('origin');
  const exposed = headerList(response, 'access-control-expose-headers');
  for (const name of [
    'ratelimit',
    'retry-after',
    'x-request-id',
    'location',
    'upload-offset',
    'tus-resumable',
  ]) {
    expect(exposed, name).toContain(name);
  }
}

function expectNoCors(response: Response): void {
  for (const [name] of response.headers) expect(name).not.toMatch(/^access-control-/);
}

describe.each([
  ['node', () => client('node')],
  ['express', () => client('express')],
  ['fastify', () => client('fastify')],
  ['fetch', () => fetchService(LISTED)],
] as const)('CORS through the %s adapter', (_adapter, makeClient) => {
  it('answers a preflight from a listed origin with 204 and the allow headers, for any path of the service', async () => {
    const client = makeClient();
    for (const path of ['/api/jobs/some-job', '/api/upload', '/api/formats']) {
      const answer = await client(path, preflight(APP));
      expect(answer.status, path).toBe(204);
      expect(answer.headers.get('access-control-allow-origin')).toBe(APP);
      expect(headerList(answer, 'access-control-allow-methods')).toEqual(
        expect.arrayContaining(['get', 'head', 'post', 'put', 'patch', 'delete', 'options']),
      );
      expect(headerList(answer, 'access-control-allow-headers')).toEqual(
        expect.arrayContaining([
          'authorization',
          'content-type',
          'idempotency-key',
          'tus-resumable',
          'upload-offset',
        ]),
      );
      expect(answer.headers.get('access-control-max-age')).toBe('120');
      expect(headerList(answer, 'vary')).toContain('origin');
      expect(answer.headers.get('ratelimit')).toBeNull();
      expect(await answer.text()).toBe('');
    }
  });

  it('gives an actual request and its errors the allow and expose headers for a listed origin', async () => {
    const client = makeClient();
    const formats = await client('/api/formats', { headers: { origin: APP } });
    expect(formats.status).toBe(200);
    expectAllowed(formats, APP);
    expect(formats.headers.get('ratelimit')).not.toBeNull();

    const missing = await client('/api/jobs/no-such-job', { headers: { origin: 'http://localhost:5173' } });
    expect(missing.status).toBe(404);
    expectAllowed(missing, 'http://localhost:5173');
  });

  it('sends an origin not listed no CORS headers: its preflight is a bare 204, its answers carry only Vary', async () => {
    const client = makeClient();
    const answer = await client('/api/upload', preflight(OTHER));
    expect(answer.status).toBe(204);
    expectNoCors(answer);
    const formats = await client('/api/formats', { headers: { origin: OTHER } });
    expect(formats.status).toBe(200);
    expectNoCors(formats);
    expect(headerList(formats, 'vary')).toContain('origin');
  });

  it('routes a plain OPTIONS (no Access-Control-Request-Method): the routes answer it, with CORS headers', async () => {
    const client = makeClient();
    const answer = await client('/api/jobs/some-job', { method: 'OPTIONS', headers: { origin: APP } });
    // No route here takes OPTIONS: the router's answer, naming the methods the path has.
    expect(answer.status).toBe(404);
    expect(answer.headers.get('allow')).toMatch(/GET/);
    expectAllowed(answer, APP);
  });
});

describe('CORS through the fetch handler', () => {
  it('spends no rate limit on preflights; the 429 that ends the window carries the CORS headers', async () => {
    const client = fetchService(LISTED);
    for (let sent = 0; sent < 70; sent++)
      expect((await client('/api/formats', preflight(APP))).status).toBe(204);
    // 60 a minute for GET /api/formats: all 60 pass although 70 preflights came first.
    for (let sent = 1; sent <= 60; sent++) {
      const answer = await client('/api/formats', { headers: { origin: APP } });
      expect(answer.status, `request ${sent}`).toBe(200);
      await answer.arrayBuffer();
    }
    const limited = await client('/api/formats', { headers: { origin: APP } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).not.toBeNull();
    expectAllowed(limited, APP);
  });

  it("'*' allows every origin with '*'; with credentials it echoes the origin and allows credentials", async () => {
    const open = fetchService({ origins: '*' });
    const anyOrigin = await open('/api/formats', { headers: { origin: OTHER } });
    expect(anyOrigin.headers.get('access-control-allow-origin')).toBe('*');
    expect(anyOrigin.headers.get('access-control-allow-credentials')).toBeNull();
    expect(headerList(anyOrigin, 'vary')).not.toContain('origin');

    const withCredentials = fetchService({ origins: '*', credentials: true });
    const echoed = await withCredentials('/api/upload', preflight(OTHER, 'POST'));
    expect(echoed.status).toBe(204);
    expect(echoed.headers.get('access-control-allow-origin')).toBe(OTHER);
    expect(echoed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(echoed.headers.get('access-control-max-age')).toBe('600');
    expect(headerList(echoed, 'vary')).toContain('origin');
  });

  it('without cors: no CORS headers, and an OPTIONS preflight is routed like any request', async () => {
    const client = fetchService(undefined);
    const answer = await client('/api/jobs/some-job', preflight(APP));
    expect(answer.status).toBe(404);
    expectNoCors(answer);
    expectNoCors(await client('/api/formats', { headers: { origin: APP } }));
  });

  it('leaves a preflight to a path the service does not own to the host', async () => {
    const client = fetchService(LISTED);
    const answer = await client('/somewhere/else', preflight(APP));
    expect(answer.status).toBe(404);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses unusable options at creation, naming the field', () => {
    expect(() => fetchService({ origins: ['https://app.example.com/path'] })).toThrow(/cors\.origins/);
    expect(() => fetchService({ origins: ['app.example.com'] })).toThrow(/cors\.origins/);
    expect(() => fetchService({ origins: 'everyone' as '*' })).toThrow(/cors\.origins/);
    expect(() => fetchService({ origins: [APP], maxAgeSeconds: -1 })).toThrow(/cors\.maxAgeSeconds/);
  });
});
