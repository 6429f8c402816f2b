/**
 * Flow A, steps 1 and 2 refused: bad grant requests and bad PUTs. Each asserts the status, the
 * error code and shape, that storage kept nothing, and that the server answers the next request.
 */
import { describe, expect, it } from 'vitest';
import { sign, signingKey } from '../../src/core/signing.js';
import {
  call,
  expectAlive,
  expectError,
  fixture,
  grant,
  put,
  rawRequest,
  SECRET,
  startServer,
  type TestServer,
} from './harness.js';

const GRANT = '/api/files/get-upload-url';

/** Nothing in storage (not even a temp file), and the server still answers. */
async function expectNothingStored(server: TestServer): Promise<void> {
  expect(await server.storedFiles()).toEqual([]);
  await expectAlive(server);
}

describe('POST /api/files/get-upload-url refuses bad requests', () => {
  it('bodies that are not JSON, lack fields or mistype them: 400 INVALID_REQUEST, no record', async () => {
    const server = await startServer();
    const bad: Array<{ body: string; type?: string }> = [
      { body: '{"fileName": "a.png", ', type: 'application/json' },
      { body: 'fileName=a.png&fileSize=12', type: 'application/x-www-form-urlencoded' },
      { body: 'just text', type: 'text/plain' },
      { body: '' },
      { body: 'null', type: 'application/json' },
      { body: '[]', type: 'application/json' },
      { body: '{}', type: 'application/json' },
      { body: JSON.stringify({ fileName: 'a.png', fileSize: 12 }), type: 'application/json' },
      { body: JSON.stringify({ fileSize: 12, contentType: 'image/png' }), type: 'application/json' },
      {
        body: JSON.stringify({ fileName: 'a.png', fileSize: '12', contentType: 'image/png' }),
        type: 'application/json',
      },
      {
        body: JSON.stringify({ fileName: 7, fileSize: 12, contentType: 'image/png' }),
        type: 'application/json',
      },
      { body: JSON.stringify({ fileName: 'a.png', fileSize: 12, contentType: 5 }), type: 'application/json' },
      {
        body: JSON.stringify({ fileName: 'a.png', fileSize: 12, contentType: 'image/png\r\nX-Evil: 1' }),
        type: 'application/json',
      },
      {
        body: JSON.stringify({ fileName: '', fileSize: 12, contentType: 'image/png' }),
        type: 'application/json',
      },
    ];
    for (const { body, type } of bad) {
      const response = await call(server, 'POST', GRANT, {
        body,
        headers: type ? { 'content-type': type } : {},
      });
      expectError(response, 400, 'INVALID_REQUEST');
    }
    expect(await server.fileRecords()).toEqual([]);
    await expectNothingStored(server);
  });

  it('fileSize negative or fractional is 400, 0 is 422 (an empty file); above the limit is 413 FILE_TOO_LARGE', async () => {
    const server = await startServer({ maxFileBytes: 1024 });
    // JSON numbers JavaScript cannot hold exactly.
    for (const fileSize of ['1e400', '9007199254740993']) {
      const response = await call(server, 'POST', GRANT, {
        body: `{"fileName":"a.png","fileSize":${fileSize},"contentType":"image/png"}`,
        headers: { 'content-type': 'application/json' },
      });
      expectError(response, 400, 'INVALID_REQUEST');
    }
    for (const fileSize of [-1, 1.5, -0.5, Number.MAX_SAFE_INTEGER + 2]) {
      const response = await call(server, 'POST', GRANT, {
        json: { fileName: 'a.png', fileSize, contentType: 'image/png' },
      });
      expectError(response, 400, 'INVALID_REQUEST');
    }
    // A declared empty file is refused as an empty upload is (issue 27: one empty-file refusal).
    const empty = await call(server, 'POST', GRANT, {
      json: { fileName: 'a.png', fileSize: 0, contentType: 'image/png' },
    });
    expectError(empty, 422, 'CORRUPT_INPUT');
    const tooLarge = await call(server, 'POST', GRANT, {
      json: { fileName: 'a.png', fileSize: 1025, contentType: 'image/png' },
    });
    expectError(tooLarge, 413, 'FILE_TOO_LARGE');
    // Exactly the limit is fine.
    const atLimit = await call(server, 'POST', GRANT, {
      json: { fileName: 'a.png', fileSize: 1024, contentType: 'image/png' },
    });
    expect(atLimit.status).toBe(200);
    expect(await server.fileRecords()).toEqual([atLimit.body.fileId]);
    await expectNothingStored(server);
  });

  it('names: paths and control characters are stripped, 10 kB of text is refused', async () => {
    const server = await startServer();
    const cases = [
      ['../../etc/passwd.png', 'passwd.png'],
      ['..\\..\\windows\\system32\\evil.png', 'evil.png'],
      ['/abs/path/to/../x.png', 'x.png'],
      ['a\u0000b\u0007c\r\nd\u001b[31m.png', 'abcd[31m.png'],
      ['..', 'file'],
    ] as const;
    for (const [given, recorded] of cases) {
      const granted = await grant(server, { fileName: given, fileSize: 10, contentType: 'image/png' });
      const file = await server.engine.getFile(granted.fileId);
      expect(file.fileName).toBe(recorded);
      // No piece of the name reaches a key or a URL.
      expect(granted.fileKey).toBe(`uploads/${granted.fileId}`);
      expect(new URL(granted.uploadUrl).pathname).toBe(`/v1/api/files/${granted.fileId}/content`);
    }
    const records = await server.fileRecords();
    const huge = await call(server, 'POST', GRANT, {
      json: { fileName: `${'x'.repeat(10_240)}.png`, fileSize: 10, contentType: 'image/png' },
    });
    expectError(huge, 400, 'INVALID_REQUEST');
    expect(await server.fileRecords()).toEqual(records);
    await expectNothingStored(server);
  });
});

