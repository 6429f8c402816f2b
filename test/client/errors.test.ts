/**
 * fileconv/client's failures against a real server: typed API errors, network errors, aborts,
 * and 429s, waited out or surfaced. The rate-limit tests move the router's clock (not the
 * engine's) so that the current one-minute window ends a few seconds from now.
 */

import { describe, expect, it, vi } from 'vitest';
import { createClient, FileconvApiError, isFileconvApiError } from '../../client/index.js';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { fixture, startServer } from '../http/harness.js';

/** Rejection of a promise, failing the test if it resolves. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('fileconv/client: typed errors', () => {
  it('404 NOT_FOUND, 400 INVALID_REQUEST, 422 CONTENT_MISMATCH', async () => {
    const server = await startServer();
    const client = createClient({ baseUrl: server.url });

    const missing = await failure(client.getJob('no-such-job'));
    expect(missing).toBeInstanceOf(FileconvApiError);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', status: 404 });

    const invalid = await failure(
      client.createJob({ fileKey: 'x', sourceFormat: 'png', targetFormat: 'webp', fileSize: -1 }),
    );
    expect(isFileconvApiError(invalid, 'INVALID_REQUEST')).toBe(true);
    expect((invalid as FileconvApiError).status).toBe(400);
    expect((invalid as FileconvApiError).details?.issues).toBeInstanceOf(Array);

    // JPEG bytes declared as PNG: the server detects the content.
    const jpg = await fixture('fixture.jpg');
    const grant = await client.getUploadUrl({
      fileName: 'photo.png',
      fileSize: jpg.length,
      contentType: 'image/png',
    });
    await client.uploadContent(grant, new Uint8Array(jpg));
    const mismatch = await failure(
      client.createJob({
        fileKey: grant.fileKey,
        sourceFormat: 'png',
        targetFormat: 'webp',
        fileSize: jpg.length,
      }),
    );
    expect(mismatch).toMatchObject({ name: 'FileconvApiError', code: 'CONTENT_MISMATCH', status: 422 });
    expect((mismatch as Error).message.length).toBeGreaterThan(0);
  });

  it('a batch on the Free plan: 403 PLAN_FEATURE_REQUIRED', async () => {
    const server = await startServer();
    const client = createClient({ baseUrl: server.url });
    const job = { fileKey: 'uploads/x', sourceFormat: 'png', targetFormat: 'webp', fileSize: 10 };
    const refused = await failure(client.createJobs([job, job]));
    expect(refused).toMatchObject({ code: 'PLAN_FEATURE_REQUIRED', status: 403 });
  });

  it('no server: NETWORK_ERROR with status 0', async () => {
    const server = await startServer();
    await server.stop();
    const client = createClient({ baseUrl: server.url });
    const error = await failure(client.health());
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', status: 0 });
  });
});

describe('fileconv/client: abort', () => {
  it('an aborted signal stops polling, and an upload mid-stream (releasing its source)', async () => {
    const server = await startServer({ start: false });
    const client = createClient({ baseUrl: server.url });
    const png = await fixture('fixture.png');
    const grant = await client.getUploadUrl({
      fileName: 'a.png',
      fileSize: png.length,
      contentType: 'image/png',
    });
    await client.uploadContent(grant, new Blob([png]));
    const { jobId } = await client.createJob({
      fileKey: grant.fileKey,
      sourceFormat: 'png',
      targetFormat: 'webp',
      fileSize: png.length,
    });

    const polling = new AbortController();
    const waiting = client.waitForJob(jobId, { signal: polling.signal, intervalMs: 20 });
    setTimeout(() => polling.abort(new Error('stop polling')), 100);
    expect(await failure(waiting)).toMatchObject({ message: 'stop polling' });

    // A stream that sends one chunk of a bigger file, then stalls.
    let canceled = false;
    const stalled = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new Uint8Array(png.subarray(0, 1000))),
      cancel: () => {
        canceled = true;
      },
    });
    const second = await client.getUploadUrl({
      fileName: 'b.png',
      fileSize: png.length,
      contentType: 'image/png',
    });
    const uploading = new AbortController();
    const upload = client.uploadContent(second, stalled, { signal: uploading.signal });
    setTimeout(() => uploading.abort(), 100);
    const aborted = await failure(upload);
    expect((aborted as Error).name).toBe('AbortError');
    await vi.waitFor(() => expect(canceled).toBe(true));
    // A client that left mid-upload is not a server fault: nothing reaches the host's onError
    // (the harness fails the test on any server error). Give the server a moment to notice.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.serverErrors).toEqual([]);

    const already = await failure(client.health({ signal: AbortSignal.abort() }));
    expect((already as Error).name).toBe('AbortError');
  });
});

/** A server whose rate-limit window (per IP, one minute) ends `secondsLeft` from now. */
async function windowEndingIn(secondsLeft: number) {
  const offset = ((((60 - secondsLeft) * 1000 - (Date.now() % 60_000)) % 60_000) + 60_000) % 60_000;
  const now = () => Date.now() + offset;
  const counters = createMemoryCounterStore({ now });
  const server = await startServer({ jobStore: 'memory', router: { counters, now } });
  const request = { fileName: 'a.png', fileSize: 100, contentType: 'image/png' };
  // Use up the 20 upload-class requests of the window.
  const burst = createClient({ baseUrl: server.url, retry: { maxRetries: 0 } });
  for (let n = 0; n < 20; n++) await burst.getUploadUrl(request);
  return { server, request };
}

describe('fileconv/client: 429 RATE_LIMITED', () => {
  it('is waited out for Retry-After, then the request succeeds', async () => {
    const { server, request } = await windowEndingIn(3);
    const answers: Array<{ status: number; retryAfter: string | null; at: number }> = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      answers.push({
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        at: Date.now(),
      });
      return response;
    };
    const client = createClient({ baseUrl: server.url, fetch: recording });
    const grant = await client.getUploadUrl(request);
    expect(grant.expiresIn).toBe(600);
    expect(answers.map((answer) => answer.status)).toEqual([429, 200]);
    const retryAfter = Number(answers[0]!.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(answers[1]!.at - answers[0]!.at).toBeGreaterThanOrEqual(retryAfter * 1000 - 50);
  });

  it('surfaces as RATE_LIMITED with retryAfterSeconds when retries are off or the wait is too long', async () => {
    const { server, request } = await windowEndingIn(50);
    const noRetries = createClient({ baseUrl: server.url, retry: { maxRetries: 0 } });
    const refused = await failure(noRetries.getUploadUrl(request));
    expect(refused).toBeInstanceOf(FileconvApiError);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    const seconds = (refused as FileconvApiError).retryAfterSeconds;
    expect(seconds).toBeGreaterThan(40);
    expect(seconds).toBeLessThanOrEqual(50);

    // Retries on, but Retry-After is longer than the client will block for: thrown at once.
    const impatient = createClient({ baseUrl: server.url, retry: { maxWaitMs: 5_000 } });
    const started = Date.now();
    expect(await failure(impatient.getUploadUrl(request))).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});
