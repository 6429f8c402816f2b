/**
 * The response schemas of the API description (src/service/wire/answers.ts) against real
 * answers of a running server: every answer must parse, and parsing must keep every field (the
 * schemas are plain objects, which strip unknown keys), so a field added to views.ts or a view
 * without its schema fails here. The same zod schemas become the document's JSON Schemas.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createMemoryKeyStore } from '../../src/adapters/keys/memory.js';
import { createApiKey } from '../../src/core/policy/api-keys.js';
import {
  batchResponse,
  convertResponse,
  createJobResponse,
  errorResponse,
  formatsResponse,
  healthResponse,
  jobResponse,
  uploadedFileResponse,
  uploadGrantResponse,
  usageResponse,
} from '../../src/service/wire/answers.js';
import { type ApiResponse, call, fixture, pollJob, put, startServer, uploadB } from './harness.js';

/** The body conforms, and the schema knows all of it: nothing is stripped as unknown. */
function expectConforms(schema: z.ZodType, response: ApiResponse, status = 200): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const parsed = schema.safeParse(response.body);
  expect(parsed.error?.issues ?? [], response.text).toEqual([]);
  expect(parsed.data, 'fields the response schema does not describe').toEqual(response.body);
}

async function limitedServer() {
  const keys = createMemoryKeyStore();
  const server = await startServer({ router: { counters: createMemoryCounterStore(), keys } });
  const { key } = await createApiKey(keys, { accountId: 'acct-docs', plan: 'pro' });
  return { server, auth: { headers: { authorization: `Bearer ${key}` } } };
}

describe('response schemas match real responses', () => {
  it('Flow A: upload grant, job creation, job views while queued and once completed, cancel', async () => {
    const { server, auth } = await limitedServer();
    const png = await fixture('fixture.png');
    const grant = await call(server, 'POST', '/api/files/get-upload-url', {
      ...auth,
      json: { fileName: 'a.png', fileSize: png.length, contentType: 'image/png' },
    });
    expectConforms(uploadGrantResponse, grant);
    expect((await put(grant.body.uploadUrl, png, 'image/png')).status).toBe(200);

    const job = {
      fileKey: grant.body.fileKey,
      sourceFormat: 'png',
      targetFormat: 'webp',
      fileSize: png.length,
    };
    const created = await call(server, 'POST', '/api/jobs/create', { ...auth, json: job });
    expectConforms(createJobResponse, created);
    expectConforms(jobResponse, await call(server, 'GET', `/api/jobs/${created.body.jobId}`, auth));
    const done = await pollJob(server, created.body.jobId, auth);
    expect(done.status).toBe('completed');
    expectConforms(jobResponse, await call(server, 'GET', `/api/jobs/${created.body.jobId}`, auth));

    const batch = await call(server, 'POST', '/api/jobs/batch', { ...auth, json: { jobs: [job, job] } });
    expectConforms(batchResponse, batch);
    await pollJob(server, batch.body.jobIds[0], auth);
    // DELETE of a completed job deletes its result and answers the job view.
    expectConforms(jobResponse, await call(server, 'DELETE', `/api/jobs/${batch.body.jobIds[0]}`, auth));
  });

  it('a failed job carries its error in the view', async () => {
    const server = await startServer();
    // A PNG cut short: its bytes say PNG, so the job is created, and the conversion fails.
    const bytes = (await fixture('fixture.png')).subarray(0, 200);
    const grant = await call(server, 'POST', '/api/files/get-upload-url', {
      json: { fileName: 'b.png', fileSize: bytes.length, contentType: 'image/png' },
    });
    await put(grant.body.uploadUrl, bytes, 'image/png');
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: {
        fileKey: grant.body.fileKey,
        sourceFormat: 'png',
        targetFormat: 'webp',
        fileSize: bytes.length,
      },
    });
    expectConforms(createJobResponse, created);
    const failed = await pollJob(server, created.body.jobId);
    expect(failed.status).toBe('failed');
    expect(failed.error).not.toBeNull();
    expectConforms(jobResponse, await call(server, 'GET', `/api/jobs/${created.body.jobId}`));
  });

  it('Flow B: upload and convert', async () => {
    const server = await startServer();
    const uploaded = await uploadB(server, await fixture('fixture.png'), 'c.png');
    expectConforms(uploadedFileResponse, uploaded);
    const converted = await call(server, 'POST', '/api/convert', {
      json: { fileId: uploaded.body.fileId, fileName: 'c.png', targetFormat: 'jpg' },
    });
    expectConforms(convertResponse, converted);
  });

  it('the error envelope: 404, 400 with details, 401', async () => {
    const { server } = await limitedServer();
    expectConforms(errorResponse, await call(server, 'GET', '/api/jobs/no-such-job'), 404);
    const invalid = await call(server, 'POST', '/api/jobs/create', { json: { fileKey: 1 } });
    expectConforms(errorResponse, invalid, 400);
    expect(invalid.body.error.details.issues.length).toBeGreaterThan(0);
    const unauthorized = await call(server, 'GET', '/api/usage', {
      headers: { authorization: 'Bearer nope' },
    });
    expectConforms(errorResponse, unauthorized, 401);
  });

  it('formats, health, and usage (anonymous and keyed, with and without counters)', async () => {
    const { server, auth } = await limitedServer();
    expectConforms(formatsResponse, await call(server, 'GET', '/api/formats'));
    expectConforms(healthResponse, await call(server, 'GET', '/api/health'));
    expectConforms(usageResponse, await call(server, 'GET', '/api/usage'));
    const keyed = await call(server, 'GET', '/api/usage', auth);
    expectConforms(usageResponse, keyed);
    expect(keyed.body.quotas.apiCalls).toBeDefined();
    const uncounted = await startServer({ start: false });
    expectConforms(usageResponse, await call(uncounted, 'GET', '/api/usage'));
  });
});
