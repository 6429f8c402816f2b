/**
 * GET /api/jobs/{id}?wait=N, the long poll: the answer comes when the job settles (one request,
 * not a polling loop), or after N seconds with the job as it is; bad values are 400; another
 * client's job is 404 at once, without waiting.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { call, expectAlive, expectError, fixture, startServer, uploadA } from './harness.js';

async function queuedJob(server: Awaited<ReturnType<typeof startServer>>, client?: string) {
  const bytes = await fixture('fixture.png');
  const { fileKey } = await uploadA(server, bytes, 'a.png', 'image/png', client);
  const created = await call(server, 'POST', '/api/jobs/create', {
    json: { fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: bytes.length },
    ...(client ? { client } : {}),
  });
  expect(created.status, created.text).toBe(200);
  return created.body.jobId as string;
}

describe('GET /api/jobs/{id}?wait=N', () => {
  it('answers once the job completes: one request gives the result link', async () => {
    // No worker yet: the job stays queued until the test plays the worker.
    const server = await startServer({ start: false });
    const jobId = await queuedJob(server);
    const waiting = call(server, 'GET', `/api/jobs/${jobId}?wait=30`);
    // The request is held, not answered with "queued": the worker starts only after it is sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.engine.start();
    const answer = await waiting;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.status).toBe('completed');
    const result = await fetch(answer.body.downloadUrl);
    expect(result.status).toBe(200);
    const meta = await sharp(Buffer.from(await result.arrayBuffer())).metadata();
    expect(meta.format).toBe('webp');
  });

  it('answers with the job as it is when the wait runs out', async () => {
    const server = await startServer({ start: false });
    const jobId = await queuedJob(server);
    const answer = await call(server, 'GET', `/api/jobs/${jobId}?wait=1`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.status).toBe('queued');
    expect(answer.body.downloadUrl).toBeNull();
  });

  it('a settled job is answered at once, as without wait', async () => {
    const server = await startServer();
    const jobId = await queuedJob(server);
    const first = await call(server, 'GET', `/api/jobs/${jobId}?wait=60`);
    expect(first.body.status).toBe('completed');
    const again = await call(server, 'GET', `/api/jobs/${jobId}?wait=60`);
    expect(again.body.status).toBe('completed');
  });

  it('refuses a wait that is not 0-60 whole seconds: 400 INVALID_REQUEST', async () => {
    const server = await startServer({ start: false });
    const jobId = await queuedJob(server);
    for (const wait of ['61', '-1', '1.5', 'soon', '1e9'])
      expectError(await call(server, 'GET', `/api/jobs/${jobId}?wait=${wait}`), 400, 'INVALID_REQUEST');
    const plain = await call(server, 'GET', `/api/jobs/${jobId}?wait=0`);
    expect(plain.body.status).toBe('queued');
  });

  it("another client's job is 404 at once, and a client that leaves mid-wait harms nothing", async () => {
    const server = await startServer({ start: false, clients: true });
    const jobId = await queuedJob(server, 'alice');
    expectError(await call(server, 'GET', `/api/jobs/${jobId}?wait=60`, { client: 'bob' }), 404, 'NOT_FOUND');
    const leaving = new AbortController();
    const held = fetch(`${server.url}/api/jobs/${jobId}?wait=60`, {
      headers: { 'x-test-client': 'alice' },
      signal: leaving.signal,
    }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 200));
    leaving.abort();
    expect(await held).toBeInstanceOf(Error);
    await server.engine.start();
    const done = await call(server, 'GET', `/api/jobs/${jobId}?wait=30`, { client: 'alice' });
    expect(done.body.status).toBe('completed');
    await expectAlive(server);
  });
});
