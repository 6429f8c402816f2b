/**
 * Presigned multipart uploads over HTTP, end to end against s3rver: the grant's part URLs are
 * PUT to by the test itself (fetch, in parallel, out of order), the completion makes the file
 * `uploaded`, and the object in the bucket is checked byte for byte (sha256) without any
 * conversion. Also: a part URL bound to its size, a completion that leaves bytes out
 * (SIZE_MISMATCH, nothing kept), abort, owners, the plan's size limit, and storage without the
 * capability (fs) answering NOT_FOUND.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { createS3Storage, type S3Storage } from '../../src/adapters/storage/s3.js';
import { completedUploadResponse, multipartGrantResponse } from '../../src/service/wire/answers.js';
import { readAll } from '../../src/testing/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  loadS3rver,
  S3RVER_CREDENTIALS,
  S3RVER_INSTALL,
  type S3rverHandle,
  startS3rver,
} from '../helpers/s3rver.js';
import { call, expectError, startServer, type TestServer } from './harness.js';

const MiB = 1024 * 1024;
const s3rverAvailable = (await loadS3rver()) !== null;

/** Deterministic bytes that differ in every part (a part put in the wrong place shows). */
function sourceBytes(size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  let state = 0x9e3779b9;
  for (let index = 0; index < size; index++) {
    state = (state * 1664525 + 1013904223) >>> 0;
    bytes[index] = state >>> 24;
  }
  return bytes;
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('presigned multipart uploads on storage without them', () => {
  it('answers NOT_FOUND, pointing at the single PUT and at tus', async () => {
    const server = await startServer();
    const response = await call(server, 'POST', '/api/files/multipart', {
      json: { fileName: 'a.bin', fileSize: 10, contentType: 'application/octet-stream' },
    });
    expectError(response, 404, 'NOT_FOUND');
    expect(response.body.error.message).toMatch(/get-upload-url.*tus/);
  });
});

describeWithEngine(
  's3rver',
  s3rverAvailable,
  S3RVER_INSTALL,
  'presigned multipart uploads on S3 (s3rver)',
  () => {
    let s3: S3rverHandle;
    beforeAll(async () => {
      s3 = await startS3rver();
    });
    afterAll(() => s3?.stop());

    async function startOnS3(
      options: { maxFileBytes?: number } = {},
    ): Promise<{ server: TestServer; storage: S3Storage; prefix: string }> {
      const prefix = `m-${randomUUID()}/`;
      const storage = createS3Storage({
        bucket: s3.bucket,
        endpoint: s3.endpoint,
        forcePathStyle: true,
        credentials: S3RVER_CREDENTIALS,
        prefix,
        partSizeBytes: 5 * MiB,
      });
      const server = await startServer({ clients: true, engine: { storage }, ...options });
      return { server, storage, prefix };
    }

    async function startUpload(server: TestServer, size: number, client = 'alice') {
      const response = await call(server, 'POST', '/api/files/multipart', {
        client,
        json: { fileName: 'movie.mp4', fileSize: size, contentType: 'video/mp4' },
      });
      expect(response.status, response.text).toBe(200);
      expect(multipartGrantResponse.parse(response.body)).toEqual(response.body); // documented, nothing more
      return multipartGrantResponse.parse(response.body);
    }

    /** PUTs every part to its URL, all at once and last first; the ETags in part order. */
    async function putParts(
      grant: { partSize: number; parts: { partNumber: number; url: string }[] },
      bytes: Buffer,
    ) {
      const answers = await Promise.all(
        [...grant.parts].reverse().map(async ({ partNumber, url }) => {
          const body = bytes.subarray((partNumber - 1) * grant.partSize, partNumber * grant.partSize);
          const response = await fetch(url, { method: 'PUT', body });
          expect(response.status, await response.text()).toBe(200);
          return { partNumber, etag: response.headers.get('etag') ?? '' };
        }),
      );
      return answers.sort((a, b) => a.partNumber - b.partNumber);
    }

    it('the client PUTs the parts straight to the bucket; complete makes the file uploaded, byte for byte', async () => {
      const { server, storage, prefix } = await startOnS3();
      const size = 12 * MiB + 5;
      const bytes = sourceBytes(size);
      const grant = await startUpload(server, size);
      expect(grant).toMatchObject({ partSize: 5 * MiB, fileKey: `uploads/${grant.fileId}` });
      expect(grant.parts.map((part) => part.partNumber)).toEqual([1, 2, 3]);
      expect(grant.parts.every((part) => part.url.startsWith(s3.endpoint))).toBe(true); // not through the API
      expect(grant.completeUrl).toBe(`${server.url}/api/files/${grant.fileId}/complete`);
      expect(grant.expiresIn).toBe(600 + 13);

      // Each URL is bound to its part's size: S3 refuses a part of any other length.
      const wrongSize = await fetch(grant.parts[0]!.url, { method: 'PUT', body: bytes.subarray(0, MiB) });
      expect(wrongSize.status).toBe(403);

      const parts = await putParts(grant, bytes);
      expect((await server.engine.getFile(grant.fileId)).status).toBe('pending');
      const done = await call(server, 'POST', grant.completeUrl, {
        client: 'alice',
        json: { uploadId: grant.uploadId, parts },
      });
      expect(done.status, done.text).toBe(200);
      expect(completedUploadResponse.parse(done.body)).toEqual(done.body);
      expect(done.body).toEqual({
        fileId: grant.fileId,
        fileKey: grant.fileKey,
        fileName: 'movie.mp4',
        size,
      });
      expect((await server.engine.getFile(grant.fileId)).status).toBe('uploaded');
      expect(await storage.head(grant.fileKey)).toEqual({ size, contentType: 'video/mp4' });
      expect(sha(await readAll(await storage.get(grant.fileKey)))).toBe(sha(bytes));
      expect((await s3.pendingMultipartUploads()).filter((key) => key.startsWith(prefix))).toEqual([]);

      const again = await call(server, 'POST', grant.completeUrl, {
        client: 'alice',
        json: { uploadId: grant.uploadId, parts },
      });
      expectError(again, 409, 'ALREADY_UPLOADED');
    });

    it('a completion that leaves bytes out is SIZE_MISMATCH and keeps nothing', async () => {
      const { server, storage } = await startOnS3();
      const size = 11 * MiB;
      const grant = await startUpload(server, size);
      const parts = await putParts(grant, sourceBytes(size));
      const response = await call(server, 'POST', grant.completeUrl, {
        client: 'alice',
        json: { uploadId: grant.uploadId, parts: [parts[0], parts[2]] },
      });
      expectError(response, 409, 'SIZE_MISMATCH');
      expect(response.body.error.details).toMatchObject({ declared: size, actual: 6 * MiB });
      expect(await storage.head(grant.fileKey)).toBeNull();
      expect((await server.engine.getFile(grant.fileId)).status).toBe('pending');
    });

    it('refuses completions S3 cannot make and bodies that are not one', async () => {
      const { server } = await startOnS3();
      const grant = await startUpload(server, 6 * MiB);
      const unknownUpload = await call(server, 'POST', grant.completeUrl, {
        client: 'alice',
        json: { uploadId: 'not-an-upload', parts: [{ partNumber: 1, etag: '"x"' }] },
      });
      expectError(unknownUpload, 410, 'UPLOAD_EXPIRED');
      const unordered = await call(server, 'POST', grant.completeUrl, {
        client: 'alice',
        json: {
          uploadId: grant.uploadId,
          parts: [
            { partNumber: 2, etag: '"a"' },
            { partNumber: 1, etag: '"b"' },
          ],
        },
      });
      expectError(unordered, 400, 'INVALID_REQUEST');
      const empty = await call(server, 'POST', grant.completeUrl, {
        client: 'alice',
        json: { uploadId: grant.uploadId, parts: [] },
      });
      expectError(empty, 400, 'INVALID_REQUEST');
    });

    it('abort drops the parts and the pending file; only its owner can complete or abort it', async () => {
      const { server, prefix } = await startOnS3();
      const size = 7 * MiB;
      const grant = await startUpload(server, size);
      const parts = await putParts(grant, sourceBytes(size));
      expect((await s3.pendingMultipartUploads()).filter((key) => key.startsWith(prefix))).toHaveLength(1);

      const notMine = await call(server, 'POST', grant.completeUrl, {
        client: 'mallory',
        json: { uploadId: grant.uploadId, parts },
      });
      expectError(notMine, 404, 'NOT_FOUND');
      const abortPath = `/api/files/${grant.fileId}/multipart?uploadId=${encodeURIComponent(grant.uploadId)}`;
      expectError(await call(server, 'DELETE', abortPath, { client: 'mallory' }), 404, 'NOT_FOUND');
      expectError(
        await call(server, 'DELETE', `/api/files/${grant.fileId}/multipart`, { client: 'alice' }),
        400,
        'INVALID_REQUEST',
      );

      const aborted = await call(server, 'DELETE', abortPath, { client: 'alice' });
      expect(aborted.status, aborted.text).toBe(200);
      expect((await s3.pendingMultipartUploads()).filter((key) => key.startsWith(prefix))).toEqual([]);
      await expect(server.engine.getFile(grant.fileId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('fileconv/client uploadMultipart sends the parts, several at once, and completes the file', async () => {
      const { server, storage, prefix } = await startOnS3();
      const client = createClient({ baseUrl: server.url });
      const size = 16 * MiB + 1;
      const bytes = sourceBytes(size);
      const progress: number[] = [];
      const done = await client.uploadMultipart(new Blob([bytes], { type: 'video/mp4' }), {
        fileName: 'clip.mp4',
        concurrency: 3,
        onProgress: (loaded) => progress.push(loaded),
      });
      expect(done).toMatchObject({ fileName: 'clip.mp4', size });
      expect(progress.at(-1)).toBe(size);
      expect(await storage.head(done.fileKey)).toEqual({ size, contentType: 'video/mp4' });
      expect(sha(await readAll(await storage.get(done.fileKey)))).toBe(sha(bytes));

      // A failed part aborts the whole upload: nothing stays in the bucket, nor a pending file.
      const failing = createClient({
        baseUrl: server.url,
        retry: { maxRetries: 0 },
        fetch: (input, init) =>
          init?.method === 'PUT' && String(input).includes('partNumber=2')
            ? Promise.resolve(new Response('<Error><Code>InternalError</Code></Error>', { status: 500 }))
            : fetch(input, init),
      });
      await expect(
        failing.uploadMultipart(bytes, { fileName: 'clip.mp4', contentType: 'video/mp4' }),
      ).rejects.toMatchObject({ name: 'FileconvApiError', status: 500 });
      expect((await s3.pendingMultipartUploads()).filter((key) => key.startsWith(prefix))).toEqual([]);
      expect(await server.fileRecords()).toEqual([done.fileId]);
    });

    it("refuses a file over the plan's size before anything is started", async () => {
      const { server, prefix } = await startOnS3({ maxFileBytes: 10 * MiB });
      const response = await call(server, 'POST', '/api/files/multipart', {
        client: 'alice',
        json: { fileName: 'big.bin', fileSize: 10 * MiB + 1, contentType: 'application/octet-stream' },
      });
      expectError(response, 413, 'FILE_TOO_LARGE');
      expect((await s3.pendingMultipartUploads()).filter((key) => key.startsWith(prefix))).toEqual([]);
    });
  },
);
