/**
 * The metrics end to end: a real engine (fs storage, memory job store and queue, fake
 * converters, one of which always fails) instrumented, the HTTP service on node:http feeding
 * recordRequest, jobs run through Flow B, and /metrics scraped over a real port with
 * createMetricsHandler. Every assertion is on counts in the scraped text, never on timing.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../src/adapters/http/node.js';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import {
  createMetrics,
  createMetricsHandler,
  instrumentEngine,
} from '../../src/adapters/metrics/prometheus.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createFsStorage } from '../../src/adapters/storage/fs.js';
import { createEngine, type Engine } from '../../src/index.js';
import { createFakeConverter } from '../../src/testing/index.js';
import { fixture, tempDir } from '../helpers/temp.js';
import { type Exposition, parseExposition, sampleValue } from './exposition.js';
import { afterTest, listen } from './listen.js';

const SECRET = 'fileconv-metrics-test-signing-secret-0123456789';

async function startEngine(): Promise<Engine> {
  const dir = await tempDir('fileconv-metrics-');
  const engine = createEngine({
    converters: [
      createFakeConverter(),
      {
        // txt -> html always fails; it also reports engine processes, as a pool would.
        ...createFakeConverter({
          name: 'broken',
          edges: [{ from: 'txt', to: 'html', cost: 1 }],
          failWith: 'CORRUPT_INPUT',
        }),
        stats: () => ({ processes: 2, busy: 1, queued: 3, restarts: 4 }),
      },
    ],
    storage: createFsStorage({ dir: join(dir, 'files') }),
    jobs: createMemoryJobStore(),
    queue: createMemoryQueue(),
    tempDir: join(dir, 'tmp'),
  });
  afterTest(() => engine.close());
  await engine.start();
  return engine;
}

async function scrape(url: string): Promise<Exposition> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(await response.text());
}

describe('metrics of an engine and its HTTP service', () => {
  it('count Flow B jobs, their failures, conversion time, refusals, and the upload bytes of both flows', async () => {
    const engine = await startEngine();
    const metrics = createMetrics({ collectDefault: false });
    const uninstrument = instrumentEngine(metrics, engine);
    afterTest(async () => uninstrument());
    const api = await listen(
      createNodeHandler(engine, { signingSecret: SECRET, onRequest: metrics.recordRequest }),
    );
    const metricsUrl = await listen(createMetricsHandler(metrics));
    const text = await readFile(fixture('fixture.txt'));

    const before = await scrape(metricsUrl);

    const upload = async () => {
      const form = new FormData();
      form.append('file', new Blob([text], { type: 'text/plain' }), 'notes.txt');
      const response = await fetch(`${api}/api/upload`, { method: 'POST', body: form });
      expect(response.status).toBe(200);
      return (await response.json()) as { fileId: string; fileName: string; size: number };
    };
    const convert = (file: { fileId: string; fileName: string }, targetFormat: string) =>
      fetch(`${api}/api/convert`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fileId: file.fileId, fileName: file.fileName, targetFormat }),
      });

    const uploads = [await upload(), await upload(), await upload()];
    // Flow A: a grant, then the bytes PUT to the signed URL.
    const grant = await fetch(`${api}/api/files/get-upload-url`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'notes.txt', fileSize: text.length, contentType: 'text/plain' }),
    });
    const { uploadUrl } = (await grant.json()) as { uploadUrl: string };
    const put = await fetch(uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: text,
    });
    expect(put.status).toBe(200);
    expect((await convert(uploads[0]!, 'md')).status).toBe(200);
    expect((await convert(uploads[1]!, 'md')).status).toBe(200);
    // Flow B answers the failed conversion with its code (422 CORRUPT_INPUT).
    expect((await convert(uploads[2]!, 'html')).status).toBe(422);
    // A malformed request: refused before any job exists.
    const bad = await fetch(`${api}/api/convert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(bad.status).toBe(400);

    const after = await scrape(metricsUrl);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);

    expect(delta('fileconv_jobs_created_total', { converter: 'fake' })).toBe(2);
    expect(delta('fileconv_jobs_created_total', { converter: 'broken' })).toBe(1);
    expect(delta('fileconv_jobs_settled_total', { status: 'completed', converter: 'fake', code: '' })).toBe(
      2,
    );
    expect(
      delta('fileconv_jobs_settled_total', { status: 'failed', converter: 'broken', code: 'CORRUPT_INPUT' }),
    ).toBe(1);
    // Only completed jobs are timed: one observation per completed job of that converter and edge.
    const edge = { converter: 'fake', from: 'txt', to: 'md' };
    expect(delta('fileconv_conversion_duration_seconds_count', edge)).toBe(2);
    expect(sampleValue(after, 'fileconv_conversion_duration_seconds_bucket', { ...edge, le: '+Inf' })).toBe(
      2,
    );
    expect(
      delta('fileconv_conversion_duration_seconds_count', { converter: 'broken', from: 'txt', to: 'html' }),
    ).toBe(0);
    expect(delta('fileconv_queue_wait_seconds_count')).toBe(3);

    expect(delta('fileconv_http_rejected_requests_total', { code: 'INVALID_REQUEST' })).toBe(1);
    expect(delta('fileconv_http_rejected_requests_total', { code: 'CORRUPT_INPUT' })).toBe(1);
    expect(
      delta('fileconv_http_requests_total', {
        route: '/api/upload',
        method: 'POST',
        status: '200',
        code: '',
      }),
    ).toBe(3);
    expect(
      delta('fileconv_http_requests_total', {
        route: '/api/convert',
        method: 'POST',
        status: '400',
        code: 'INVALID_REQUEST',
      }),
    ).toBe(1);
    expect(
      delta('fileconv_http_request_duration_seconds_count', { route: '/api/convert', method: 'POST' }),
    ).toBe(4);
    expect(uploads.map((file) => file.size)).toEqual([text.length, text.length, text.length]);
    expect(delta('fileconv_upload_bytes_total', { route: '/api/upload' })).toBe(3 * text.length);
    expect(delta('fileconv_upload_bytes_total', { route: '/api/files/:fileId/content' })).toBe(text.length);

    // Read at scrape time: nothing is left queued or converting, and the converter's own stats.
    expect(sampleValue(after, 'fileconv_queue_depth')).toBe(0);
    expect(sampleValue(after, 'fileconv_jobs_processing')).toBe(0);
    expect(sampleValue(after, 'fileconv_converter_processes', { converter: 'broken' })).toBe(2);
    expect(sampleValue(after, 'fileconv_converter_busy_processes', { converter: 'broken' })).toBe(1);
    expect(sampleValue(after, 'fileconv_converter_queued_conversions', { converter: 'broken' })).toBe(3);
    expect(sampleValue(after, 'fileconv_converter_process_restarts_total', { converter: 'broken' })).toBe(4);
    expect(
      after.samples.some(
        (sample) => sample.labels.converter === 'fake' && sample.name.startsWith('fileconv_converter_'),
      ),
    ).toBe(false);
  });
});
