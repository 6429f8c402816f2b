/**
 * Flow B refused: multipart uploads without the file, with two, empty, too large (and the server
 * stops reading a huge body), not multipart at all; conversions and downloads of ids that are
 * unknown, foreign or missing. Each checks the error, that nothing was kept, and that the server
 * answers the next request.
 */
import { describe, expect, it } from 'vitest';
import { truncated } from '../../src/testing/bad-inputs.js';
import {
  call,
  expectAlive,
  expectError,
  fixture,
  multipart,
  rawRequest,
  startServer,
  type TestServer,
  uploadB,
  zeros,
} from './harness.js';

const MB = 1024 * 1024;
const BOUNDARY = 'e2e-boundary-7f3a';

/** A multipart body of the given parts; `file` parts carry a filename. */
function body(parts: Array<{ name: string; file?: string; data: Uint8Array | string }>): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.file === undefined ? '' : `; filename="${part.file}"`}`;
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push(Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const MULTIPART = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

/** No stored object (not even a temp file), no file record, and the server still answers. */
async function expectNothingKept(server: TestServer): Promise<void> {
  expect(await server.storedFiles()).toEqual([]);
  expect(await server.fileRecords()).toEqual([]);
  await expectAlive(server);
}

describe('POST /api/upload refuses bad uploads', () => {
  it('no `file` field, or not multipart at all: 400 INVALID_REQUEST', async () => {
    const server = await startServer();
    const png = await fixture('fixture.png');
    const noFile = new FormData();
    noFile.append('comment', 'hello');
    expectError(await call(server, 'POST', '/api/upload', { body: noFile }), 400, 'INVALID_REQUEST');
    const otherField = new FormData();
    otherField.append('upload', new Blob([png]), 'a.png');
    expectError(await call(server, 'POST', '/api/upload', { body: otherField }), 400, 'INVALID_REQUEST');
    const fileAsText = body([{ name: 'file', data: 'not a file part' }]);
    const asText = await call(server, 'POST', '/api/upload', { body: fileAsText, headers: MULTIPART });
    expectError(asText, 400, 'INVALID_REQUEST');
    const empty = await call(server, 'POST', '/api/upload', { body: '', headers: MULTIPART });
    expectError(empty, 400, 'INVALID_REQUEST');
    const broken = await call(server, 'POST', '/api/upload', {
      body: body([{ name: 'file', file: 'a.png', data: png }]).subarray(0, 300),
      headers: MULTIPART,
    });
    expectError(broken, 400, 'INVALID_REQUEST');
    for (const [type, data] of [
      ['application/json', JSON.stringify({ file: 'aGVsbG8=' })],
      ['text/plain', 'hello'],
      ['image/png', png],
      ['multipart/form-data', 'no boundary'],
    ] as const) {
      const response = await call(server, 'POST', '/api/upload', {
        body: data,
        headers: { 'content-type': type },
      });
      expectError(response, 400, 'INVALID_REQUEST');
    }
    const untyped = await rawRequest(`${server.url}/api/upload`, { method: 'POST', body: png });
    expect([untyped.status, untyped.json?.error?.code]).toEqual([400, 'INVALID_REQUEST']);
    await expectNothingKept(server);
  });

  it('two files: 400, and the first one is not kept', async () => {
    const server = await startServer();
    const png = await fixture('fixture.png');
    const two = new FormData();
    two.append('file', new Blob([png]), 'a.png');
    two.append('file', new Blob([png]), 'b.png');
    expectError(await call(server, 'POST', '/api/upload', { body: two }), 400, 'INVALID_REQUEST');
    // The second file in another field, and a big first file still being stored when the second comes.
    const big = Buffer.alloc(3 * MB, 1);
    for (const parts of [
      [
        { name: 'file', file: 'a.png', data: png },
        { name: 'other', file: 'b.png', data: png },
      ],
      [
        { name: 'file', file: 'big.bin', data: big },
        { name: 'file', file: 'b.png', data: png },
      ],
    ]) {
      const response = await call(server, 'POST', '/api/upload', { body: body(parts), headers: MULTIPART });
      expectError(response, 400, 'INVALID_REQUEST');
    }
    await expectNothingKept(server);
  });

  it('an empty file: 422 CORRUPT_INPUT, nothing kept', async () => {
    const server = await startServer();
    const response = await call(server, 'POST', '/api/upload', {
      body: multipart(new Uint8Array(0), 'empty.png'),
    });
    expectError(response, 422, 'CORRUPT_INPUT');
    await expectNothingKept(server);
  });

  it('over the size limit: 413 FILE_TOO_LARGE, nothing kept; exactly the limit is fine', async () => {
    const server = await startServer({ maxFileBytes: MB });
    const over = await call(server, 'POST', '/api/upload', {
      body: multipart(Buffer.alloc(MB + 1), 'big.png'),
    });
    expectError(over, 413, 'FILE_TOO_LARGE');
    await expectNothingKept(server);
    const at = await call(server, 'POST', '/api/upload', { body: multipart(Buffer.alloc(MB), 'ok.bin') });
    expect([at.status, at.body?.size]).toEqual([200, MB]);
  });

  it('stops reading a 50 MB body once it is over a 1 MB limit (chunked, and with Content-Length)', async () => {
    const server = await startServer({ maxFileBytes: MB });
    const total = 50 * MB;
    const head = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="huge.png"\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
    function* huge() {
      yield head;
      yield* zeros(total);
      yield tail;
    }
    const length = String(head.length + total + tail.length);
    for (const headers of [MULTIPART, { ...MULTIPART, 'content-length': length }]) {
      const started = Date.now();
      const receivedBefore = server.bytesReceived();
      // A client that goes on sending after the answer: the server must not read on.
      const response = await rawRequest(`${server.url}/api/upload`, {
        method: 'POST',
        headers,
        body: huge(),
        keepSendingMs: 500,
      });
      // Either the 413 arrives, or the server closed the connection on a client still sending
      // (a reset can overtake the answer: see the report on `Connection: close`). Never a success.
      if (response.resetBy === null) {
        expect([response.status, response.json?.error?.code]).toEqual([413, 'FILE_TOO_LARGE']);
      } else {
        expect(['EPIPE', 'ECONNRESET']).toContain(response.resetBy);
      }
      // The server stopped reading: the client could not push the body through, and the server
      // read the 1 MB it allows, what arrived while it answered, and at most the 8 MB it then
      // discards to deliver its answer: about 14 MB of the 50. (Counted on the server's sockets:
      // what the client got into the kernel's buffers is no read of ours, and loopback's receive
      // buffer alone may grow to 32 MB, so the client's own count proves nothing.)
      expect(response.bodyFinished).toBe(false);
      expect(server.bytesReceived() - receivedBefore).toBeLessThan(20 * MB);
      expect(Date.now() - started).toBeLessThan(10_000);
      await expectNothingKept(server);
    }
  });
});

describe('POST /api/convert and GET /api/download refuse bad ids', () => {
  it('convert: bad bodies 400, unknown or foreign fileId 404, wrong name 400, impossible pair 422', async () => {
    const server = await startServer({ clients: true });
    const png = await fixture('fixture.png');
    const uploaded = await uploadB(server, png, 'a.png', 'alice');
    const { fileId } = uploaded.body as { fileId: string };
    const convert = (json: unknown, client = 'alice') =>
      call(server, 'POST', '/api/convert', { json, client });
    const raw = await call(server, 'POST', '/api/convert', {
      body: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expectError(raw, 400, 'INVALID_REQUEST');
    for (const json of [
      {},
      { fileId, fileName: 'a.png' },
      { fileId, targetFormat: 'jpg' },
      { fileId: 5, fileName: 'a.png', targetFormat: 'jpg' },
      { fileId, fileName: 'a.png', targetFormat: 5 },
    ]) {
      expectError(await convert(json), 400, 'INVALID_REQUEST');
    }
    expectError(await convert({ fileId, fileName: 'b.png', targetFormat: 'jpg' }), 400, 'INVALID_REQUEST');
    expectError(await convert({ fileId: 'nope', fileName: 'a.png', targetFormat: 'jpg' }), 404, 'NOT_FOUND');
    expectError(await convert({ fileId, fileName: 'a.png', targetFormat: 'jpg' }, 'bob'), 404, 'NOT_FOUND');
    expectError(
      await convert({ fileId, fileName: 'a.png', targetFormat: 'mp3' }),
      422,
      'UNSUPPORTED_CONVERSION',
    );
    expectError(await convert({ fileId, fileName: 'a.png', targetFormat: 'xyz' }), 415, 'UNSUPPORTED_FORMAT');
    const badOptions = await convert({
      fileId,
      fileName: 'a.png',
      targetFormat: 'jpg',
      options: { quality: 0 },
    });
    expectError(badOptions, 400, 'INVALID_OPTIONS');
    expect(await server.jobRecords()).toEqual([]);

    // A file whose bytes are not what its name says; and one that is cut short.
    const jpgAsPng = await uploadB(server, await fixture('fixture.jpg'), 'fake.png', 'alice');
    const fake = await convert({ fileId: jpgAsPng.body.fileId, fileName: 'fake.png', targetFormat: 'webp' });
    expectError(fake, 422, 'CONTENT_MISMATCH');
    const cut = await uploadB(server, truncated(await fixture('fixture.jpg')), 'cut.jpg', 'alice');
    const failed = await convert({ fileId: cut.body.fileId, fileName: 'cut.jpg', targetFormat: 'png' });
    expectError(failed, 422, 'CORRUPT_INPUT');
    expect(server.serverErrors).toEqual([]);
    await expectAlive(server);
  });

  it('convert: a file sent as a form (curl -F file=@a.png -F to=webp) is told to upload first, not that fields are missing', async () => {
    const server = await startServer();
    const form = new FormData();
    form.append('file', new Blob([await fixture('fixture.png')]), 'a.png');
    form.append('to', 'webp');
    const sent = await call(server, 'POST', '/api/convert', { body: form });
    expectError(sent, 400, 'INVALID_REQUEST');
    expect(sent.body.error.message).toMatch(
      /^This endpoint reads a JSON body \(Content-Type: application\/json\), not multipart\/form-data\. Upload the file first with POST \/api\/upload/,
    );
    const urlEncoded = await call(server, 'POST', '/api/jobs/create', {
      body: 'fileId=x&targetFormat=webp',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(urlEncoded, 400, 'INVALID_REQUEST');
    expect(urlEncoded.body.error.message).toContain('reads a JSON body');
    expect(await server.jobRecords()).toEqual([]);
    await expectAlive(server);
  });

  it('download: no id 400, unknown or foreign id 404', async () => {
    const server = await startServer({ clients: true });
    const uploaded = await uploadB(server, await fixture('fixture.png'), 'a.png', 'alice');
    const converted = await call(server, 'POST', '/api/convert', {
      json: { fileId: uploaded.body.fileId, fileName: 'a.png', targetFormat: 'jpg' },
      client: 'alice',
    });
    expect(converted.status, converted.text).toBe(200);
    const { downloadId } = converted.body as { downloadId: string };
    const download = (query: string, client = 'alice') =>
      call(server, 'GET', `/api/download${query}`, { client });

    expectError(await download(''), 400, 'INVALID_REQUEST');
    expectError(await download('?id='), 400, 'INVALID_REQUEST');
    expectError(await download('?id=a&id=b'), 400, 'INVALID_REQUEST');
    expectError(await download('?id=00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    expectError(await download(`?id=${downloadId}`, 'bob'), 404, 'NOT_FOUND');
    // A tampered Flow A result URL for the same job is refused too.
    const tampered = `/api/jobs/${downloadId}/result?expires=9999999999&signature=abc`;
    expectError(await call(server, 'GET', tampered), 403, 'SIGNATURE_INVALID');
    const mine = await download(`?id=${downloadId}`);
    expect([mine.status, mine.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    await expectAlive(server);
  });
});

describe('POST /api/convert whose wait fails after the job was created', () => {
  it('names the job in the error, so the client polls it instead of converting (and paying) twice', async () => {
    // No worker here (start: false) and a short wait: the job is created, and waiting gives up.
    const server = await startServer({ start: false, router: { convertTimeoutMs: 300 } });
    const upload = await uploadB(server, await fixture('fixture.png'), 'photo.png');
    const { fileId, fileName } = upload.body as { fileId: string; fileName: string };
    const converted = await call(server, 'POST', '/api/convert', {
      json: { fileId, fileName, targetFormat: 'webp' },
    });
    expect(converted.status).toBeGreaterThanOrEqual(500);
    const jobId = converted.body.error.details?.jobId;
    expect(jobId).toEqual(expect.any(String));
    const job = await call(server, 'GET', `/api/jobs/${jobId}`);
    expect([job.status, job.body.status]).toEqual([200, 'queued']);
    server.serverErrors.splice(0); // the 5xx is this test's point
  });
});
