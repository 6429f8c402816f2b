/**
 * fileconv/client tied to the server: a real service (test/http/harness.ts: real port, real
 * engine, sharp and the PDF operations) driven through both flows by the client, and every JSON
 * answer the client receives parsed with the wire schema the API description names for that
 * operation (openapi-operations.ts), strictly: a missing or mistyped field fails, and so does a
 * field the schema does not know (the schemas are plain objects, which strip unknown keys, so the
 * parsed value must equal the body). Presigned multipart uploads are covered on s3rver.
 *
 * And at compile time (`tsc --noEmit` checks test files): the client's exported types, and what
 * its calls take and return, are the types inferred from the wire schemas, so a client type that
 * drifts from the server fails the type check.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type * as client from '../../client/index.js';
import { createClient, type FileconvClient } from '../../client/index.js';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createMemoryKeyStore } from '../../src/adapters/keys/memory.js';
import { createS3Storage } from '../../src/adapters/storage/s3.js';
import { createApiKey } from '../../src/core/policy/api-keys.js';
import { pdfOperations } from '../../src/operations/pdf/index.js';
import { OPERATIONS } from '../../src/service/openapi-operations.js';
import { SCHEMAS, type SchemaName } from '../../src/service/openapi-types.js';
import type * as wire from '../../src/service/wire/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  loadS3rver,
  S3RVER_CREDENTIALS,
  S3RVER_INSTALL,
  type S3rverHandle,
  startS3rver,
} from '../helpers/s3rver.js';
import { fixture, startServer, type TestServer } from '../http/harness.js';

/** One JSON answer as the client received it. */
interface Received {
  method: string;
  /** The path below the service's mount point. */
  path: string;
  status: number;
  body: unknown;
}

/**
 * A fetch for the client that keeps a copy of every JSON answer of the service (not of a
 * bucket's, nor of a binary download).
 */
function recordingFetch(server: TestServer, received: Received[]): typeof fetch {
  const base = new URL(server.url);
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : input);
    const isJson = response.headers.get('content-type')?.startsWith('application/json');
    if (url.origin === base.origin && url.pathname.startsWith(base.pathname) && isJson) {
      received.push({
        method: (init?.method ?? 'GET').toUpperCase(),
        path: url.pathname.slice(base.pathname.length),
        status: response.status,
        body: await response.clone().json(),
      });
    }
    return response;
  };
}

