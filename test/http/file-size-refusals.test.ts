/**
 * Every way a file is refused for its size says so the same way (core/file-size.ts): 413
 * FILE_TOO_LARGE, "The file is[ <size> bytes,] over the limit of <limit> bytes[ set by <whom>].",
 * `details.limit` always and `details.size` when the size is known (declared or counted whole),
 * whether the limit was met by a declared size (Flow A's grant, Flow B's Content-Length, a tus
 * creation), by counting a stream (Flow B's multipart body, a tus append, a storage put) or by
 * S3's own object limit.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createFsStorage } from '../../src/adapters/storage/fs.js';
import { createMemoryStorage } from '../../src/adapters/storage/memory.js';
import { createS3Storage } from '../../src/adapters/storage/s3.js';
import { FileconvError } from '../../src/core/errors.js';
import type { Storage } from '../../src/core/ports/index.js';
import { tempDir } from '../helpers/temp.js';
import { call, multipart, rawRequest, startServer, zeros } from './harness.js';
import { createTusUpload, TUS, tusPatch } from './tus-helpers.js';

const LIMIT = 1000;
const SHAPE = /^The file is(?: (\d+) bytes,)? over the limit of (\d+) bytes(?: set by (.+))?\.$/;

interface Refusal {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** The one shape, with `limit`, `size` (absent: unknown) and whose limit it was. */
function expectTooLarge(
  refusal: Refusal,
  expected: { limit: number; size?: number; setBy?: string; plan?: string },
): void {
  expect(refusal.code).toBe('FILE_TOO_LARGE');
  const [, size, limit, setBy] = SHAPE.exec(refusal.message) ?? expect.unreachable(refusal.message);
  expect({ size: size && Number(size), limit: Number(limit), setBy }).toEqual({
    size: expected.size,
    limit: expected.limit,
    setBy: expected.setBy,
  });
  const { limit: limitDetail, size: sizeDetail, ...more } = refusal.details ?? {};
  expect(limitDetail).toBe(expected.limit);
  expect(refusal.details && 'size' in refusal.details, 'details.size exactly when the size is known').toBe(
    expected.size !== undefined,
  );
  if (expected.size !== undefined) expect(sizeDetail).toBe(expected.size);
  // Only what a refusing place knows besides: the plan behind the limit, S3's failed abort.
  for (const key of Object.keys(more)) expect(['plan', 'abortFailed']).toContain(key);
  if (expected.plan !== undefined) expect(more.plan).toBe(expected.plan);
}

/** What `promise` rejected with, as a client reads it. */
async function rejection(promise: Promise<unknown>): Promise<Refusal> {
  const error = await promise.then(
    () => expect.unreachable('it was accepted'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileconvError);
  return error as FileconvError;
}

/** A multipart body with one file of `size` zero bytes, streamed (no Content-Length). */
function* streamedMultipart(boundary: string, size: number): Generator<Buffer> {
  yield Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  yield* zeros(size, 256);
  yield Buffer.from(`\r\n--${boundary}--\r\n`);
}

describe('FILE_TOO_LARGE, one shape wherever a size is refused', () => {
  it('over HTTP: Flow A and Flow B, declared or streamed, a tus creation and a tus append', async () => {
    const server = await startServer({ maxFileBytes: LIMIT });
    const free = { limit: LIMIT, setBy: 'the Free plan', plan: 'free' };

    const grant = await call(server, 'POST', '/api/files/get-upload-url', {
      json: { fileName: 'a.bin', fileSize: LIMIT + 1, contentType: 'application/octet-stream' },
    });
    expect(grant.status).toBe(413);
    expectTooLarge(grant.body.error, { ...free, size: LIMIT + 1 });

    // Flow B: a Content-Length far past the limit is refused unread, by the declared size.
    const boundary = 'file-size-refusals-7d1';
    const body = Buffer.concat([...streamedMultipart(boundary, 100 * 1024)]);
    const declared = await rawRequest(`${server.url}/api/upload`, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(body.length),
      },
      body,
    });
    expect(declared.status).toBe(413);
    expectTooLarge(declared.json.error, { ...free, size: body.length });

    // Flow B streamed: cut off once the limit is passed, its size never known.
    const streamed = await rawRequest(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: streamedMultipart(boundary, 5 * LIMIT),
    });
    expect(streamed.status).toBe(413);
    expectTooLarge(streamed.json.error, free);
    // Within the framing allowance of its Content-Length, the file is counted as it streams too.
    const counted = await call(server, 'POST', '/api/upload', {
      body: multipart(Buffer.alloc(2 * LIMIT), 'big.bin'),
    });
    expect(counted.status).toBe(413);
    expectTooLarge(counted.body.error, free);

    const tusCreation = await createTusUpload(server, LIMIT + 1);
    expect(tusCreation.response.status).toBe(413);
    expectTooLarge(tusCreation.response.body.error, { ...free, size: LIMIT + 1 });

    // A tus append past the upload's own declared size: by its Content-Length, or counted.
    const declaredSize = { limit: 900, setBy: "the upload's declared size" };
    const { path } = await createTusUpload(server, 900);
    const sized = await tusPatch(server, path, 0, Buffer.alloc(950));
    expect(sized.status).toBe(413);
    expectTooLarge(sized.body.error, { ...declaredSize, size: 950 });
    const chunked = await rawRequest(`${server.url}${path}`, {
      method: 'PATCH',
      headers: { ...TUS, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' },
      body: zeros(950, 100),
    });
    expect(chunked.status).toBe(413);
    expectTooLarge(chunked.json.error, declaredSize);
  });

  it('from a storage put over maxBytes (a stream counted, a buffer sized) and a resumable append', async () => {
    const storages: [string, Storage][] = [
      ['memory', createMemoryStorage()],
      ['fs', createFsStorage({ dir: await tempDir() })],
    ];
    for (const [name, storage] of storages) {
      const stream = await rejection(
        storage.put(`t/${name}-stream`, Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), {
          maxBytes: LIMIT,
        }),
      );
      expectTooLarge(stream, { limit: LIMIT });
      const buffer = await rejection(
        storage.put(`t/${name}-buffer`, Buffer.alloc(1200), { maxBytes: LIMIT }),
      );
      expectTooLarge(buffer, { limit: LIMIT, size: 1200 });
      const resumable = storage.resumable!;
      const state = await resumable.begin(`t/${name}-resumable`, { size: 900, contentType: 'text/plain' });
      const append = await rejection(
        resumable.append(`t/${name}-resumable`, state, Readable.from([Buffer.alloc(950)]), {
          offset: 0,
          size: 900,
        }),
      );
      expectTooLarge(append, { limit: 900, setBy: "the upload's declared size" });
    }
  });

  it("from S3's limit on one object, refused before any request", async () => {
    const s3 = createS3Storage({
      bucket: 'never-reached',
      endpoint: 'http://127.0.0.1:9',
      forcePathStyle: true,
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    });
    const size = 6 * 1024 ** 4;
    const refusal = await rejection(s3.resumable!.begin('t/huge', { size, contentType: 'video/mp4' }));
    expectTooLarge(refusal, { limit: 5 * 1024 ** 4, size, setBy: 'S3 for one object (5 TiB)' });
    await s3.close?.();
  });
});