describe('PUT {uploadUrl} refuses bad uploads', () => {
  async function setup(options: Parameters<typeof startServer>[0] = {}) {
    const server = await startServer(options);
    const bytes = await fixture('fixture.png');
    const granted = await grant(server, {
      fileName: 'a.png',
      fileSize: bytes.length,
      contentType: 'image/png',
    });
    return { server, bytes, granted };
  }

  it('another Content-Type: 403 SIGNATURE_INVALID, and the grant still works afterwards', async () => {
    const { server, bytes, granted } = await setup();
    for (const type of ['image/jpeg', 'application/octet-stream', 'image/png-x']) {
      expectError(await put(granted.uploadUrl, bytes, type), 403, 'SIGNATURE_INVALID');
    }
    const none = await rawRequest(granted.uploadUrl, { method: 'PUT', body: bytes });
    expect([none.status, none.json?.error?.code]).toEqual([403, 'SIGNATURE_INVALID']);
    await expectNothingStored(server);
    // Parameters and case do not matter: the media type does.
    expect((await put(granted.uploadUrl, bytes, 'Image/PNG; charset=binary')).status).toBe(200);
  });

  it('more or fewer bytes than declared: 409 SIZE_MISMATCH, nothing stored (sized and chunked)', async () => {
    const { server, bytes, granted } = await setup();
    const more = Buffer.concat([bytes, Buffer.from('extra')]);
    const fewer = bytes.subarray(0, bytes.length - 1);
    expectError(await put(granted.uploadUrl, more, 'image/png'), 409, 'SIZE_MISMATCH');
    expectError(await put(granted.uploadUrl, fewer, 'image/png'), 409, 'SIZE_MISMATCH');
    // Without Content-Length the size is enforced while streaming.
    for (const body of [more, fewer]) {
      const chunked = await rawRequest(granted.uploadUrl, {
        method: 'PUT',
        headers: { 'content-type': 'image/png' },
        body: [body.subarray(0, 100), body.subarray(100)],
      });
      expect([chunked.status, chunked.json?.error?.code]).toEqual([409, 'SIZE_MISMATCH']);
    }
    await expectNothingStored(server);
    expect((await server.engine.getFile(granted.fileId)).status).toBe('pending');
    // The right bytes still go in.
    expect((await put(granted.uploadUrl, bytes, 'image/png')).status).toBe(200);
  });

  it('megabytes more than declared, chunked: 409 SIZE_MISMATCH answered, not a reset, and the server lives', async () => {
    // Storage stops reading at the declared size while most of the body is still on its way: the
    // request must stay answerable (it once was destroyed, and the server crashed on its socket).
    const { server, bytes, granted } = await setup();
    const chunk = Buffer.alloc(64 * 1024, 7);
    const chunked = await rawRequest(granted.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body: [bytes, ...Array.from({ length: 64 }, () => chunk)],
    });
    expect([chunked.status, chunked.json?.error?.code, chunked.resetBy]).toEqual([
      409,
      'SIZE_MISMATCH',
      null,
    ]);
    await expectNothingStored(server);
    expect((await put(granted.uploadUrl, bytes, 'image/png')).status).toBe(200);
  });

  it('after expiry: 403 URL_EXPIRED (moved clock, and a URL signed with a past expiry)', async () => {
    const { server, bytes, granted } = await setup();
    // A correctly signed URL whose expiry has passed.
    const key = signingKey(SECRET);
    const expires = Math.floor(Date.now() / 1000) - 10;
    const signature = sign(key, {
      purpose: 'upload',
      id: granted.fileId,
      expires,
      bound: ['image/png', bytes.length],
    });
    const url = new URL(granted.uploadUrl);
    url.search = `?expires=${expires}&signature=${signature}`;
    expectError(await put(url.href, bytes, 'image/png'), 403, 'URL_EXPIRED');
    // The same with another secret is not a signature at all.
    const forged = sign(Buffer.alloc(32, 1), {
      purpose: 'upload',
      id: granted.fileId,
      expires: expires + 1e6,
    });
    url.search = `?expires=${expires + 1e6}&signature=${forged}`;
    expectError(await put(url.href, bytes, 'image/png'), 403, 'SIGNATURE_INVALID');
    // The real URL, once the grant's 600 s have passed.
    server.advanceClock(601_000);
    expectError(await put(granted.uploadUrl, bytes, 'image/png'), 403, 'URL_EXPIRED');
    await expectNothingStored(server);
  });

  it('a tampered URL: 403 SIGNATURE_INVALID', async () => {
    const { server, bytes, granted } = await setup();
    const url = new URL(granted.uploadUrl);
    const signature = url.searchParams.get('signature')!;
    const expires = Number(url.searchParams.get('expires'));
    const variants: Array<(u: URL) => void> = [
      (u) => u.searchParams.set('signature', (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1)),
      (u) => u.searchParams.set('signature', ''),
      (u) => u.searchParams.delete('signature'),
      (u) => u.searchParams.set('expires', String(expires + 3600)),
      (u) => u.searchParams.set('expires', 'soon'),
      (u) => {
        u.pathname = u.pathname.replace(granted.fileId, '00000000-0000-4000-8000-000000000000');
      },
      (u) => {
        u.pathname = u.pathname.replace(granted.fileId, 'not-an-id');
      },
    ];
    for (const change of variants) {
      const tampered = new URL(url.href);
      change(tampered);
      expectError(await put(tampered.href, bytes, 'image/png'), 403, 'SIGNATURE_INVALID');
    }
    // A URL of another grant (same size and type) does not open this one.
    const other = await grant(server, {
      fileName: 'b.png',
      fileSize: bytes.length,
      contentType: 'image/png',
    });
    const swapped = new URL(other.uploadUrl);
    swapped.pathname = url.pathname;
    expectError(await put(swapped.href, bytes, 'image/png'), 403, 'SIGNATURE_INVALID');
    await expectNothingStored(server);
  });

  it('a second PUT after success: 409 ALREADY_UPLOADED, the first bytes stay', async () => {
    const { server, bytes, granted } = await setup();
    expect((await put(granted.uploadUrl, bytes, 'image/png')).status).toBe(200);
    const stored = await server.storedFiles();
    expect(stored).toContain(`uploads/${granted.fileId}`);
    const again = await put(granted.uploadUrl, Buffer.alloc(bytes.length, 7), 'image/png');
    expectError(again, 409, 'ALREADY_UPLOADED');
    expect(await server.storedFiles()).toEqual(stored);
    const job = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'jpg', fileSize: bytes.length },
    });
    expect(job.status, job.text).toBe(200); // still the PNG that was uploaded first
    await expectAlive(server);
  });
});