/** The schema the API description names for an answer: the operation's, or the error envelope. */
function schemaOf({ method, path, status }: Received): SchemaName {
  const candidates = OPERATIONS.filter(
    (operation) =>
      operation.method === method.toLowerCase() &&
      new RegExp(`^${operation.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
  );
  // A literal path beats a template (/api/jobs/batch, not /api/jobs/{jobId}).
  const operation = candidates.find((candidate) => candidate.path === path) ?? candidates[0];
  if (!operation) throw new Error(`${method} ${path}: no operation of the API description`);
  const content =
    status === (operation.ok.status ?? 200)
      ? operation.ok.content
      : operation.otherAnswers?.find((answer) => answer.status === status)?.content;
  if (!content && status >= 400) return 'Error';
  if (!content || !('schema' in content) || typeof content.schema !== 'string') {
    throw new Error(`${method} ${path} ${status}: the API description names no JSON schema`);
  }
  return content.schema;
}

/** Every answer parses with its wire schema and keeps every field; returns the schema names seen. */
function expectAnswersConform(received: readonly Received[]): SchemaName[] {
  expect(received.length).toBeGreaterThan(0);
  return received.map((answer) => {
    const name = schemaOf(answer);
    const where = `${answer.method} ${answer.path} ${answer.status} (${name})`;
    const parsed = SCHEMAS[name].safeParse(answer.body);
    expect(parsed.error?.issues ?? [], where).toEqual([]);
    expect(parsed.data, `${where}: fields the wire schema does not describe`).toEqual(answer.body);
    return name;
  });
}

/** The job answers among them. */
function jobAnswers(received: readonly Received[]): wire.JobView[] {
  return received.filter((answer) => schemaOf(answer) === 'Job').map((answer) => answer.body as wire.JobView);
}

async function serverWithKey() {
  const keys = createMemoryKeyStore();
  const server = await startServer({
    router: { counters: createMemoryCounterStore(), keys },
    engine: { operations: pdfOperations() },
  });
  // Pro: batches, and a rate that fast polling does not meet.
  const { key } = await createApiKey(keys, { accountId: 'acct-wire', plan: 'pro' });
  return { server, key };
}

describe('every answer the client receives is its wire schema, exactly', () => {
  it('Flow A: convertFile, webhook job, batch, cancel, a failed job, a document operation, refusals', async () => {
    const { server, key } = await serverWithKey();
    const received: Received[] = [];
    const api = createClient({ baseUrl: server.url, apiKey: key, fetch: recordingFetch(server, received) });
    const png = await fixture('fixture.png');
    const blob = new Blob([png], { type: 'image/png' });

    const converted = await api.convertFile(blob, {
      fileName: 'a.png',
      targetFormat: 'webp',
      pollIntervalMs: 20,
    });
    expect(converted.job.status).toBe('completed');
    await converted.stream.cancel();

    // Created with a webhookUrl: the job view carries how its delivery goes.
    const grant = await api.getUploadUrl({
      fileName: 'b.png',
      fileSize: png.length,
      contentType: 'image/png',
    });
    await api.uploadContent(grant, blob);
    const conversion = {
      fileKey: grant.fileKey,
      sourceFormat: 'png',
      targetFormat: 'jpg',
      fileSize: png.length,
    };
    const { jobId } = await api.createJob({
      ...conversion,
      webhookUrl: 'https://hooks.example.com/fileconv',
    });
    // Asked at once, the job is still queued or processing (a wait is held until it settles).
    await api.getJob(jobId);
    expect((await api.waitForJob(jobId, { intervalMs: 20 })).webhook).toMatchObject({ status: 'pending' });

    const { jobIds } = await api.createJobs([conversion, conversion]);
    for (const id of jobIds) await api.waitForJob(id, { intervalMs: 20 });
    // DELETE of a completed job deletes its result and answers the job.
    expect((await api.cancelJob(jobIds[0]!)).jobId).toBe(jobIds[0]);

    // A PNG cut short: created (its bytes say PNG), then the conversion fails.
    const cut = png.subarray(0, 200);
    const cutGrant = await api.getUploadUrl({
      fileName: 'c.png',
      fileSize: cut.length,
      contentType: 'image/png',
    });
    await api.uploadContent(cutGrant, new Uint8Array(cut));
    const failing = await api.createJob({ ...conversion, fileKey: cutGrant.fileKey, fileSize: cut.length });
    expect((await api.waitForJob(failing.jobId, { intervalMs: 20 })).status).toBe('failed');

    const pdf = await fixture('fixture.pdf');
    const merged = await api.runOperation(
      'merge',
      [
        { body: new Uint8Array(pdf), fileName: 'one.pdf' },
        { body: new Uint8Array(pdf), fileName: 'two.pdf' },
      ],
      { pollIntervalMs: 20 },
    );
    await merged.stream.cancel();

    // Refusals: 404, and a 400 with the validation issues in its details.
    await expect(api.getJob('no-such-job')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(api.createJob({ ...conversion, fileKey: '' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });

    const names = expectAnswersConform(received);
    expect(new Set(names)).toEqual(
      new Set(['UploadGrant', 'CreateJobResult', 'BatchResult', 'Job', 'Error']),
    );
    // The optional fields were there to check: a webhook, an operation's, a failure, a result.
    const jobs = jobAnswers(received);
    expect(jobs.some((job) => job.webhook !== undefined)).toBe(true);
    expect(jobs.some((job) => job.operation === 'merge' && job.inputFiles?.length === 2)).toBe(true);
    expect(jobs.some((job) => job.status === 'failed' && job.error !== null)).toBe(true);
    expect(jobs.some((job) => job.status === 'completed' && job.downloadUrl !== null)).toBe(true);
    expect(jobs.some((job) => job.status === 'queued' || job.status === 'processing')).toBe(true);
  });

  it('Flow B: upload, convert, download', async () => {
    const { server, key } = await serverWithKey();
    const received: Received[] = [];
    const api = createClient({ baseUrl: server.url, apiKey: key, fetch: recordingFetch(server, received) });
    const uploaded = await api.upload(new Blob([await fixture('fixture.png')], { type: 'image/png' }), {
      fileName: 'd.png',
    });
    const converted = await api.convert({
      fileId: uploaded.fileId,
      fileName: uploaded.fileName,
      targetFormat: 'webp',
    });
    const result = await api.download(converted.downloadId);
    await result.stream.cancel();
    await expect(api.download('no-such-download')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(new Set(expectAnswersConform(received))).toEqual(
      new Set(['UploadedFile', 'ConvertResult', 'Error']),
    );
  });

  it('the service endpoints, keyed and anonymous', async () => {
    const { server, key } = await serverWithKey();
    const received: Received[] = [];
    for (const apiKey of [key, undefined]) {
      const api = createClient({ baseUrl: server.url, apiKey, fetch: recordingFetch(server, received) });
      expect((await api.formats()).formats.length).toBeGreaterThan(0);
      expect((await api.operations()).operations.map((operation) => operation.name)).toContain('merge');
      await api.usage();
      await api.health();
    }
    const usages = received.filter((answer) => answer.path === '/api/usage');
    expect(usages.map((usage) => (usage.body as wire.UsageResponse).account)).toEqual(['acct-wire', null]);
    expect(new Set(expectAnswersConform(received))).toEqual(
      new Set(['Formats', 'Operations', 'Usage', 'Health']),
    );
  });
});

describeWithEngine(
  's3rver',
  (await loadS3rver()) !== null,
  S3RVER_INSTALL,
  'presigned multipart answers are their wire schemas, exactly',
  () => {
    let s3: S3rverHandle;
    beforeAll(async () => {
      s3 = await startS3rver();
    });
    afterAll(() => s3?.stop());

    it('uploadMultipart: the grant and the completed upload', async () => {
      const storage = createS3Storage({
        bucket: s3.bucket,
        endpoint: s3.endpoint,
        forcePathStyle: true,
        credentials: S3RVER_CREDENTIALS,
        prefix: `wire-${randomUUID()}/`,
      });
      const server = await startServer({ engine: { storage } });
      const received: Received[] = [];
      const api = createClient({ baseUrl: server.url, fetch: recordingFetch(server, received) });
      const bytes = new Uint8Array(4096).fill(7);
      const done = await api.uploadMultipart(bytes, {
        fileName: 'e.bin',
        contentType: 'application/octet-stream',
      });
      expect(done.size).toBe(bytes.length);
      expect(new Set(expectAnswersConform(received))).toEqual(new Set(['MultipartGrant', 'CompletedUpload']));
    });
  },
);

it('the checker maps answers to the schemas the API description names', () => {
  const at = (method: string, path: string, status = 200) => schemaOf({ method, path, status, body: null });
  expect(at('POST', '/api/jobs/batch')).toBe('BatchResult');
  expect(at('GET', '/api/jobs/abc')).toBe('Job');
  expect(at('DELETE', '/api/jobs/abc')).toBe('Job');
  expect(at('GET', '/api/ready', 503)).toBe('Readiness');
  expect(at('GET', '/api/jobs/abc', 404)).toBe('Error');
  expect(() => at('GET', '/api/nowhere')).toThrow(/no operation/);
  // A parse that strips a field the schema lacks is caught.
  const extra: Received = {
    method: 'POST',
    path: '/api/jobs/create',
    status: 200,
    body: { jobId: 'j', more: 1 },
  };
  expect(() => expectAnswersConform([extra])).toThrow(/fields the wire schema does not describe/);
});

type Infer<Name extends SchemaName> = z.infer<(typeof SCHEMAS)[Name]>;
type Input<Name extends SchemaName> = z.input<(typeof SCHEMAS)[Name]>;
type Answer<Call extends keyof FileconvClient> = Awaited<ReturnType<FileconvClient[Call]>>;

it("the client's types are the wire schemas' inferred types (checked by tsc --noEmit)", () => {
  // What it exports.
  expectTypeOf<client.ErrorEnvelope>().toEqualTypeOf<Infer<'Error'>>();
  expectTypeOf<client.ErrorCode>().toEqualTypeOf<Infer<'Error'>['error']['code']>();
  expectTypeOf<client.UploadGrant>().toEqualTypeOf<Infer<'UploadGrant'>>();
  // The client's grant is the server's plus what was asked for.
  expectTypeOf<Omit<client.ClientUploadGrant, 'contentType' | 'fileSize'>>().toEqualTypeOf<
    Infer<'UploadGrant'>
  >();
  expectTypeOf<client.MultipartGrant>().toEqualTypeOf<Infer<'MultipartGrant'>>();
  expectTypeOf<client.CompletedUpload>().toEqualTypeOf<Infer<'CompletedUpload'>>();
  expectTypeOf<client.CreateJobResult>().toEqualTypeOf<Infer<'CreateJobResult'>>();
  expectTypeOf<client.BatchResult>().toEqualTypeOf<Infer<'BatchResult'>>();
  expectTypeOf<client.JobView>().toEqualTypeOf<Infer<'Job'>>();
  expectTypeOf<client.JobStatus>().toEqualTypeOf<Infer<'Job'>['status']>();
  expectTypeOf<client.UploadedFile>().toEqualTypeOf<Infer<'UploadedFile'>>();
  expectTypeOf<client.ConversionResult>().toEqualTypeOf<Infer<'ConvertResult'>>();
  expectTypeOf<client.UsageResponse>().toEqualTypeOf<Infer<'Usage'>>();
  expectTypeOf<client.QuotaUsage>().toEqualTypeOf<Infer<'Usage'>['quotas']['conversions']>();
  expectTypeOf<client.FormatsResponse>().toEqualTypeOf<Infer<'Formats'>>();
  expectTypeOf<client.OperationsResponse>().toEqualTypeOf<Infer<'Operations'>>();
  expectTypeOf<client.HealthResponse>().toEqualTypeOf<Infer<'Health'>>();
  expectTypeOf<client.UploadUrlRequest>().toEqualTypeOf<Input<'UploadUrlRequest'>>();
  expectTypeOf<client.CompleteMultipartRequest>().toEqualTypeOf<Input<'CompleteMultipartRequest'>>();
  expectTypeOf<client.CreateJobRequest>().toEqualTypeOf<Input<'CreateJobRequest'>>();
  expectTypeOf<client.OperationJobRequest>().toEqualTypeOf<Input<'OperationJobRequest'>>();
  expectTypeOf<client.UrlJobRequest>().toEqualTypeOf<Input<'UrlJobRequest'>>();
  expectTypeOf<client.ConvertRequest>().toEqualTypeOf<Input<'ConvertRequest'>>();
  expectTypeOf<client.OperationConvertRequest>().toEqualTypeOf<Input<'OperationConvertRequest'>>();
  expectTypeOf<client.UrlConvertRequest>().toEqualTypeOf<Input<'UrlConvertRequest'>>();

  // What its calls send and answer.
  expectTypeOf<Parameters<FileconvClient['getUploadUrl']>[0]>().toEqualTypeOf<Input<'UploadUrlRequest'>>();
  expectTypeOf<Parameters<FileconvClient['startMultipartUpload']>[0]>().toEqualTypeOf<
    Input<'UploadUrlRequest'>
  >();
  expectTypeOf<Parameters<FileconvClient['createJob']>[0]>().toEqualTypeOf<Input<'JobRequest'>>();
  expectTypeOf<Parameters<FileconvClient['createJobs']>[0][number]>().toEqualTypeOf<Input<'JobRequest'>>();
  expectTypeOf<Parameters<FileconvClient['convert']>[0]>().toEqualTypeOf<
    Input<'ConvertOrOperationRequest'>
  >();
  expectTypeOf<Answer<'startMultipartUpload'>>().toEqualTypeOf<Infer<'MultipartGrant'>>();
  expectTypeOf<Answer<'completeMultipartUpload'>>().toEqualTypeOf<Infer<'CompletedUpload'>>();
  expectTypeOf<Answer<'uploadMultipart'>>().toEqualTypeOf<Infer<'CompletedUpload'>>();
  expectTypeOf<Answer<'createJob'>>().toEqualTypeOf<Infer<'CreateJobResult'>>();
  expectTypeOf<Answer<'createJobs'>>().toEqualTypeOf<Infer<'BatchResult'>>();
  expectTypeOf<Answer<'getJob'>>().toEqualTypeOf<Infer<'Job'>>();
  expectTypeOf<Answer<'waitForJob'>>().toEqualTypeOf<Infer<'Job'>>();
  expectTypeOf<Answer<'cancelJob'>>().toEqualTypeOf<Infer<'Job'>>();
  expectTypeOf<Answer<'upload'>>().toEqualTypeOf<Infer<'UploadedFile'>>();
  expectTypeOf<Answer<'convert'>>().toEqualTypeOf<Infer<'ConvertResult'>>();
  expectTypeOf<Answer<'formats'>>().toEqualTypeOf<Infer<'Formats'>>();
  expectTypeOf<Answer<'operations'>>().toEqualTypeOf<Infer<'Operations'>>();
  expectTypeOf<Answer<'usage'>>().toEqualTypeOf<Infer<'Usage'>>();
  expectTypeOf<Answer<'health'>>().toEqualTypeOf<Infer<'Health'>>();
  expectTypeOf<Answer<'convertFile'>['job']>().toEqualTypeOf<Infer<'Job'>>();
});
