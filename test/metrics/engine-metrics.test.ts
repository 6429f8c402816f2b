/**
 * instrumentEngine and createMetrics without HTTP: each process counts its own share of a job's
 * events (an API-only node created and canceled, a worker-only node started, completed and
 * failed), a scrape right after an event already shows it, the scrape-time gauges, and the
 * factory's option checks.
 */
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import { createMetrics, instrumentEngine, type Metrics } from '../../src/adapters/metrics/prometheus.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createFsStorage } from '../../src/adapters/storage/fs.js';
import { createEngine, type Engine, type EngineOptions, isFileconvError } from '../../src/index.js';
import { createFakeConverter } from '../../src/testing/index.js';
import { tempDir } from '../helpers/temp.js';
import { type Exposition, parseExposition, sampleValue } from './exposition.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scrape(metrics: Metrics): Promise<Exposition> {
  return parseExposition(await metrics.registry.metrics());
}

/** Engine options over ports that several engines may share, as the processes of a deployment share Redis and S3. */
async function sharedPorts(): Promise<EngineOptions> {
  const dir = await tempDir('fileconv-metrics-');
  return {
    converters: [createFakeConverter()],
    storage: createFsStorage({ dir: join(dir, 'files') }),
    jobs: createMemoryJobStore(),
    queue: createMemoryQueue(),
    tempDir: join(dir, 'tmp'),
  };
}

function engineOn(ports: EngineOptions): Engine {
  const engine = createEngine(ports);
  cleanups.push(() => engine.close());
  return engine;
}

function instrumented(engine: Engine): Metrics {
  const metrics = createMetrics({ collectDefault: false });
  const stop = instrumentEngine(metrics, engine);
  cleanups.push(async () => stop());
  return metrics;
}

async function uploadText(engine: Engine): Promise<string> {
  const file = await engine.uploadFile({
    owner: 'acct',
    fileName: 'notes.txt',
    body: Buffer.from('hello\n'),
  });
  return file.id;
}

describe('instrumentEngine', () => {
  it('counts in an API-only and a worker-only process exactly what each of them sees', async () => {
    const ports = await sharedPorts();
    const apiEngine = engineOn(ports);
    const workerEngine = engineOn(ports);
    const api = instrumented(apiEngine);
    const worker = instrumented(workerEngine);

    // Canceled on the API node before any worker runs.
    const canceled = await apiEngine.createJob({
      owner: 'acct',
      fileId: await uploadText(apiEngine),
      targetFormat: 'md',
    });
    await apiEngine.cancelJob(canceled.id);
    await workerEngine.start();
    const jobs = [
      await apiEngine.createJob({ owner: 'acct', fileId: await uploadText(apiEngine), targetFormat: 'md' }),
      await apiEngine.createJob({ owner: 'acct', fileId: await uploadText(apiEngine), targetFormat: 'md' }),
    ];
    for (const job of jobs) expect((await workerEngine.waitForJob(job.id)).status).toBe('completed');

    const onApi = await scrape(api);
    expect(sampleValue(onApi, 'fileconv_jobs_created_total', { converter: 'fake' })).toBe(3);
    expect(
      sampleValue(onApi, 'fileconv_jobs_settled_total', {
        status: 'canceled',
        converter: 'fake',
        code: 'CANCELED',
      }),
    ).toBe(1);
    expect(
      sampleValue(onApi, 'fileconv_jobs_settled_total', { status: 'completed', converter: 'fake', code: '' }),
    ).toBe(0);
    expect(sampleValue(onApi, 'fileconv_queue_wait_seconds_count')).toBe(0);

    const onWorker = await scrape(worker);
    expect(sampleValue(onWorker, 'fileconv_jobs_created_total', { converter: 'fake' })).toBe(0);
    expect(
      sampleValue(onWorker, 'fileconv_jobs_settled_total', {
        status: 'completed',
        converter: 'fake',
        code: '',
      }),
    ).toBe(2);
    expect(
      sampleValue(onWorker, 'fileconv_conversion_duration_seconds_count', {
        converter: 'fake',
        from: 'txt',
        to: 'md',
      }),
    ).toBe(2);
    expect(sampleValue(onWorker, 'fileconv_queue_wait_seconds_count')).toBe(2);
    // The shared queue is empty for both; only the worker ever converted anything.
    for (const exposition of [onApi, onWorker]) {
      expect(sampleValue(exposition, 'fileconv_queue_depth')).toBe(0);
      expect(sampleValue(exposition, 'fileconv_jobs_processing')).toBe(0);
    }
  });

  it('shows an event in a scrape made right after it, while its converter label is still being planned', async () => {
    const engine = engineOn(await sharedPorts());
    const metrics = instrumented(engine);
    await engine.createJob({ owner: 'acct', fileId: await uploadText(engine), targetFormat: 'md' });
    // No await between the event and the scrape: the label needs engine.plan, the scrape waits for it.
    const exposition = await scrape(metrics);
    expect(sampleValue(exposition, 'fileconv_jobs_created_total', { converter: 'fake' })).toBe(1);
    // Not started: the job waits in the queue.
    expect(sampleValue(exposition, 'fileconv_queue_depth')).toBe(1);
    expect(sampleValue(exposition, 'fileconv_jobs_processing')).toBe(0);
  });

  it('labels a chain of converters with every converter of it, in order', async () => {
    const ports = await sharedPorts();
    const engine = engineOn({
      ...ports,
      converters: [
        createFakeConverter({ name: 'first', edges: [{ from: 'txt', to: 'md', cost: 1 }] }),
        createFakeConverter({ name: 'second', edges: [{ from: 'md', to: 'html', cost: 1 }] }),
      ],
    });
    const metrics = instrumented(engine);
    await engine.start();
    const job = await engine.createJob({
      owner: 'acct',
      fileId: await uploadText(engine),
      targetFormat: 'html',
    });
    expect((await engine.waitForJob(job.id)).path).toEqual(['txt', 'md', 'html']);
    const exposition = await scrape(metrics);
    expect(
      sampleValue(exposition, 'fileconv_conversion_duration_seconds_count', {
        converter: 'first+second',
        from: 'txt',
        to: 'html',
      }),
    ).toBe(1);
  });

  it('stops counting once unsubscribed, and refuses to count one engine twice', async () => {
    const engine = engineOn(await sharedPorts());
    const metrics = createMetrics({ collectDefault: false });
    const stop = instrumentEngine(metrics, engine);
    expect(() => instrumentEngine(metrics, engine)).toThrow(/already instrumented/);
    stop();
    stop();
    await engine.createJob({ owner: 'acct', fileId: await uploadText(engine), targetFormat: 'md' });
    const exposition = await scrape(metrics);
    expect(sampleValue(exposition, 'fileconv_jobs_created_total', { converter: 'fake' })).toBe(0);
    // No engine left to read: the gauges have no value rather than a stale one.
    expect(exposition.samples.some((sample) => sample.name === 'fileconv_queue_depth')).toBe(false);
    expect(exposition.types.get('fileconv_queue_depth')).toBe('gauge');
    // Instrumenting it again after the stop is fine.
    cleanups.push(async () => instrumentEngine(metrics, engine)());
  });
});

