import { Gauge } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { startMetricsEndpoint } from '../../bin/support/metrics-flag.js';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import {
  createMetrics,
  createMetricsHandler,
  metricsResponse,
  serveMetrics,
} from '../../src/adapters/metrics/prometheus.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../../src/adapters/storage/memory.js';
import { createEngine, isFileconvError } from '../../src/index.js';
import { createFakeConverter } from '../../src/testing/index.js';
import { parseExposition, sampleValue } from './exposition.js';
import { afterTest, listen } from './listen.js';

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

function memoryEngine() {
  const engine = createEngine({
    converters: [createFakeConverter()],
    storage: createMemoryStorage(),
    jobs: createMemoryJobStore(),
    queue: createMemoryQueue(),
  });
  afterTest(() => engine.close());
  return engine;
}

describe('createMetricsHandler', () => {
  it('answers GET and HEAD /metrics, 405 for other methods, 404 elsewhere', async () => {
    const metrics = createMetrics({ collectDefault: false });
    metrics.httpRejected.inc({ code: 'RATE_LIMITED' });
    const url = await listen(createMetricsHandler(metrics));

    const got = await fetch(`${url}/metrics?debug=1`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe(PROMETHEUS_TEXT);
    const body = await got.text();
    expect(
      sampleValue(parseExposition(body), 'fileconv_http_rejected_requests_total', { code: 'RATE_LIMITED' }),
    ).toBe(1);

    const head = await fetch(`${url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(body));
    expect(await head.text()).toBe('');

    const post = await fetch(`${url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${url}/`)).status).toBe(404);
    expect((await fetch(`${url}/metrics/extra`)).status).toBe(404);
  });

  it('answers 500 naming the failure when a collector throws, and keeps serving', async () => {
    const metrics = createMetrics({ collectDefault: false });
    let broken = true;
    new Gauge({
      name: 'host_flaky',
      help: 'A host metric whose collect fails once.',
      registers: [metrics.registry],
      collect() {
        if (broken) throw new Error('sensor unplugged');
      },
    });
    const url = await listen(createMetricsHandler(metrics));
    const failed = await fetch(`${url}/metrics`);
    expect(failed.status).toBe(500);
    expect(await failed.text()).toContain('sensor unplugged');
    broken = false;
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
  });
});

describe('metricsResponse', () => {
  it('is a fetch Response with the registry content', async () => {
    const metrics = createMetrics({ collectDefault: false });
    metrics.uploadBytes.inc({ route: '/api/upload' }, 42);
    const response = await metricsResponse(metrics);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(PROMETHEUS_TEXT);
    expect(
      sampleValue(parseExposition(await response.text()), 'fileconv_upload_bytes_total', {
        route: '/api/upload',
      }),
    ).toBe(42);
  });
});

describe('serveMetrics', () => {
  it('serves on a port of its own, refuses a taken port, and closes with a scraper still connected', async () => {
    const metrics = createMetrics({ collectDefault: false });
    const served = await serveMetrics(metrics, { port: 0, host: '127.0.0.1' });
    let closed = false;
    afterTest(async () => {
      if (!closed) await served.close();
    });
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    // A keep-alive connection, as Prometheus keeps between scrapes.
    expect((await fetch(served.url)).status).toBe(200);

    const port = Number(new URL(served.url).port);
    const taken = await serveMetrics(metrics, { port, host: '127.0.0.1' }).catch((error: unknown) => error);
    expect(isFileconvError(taken, 'INVALID_REQUEST')).toBe(true);
    await expect(serveMetrics(metrics, { port: 70_000 })).rejects.toThrow(/"port"/);

    await served.close();
    closed = true;
    await expect(fetch(served.url)).rejects.toThrow();
  });
});

describe('startMetricsEndpoint (--metrics-port)', () => {
  it('does nothing without a port', async () => {
    const endpoint = await startMetricsEndpoint(memoryEngine(), undefined);
    expect(endpoint.url).toBeUndefined();
    endpoint.recordRequest({
      requestId: 'r',
      method: 'GET',
      route: '/api/health',
      url: '/api/health',
      ip: '127.0.0.1',
      status: 200,
      code: undefined,
      durationMs: 1,
      owner: 'ip:127.0.0.1',
      jobIds: [],
      uploadedBytes: 0,
    });
    await endpoint.close();
  });

  it('serves the engine and the requests it is fed, and stops on close', async () => {
    const engine = memoryEngine();
    const endpoint = await startMetricsEndpoint(engine, 0, '127.0.0.1');
    let closed = false;
    afterTest(async () => {
      if (!closed) await endpoint.close();
    });
    endpoint.recordRequest({
      requestId: 'r',
      method: 'POST',
      route: '/api/upload',
      url: '/api/upload',
      ip: '127.0.0.1',
      status: 200,
      code: undefined,
      durationMs: 3,
      owner: 'ip:127.0.0.1',
      jobIds: [],
      uploadedBytes: 1234,
    });
    const file = await engine.uploadFile({ owner: 'acct', fileName: 'a.txt', body: Buffer.from('hi\n') });
    await engine.createJob({ owner: 'acct', fileId: file.id, targetFormat: 'md' });

    const scraped = parseExposition(await (await fetch(endpoint.url!)).text());
    expect(sampleValue(scraped, 'fileconv_upload_bytes_total', { route: '/api/upload' })).toBe(1234);
    expect(sampleValue(scraped, 'fileconv_jobs_created_total', { converter: 'fake' })).toBe(1);
    expect(sampleValue(scraped, 'fileconv_queue_depth')).toBe(1);
    // The CLI's endpoint includes the process metrics the dashboard's memory panel reads.
    expect(scraped.types.has('process_resident_memory_bytes')).toBe(true);

    await endpoint.close();
    closed = true;
    await expect(fetch(endpoint.url!)).rejects.toThrow();
  });

  it('refuses a port that is not one', async () => {
    await expect(startMetricsEndpoint(memoryEngine(), 65_536)).rejects.toThrow(/--metrics-port/);
  });
});
