/**
 * fileconv/telemetry with a real OpenTelemetry SDK (in-memory exporter, AsyncLocalStorage
 * context): a request span per answer, a `fileconv.job` span per job run with its outcome, and a
 * `fileconv.convert` span per step as its child; a failed job's spans carry its error code.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createNodeHandler } from '../src/adapters/http/node.js';
import { createFileconv, type Fileconv } from '../src/preset/index.js';
import { createFakeConverter } from '../src/testing/index.js';

const exporter = new InMemorySpanExporter();
let fileconv: Fileconv;
let server: Server;
let base: string;
let dataDir: string;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  // Its own dir for the whole file (helpers' tempDir() is removed after each test).
  dataDir = await mkdtemp(join(tmpdir(), 'fileconv-telemetry-'));
  fileconv = await createFileconv({
    dataDir,
    webhooks: false,
    converters: [
      createFakeConverter(),
      // txt -> html always fails, as a corrupt input would.
      createFakeConverter({
        name: 'broken',
        edges: [{ from: 'txt', to: 'html', cost: 1 }],
        failWith: 'CORRUPT_INPUT',
      }),
    ],
  });
  server = createServer(createNodeHandler(fileconv.engine, fileconv.http));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await fileconv?.close({ graceMs: 1000 });
  trace.disable();
  context.disable();
  await rm(dataDir, { recursive: true, force: true });
});

async function convert(text: string, targetFormat = 'md'): Promise<{ status: number; fileId: string }> {
  const form = new FormData();
  form.set('file', new Blob([text]), 'notes.txt');
  const uploaded = (await (await fetch(`${base}/api/upload`, { method: 'POST', body: form })).json()) as {
    fileId: string;
  };
  const converted = await fetch(`${base}/api/convert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fileId: uploaded.fileId, fileName: 'notes.txt', targetFormat }),
  });
  await converted.arrayBuffer();
  return { status: converted.status, fileId: uploaded.fileId };
}

function spansNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

it('traces a request, the job it created and the conversion step inside the job', async () => {
  exporter.reset();
  expect((await convert('plain notes\n')).status).toBe(200);

  const request = spansNamed('POST /api/convert')[0];
  expect(request?.attributes).toMatchObject({
    'http.route': '/api/convert',
    'http.response.status_code': 200,
  });
  const jobId = request?.attributes['fileconv.job.id'];
  expect(typeof jobId).toBe('string');

  const job = spansNamed('fileconv.job').find((span) => span.attributes['fileconv.job.id'] === jobId);
  expect(job?.attributes).toMatchObject({
    'fileconv.job.status': 'completed',
    'fileconv.job.edge': 'txt>md',
  });
  const step = spansNamed('fileconv.convert').find(
    (span) => span.parentSpanContext?.spanId === job?.spanContext().spanId,
  );
  expect(step?.attributes).toMatchObject({
    'fileconv.converter': 'fake',
    'fileconv.step.from': 'txt',
    'fileconv.step.to': 'md',
  });
  expect(step?.spanContext().traceId).toBe(job?.spanContext().traceId);
});

it('marks a failed job and its step with the error code', async () => {
  exporter.reset();
  const { status } = await convert('this one is broken\n', 'html');
  expect(status).toBe(422);
  const job = spansNamed('fileconv.job')[0];
  expect(job?.status.code).toBe(2); // SpanStatusCode.ERROR
  expect(job?.attributes['fileconv.error.code']).toBe('CORRUPT_INPUT');
  expect(spansNamed('fileconv.convert')[0]?.attributes['fileconv.error.code']).toBe('CORRUPT_INPUT');
  // The refused request is a client error: its span is not an error of the service.
  expect(spansNamed('POST /api/convert')[0]?.status.code).not.toBe(2);
});
