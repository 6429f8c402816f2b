/**
 * The plan's file size limit over a real port (SERVICE-SPEC 8.2: Free 25 MB, Plus 100 MB, Pro
 * 2 GB; MB = 2^20 bytes): a 26 MB Free upload is 413 FILE_TOO_LARGE in both flows (Flow A on
 * the declared fileSize, Flow B on the declared length and while streaming) and nothing is kept;
 * a Plus key lifts the limit. A PUT that sends more or fewer bytes than the grant declared is
 * 409 SIZE_MISMATCH and keeps nothing.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createMemoryKeyStore } from '../../src/adapters/keys/memory.js';
import { createApiKey } from '../../src/core/policy/api-keys.js';
import { MB } from '../../src/core/policy/plans.js';
import {
  call,
  expectAlive,
  expectError,
  grant,
  movableClock,
  put,
  rawRequest,
  startServer,
  type TestServer,
  uploadB,
  zeros,
} from './harness.js';

const BOUNDARY = 'limits-size-boundary-41c9';

async function sizedServer() {
  const clock = movableClock('2026-11-22T12:00:00.000Z');
  const counters = createMemoryCounterStore({ now: clock.now });
  const keys = createMemoryKeyStore();
  const server = await startServer({ clock, router: { counters, keys } });
  const plus = await createApiKey(keys, { accountId: 'acct-plus', plan: 'plus' });
  const pro = await createApiKey(keys, { accountId: 'acct-pro', plan: 'pro' });
  return {
    server,
    plus: { headers: { authorization: `Bearer ${plus.key}` } },
    pro: { headers: { authorization: `Bearer ${pro.key}` } },
  };
}

/** A multipart body streamed chunk by chunk (sent chunked: no Content-Length to refuse it by). */
function* streamedMultipart(total: number): Generator<Buffer> {
  yield Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  yield* zeros(total);
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

/** No stored object (not even a temp file), no file record beyond `records`, and the server answers. */
async function expectNothingKept(server: TestServer, records: string[] = []): Promise<void> {
  // A refused stream may still be unwinding when the answer arrives.
  await expect.poll(() => server.storedFiles()).toEqual([]);
  expect(await server.fileRecords()).toEqual(records);
  await expectAlive(server);
}

describe('file size limits by plan', () => {
  it('a 26 MB Free upload is 413 FILE_TOO_LARGE in Flow A (declared) and Flow B (declared and streamed)', async () => {
    const { server } = await sizedServer();
    const request = { fileName: 'big.png', fileSize: 26 * MB, contentType: 'image/png' };
    const granted = await call(server, 'POST', '/api/files/get-upload-url', { json: request });
    expectError(granted, 413, 'FILE_TOO_LARGE');
    expect(granted.body.error.details).toEqual({ limit: 25 * MB, size: 26 * MB, plan: 'free' });
    // Exactly 25 MB is allowed (a grant stores a record, no bytes).
    const allowed = await grant(server, { ...request, fileSize: 25 * MB });
    expect(await server.fileRecords()).toEqual([allowed.fileId]);

    // Flow B with a Content-Length: refused from the header, before the body is read.
    const body = Buffer.concat([...streamedMultipart(26 * MB)]);
    const declared = await rawRequest(`${server.url}/api/upload`, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(body.length),
      },
      body: (function* () {
        for (let at = 0; at < body.length; at += 64 * 1024) yield body.subarray(at, at + 64 * 1024);
      })(),
    });
    expect([declared.status, declared.json?.error?.code]).toEqual([413, 'FILE_TOO_LARGE']);
    expect(declared.bytesSent).toBeLessThan(body.length);
    await expectNothingKept(server, [allowed.fileId]);

    // Flow B chunked: refused once the 25 MB + 1st byte arrives, the partial object deleted.
    const streamed = await rawRequest(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: streamedMultipart(26 * MB),
    });
    expect([streamed.status, streamed.json?.error?.code]).toEqual([413, 'FILE_TOO_LARGE']);
    await expectNothingKept(server, [allowed.fileId]);
  });

  it('a Plus key lifts the limit to 100 MB: 26 MB passes in both flows, 101 MB does not; Pro takes more', async () => {
    const { server, plus, pro } = await sizedServer();
    const bytes = Buffer.alloc(26 * MB, 7);
    const granted = await grant(
      server,
      { fileName: 'big.png', fileSize: bytes.length, contentType: 'image/png' },
      plus,
    );
    const stored = await put(granted.uploadUrl, bytes, 'image/png');
    expect(stored.status, stored.text).toBe(200);
    expect((await server.engine.getFile(granted.fileId)).size).toBe(26 * MB);

    const uploaded = await uploadB(server, bytes, 'big.bin', plus);
    expect(uploaded.status, uploaded.text).toBe(200);
    expect(uploaded.body.size).toBe(26 * MB);
    const streamed = await rawRequest(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...plus.headers },
      body: streamedMultipart(26 * MB),
    });
    expect(streamed.status, streamed.body.toString()).toBe(200);
    expect(streamed.json.size).toBe(26 * MB);

    const tooBig = { fileName: 'huge.png', fileSize: 100 * MB + 1, contentType: 'image/png' };
    const refused = await call(server, 'POST', '/api/files/get-upload-url', { ...plus, json: tooBig });
    expectError(refused, 413, 'FILE_TOO_LARGE');
    expect(refused.body.error.details).toMatchObject({ limit: 100 * MB, plan: 'plus' });
    const proGrant = await call(server, 'POST', '/api/files/get-upload-url', { ...pro, json: tooBig });
    expect(proGrant.status, proGrant.text).toBe(200);
  });

  it('a PUT with more (or fewer) bytes than the declared fileSize is 409 SIZE_MISMATCH, nothing kept', async () => {
    const { server } = await sizedServer();
    const granted = await grant(server, { fileName: 'a.png', fileSize: 1000, contentType: 'image/png' });
    // With a Content-Length that disagrees, and streamed (chunked) past the declared size.
    expectError(await put(granted.uploadUrl, Buffer.alloc(2000, 1), 'image/png'), 409, 'SIZE_MISMATCH');
    expectError(await put(granted.uploadUrl, Buffer.alloc(500, 1), 'image/png'), 409, 'SIZE_MISMATCH');
    const chunked = await rawRequest(granted.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body: zeros(2000, 100),
    });
    expect([chunked.status, chunked.json?.error?.code]).toEqual([409, 'SIZE_MISMATCH']);
    await expect.poll(() => server.storedFiles()).toEqual([]);
    expect((await server.engine.getFile(granted.fileId)).status).toBe('pending');
    // The grant is still good for the declared bytes.
    expect((await put(granted.uploadUrl, Buffer.alloc(1000, 1), 'image/png')).status).toBe(200);
  });
});