describe('createMetrics', () => {
  const invalid = (make: () => unknown, option: string) => {
    try {
      make();
    } catch (error) {
      expect(isFileconvError(error, 'INVALID_OPTIONS')).toBe(true);
      expect((error as Error).message).toContain(`"${option}"`);
      return;
    }
    throw new Error(`expected createMetrics to refuse ${option}`);
  };

  it('checks its options and names the bad one', () => {
    invalid(() => createMetrics({ prefix: '9lives_' }), 'prefix');
    invalid(() => createMetrics({ collectDefault: 'yes' as unknown as boolean }), 'collectDefault');
    invalid(() => createMetrics({ registry: {} as Registry }), 'registry');
    const registry = new Registry();
    createMetrics({ registry, collectDefault: false });
    // The same names twice in one registry would collide.
    invalid(() => createMetrics({ registry, collectDefault: false }), 'registry');
  });

  it('prefixes every name, and adds the process metrics only once per registry', async () => {
    const registry = new Registry();
    createMetrics({ registry, prefix: 'conv_' });
    createMetrics({ registry, prefix: 'other_' });
    const exposition = parseExposition(await registry.metrics());
    expect(exposition.types.get('conv_jobs_settled_total')).toBe('counter');
    expect(exposition.types.get('other_conversion_duration_seconds')).toBe('histogram');
    expect(exposition.types.get('process_resident_memory_bytes')).toBe('gauge');
    expect([...exposition.types.keys()].some((name) => name.startsWith('fileconv_'))).toBe(false);
  });

  it('records requests through recordRequest, unbound, with unusual methods folded into "other"', async () => {
    const metrics = createMetrics({ collectDefault: false });
    const { recordRequest } = metrics;
    const event = {
      requestId: 'r1',
      method: 'BREW',
      route: null,
      url: '/api/jobs/x',
      ip: '127.0.0.1',
      status: 405,
      code: 'NOT_FOUND',
      durationMs: 2,
      owner: 'ip:127.0.0.1',
      jobIds: [],
      uploadedBytes: 0,
    };
    recordRequest(event);
    recordRequest({ ...event, method: 'GET', route: '/api/health', status: 200, code: undefined });
    recordRequest({ ...event, method: 'POST', route: '/api/upload', status: 499, code: undefined });
    // Shed for a full queue (maxQueuedJobs): a refusal though a 503; a backing service away is not.
    recordRequest({ ...event, method: 'POST', route: '/api/jobs/create', status: 503, code: 'OVERLOADED' });
    recordRequest({ ...event, method: 'POST', route: '/api/jobs/create', status: 503, code: 'UNAVAILABLE' });
    const exposition = await scrape(metrics);
    expect(
      sampleValue(exposition, 'fileconv_http_requests_total', {
        route: 'unmatched',
        method: 'other',
        status: '405',
        code: 'NOT_FOUND',
      }),
    ).toBe(1);
    expect(
      sampleValue(exposition, 'fileconv_http_requests_total', {
        route: '/api/health',
        method: 'GET',
        status: '200',
        code: '',
      }),
    ).toBe(1);
    // Only the refused requests are rejections; a client that left (499) was not refused.
    expect(sampleValue(exposition, 'fileconv_http_rejected_requests_total', { code: 'NOT_FOUND' })).toBe(1);
    expect(sampleValue(exposition, 'fileconv_http_rejected_requests_total', { code: 'OVERLOADED' })).toBe(1);
    expect(
      exposition.samples.filter((sample) => sample.name === 'fileconv_http_rejected_requests_total'),
    ).toHaveLength(2);
  });
});
