/**
 * Flow A, steps 3 and 4 refused: job creation for files that are missing, foreign, not uploaded,
 * of another size or content, to impossible or unknown formats, with bad options; polling ids
 * that do not exist or belong to another client. No job is recorded for a refused request.
 */
import { describe, expect, it } from 'vitest';
import {
  call,
  expectAlive,
  expectError,
  fixture,
  grant,
  pollJob,
  startServer,
  type TestServer,
  uploadA,
} from './harness.js';

const CREATE = '/api/jobs/create';

/** No job recorded, and the server still answers. */
async function expectNoJob(server: TestServer): Promise<void> {
  expect(await server.jobRecords()).toEqual([]);
  await expectAlive(server);
}

describe('POST /api/jobs/create refuses bad requests', () => {
  it('bodies that are not JSON, lack fields or mistype them: 400 INVALID_REQUEST', async () => {
    const server = await startServer();
    const bytes = await fixture('fixture.png');
    const { fileKey } = await uploadA(server, bytes, 'a.png', 'image/png');
    const valid = { fileKey, sourceFormat: 'png', targetFormat: 'jpg', fileSize: bytes.length };
    const raw = await call(server, 'POST', CREATE, {
      body: '{"fileKey":',
      headers: { 'content-type': 'application/json' },
    });
    expectError(raw, 400, 'INVALID_REQUEST');
    const bodies: unknown[] = [
      {},
      { ...valid, fileKey: undefined },
      { ...valid, sourceFormat: undefined },
      { ...valid, targetFormat: undefined },
      { ...valid, fileSize: undefined },
      { ...valid, fileSize: '12' },
      { ...valid, fileSize: 0 },
      { ...valid, fileSize: 1.5 },
      { ...valid, targetFormat: 5 },
      { ...valid, sourceFormat: ['png'] },
      { ...valid, fileKey: 42 },
      { ...valid, options: 'quality=5' },
      { ...valid, options: [1, 2] },
    ];
    for (const json of bodies)
      expectError(await call(server, 'POST', CREATE, { json }), 400, 'INVALID_REQUEST');
    await expectNoJob(server);
    // The valid request works, the field order and extra fields notwithstanding.
    const ok = await call(server, 'POST', CREATE, { json: { ...valid, extra: true } });
    expect(ok.status, ok.text).toBe(200);
  });

  it('unknown and foreign files: 404; a file never uploaded: 409 NOT_UPLOADED', async () => {
    const server = await startServer({ clients: true });
    const bytes = await fixture('fixture.png');
    const base = { sourceFormat: 'png', targetFormat: 'jpg', fileSize: bytes.length };
    for (const fileKey of [
      'uploads/00000000-0000-4000-8000-000000000000',
      'not-a-key',
      '../../etc/passwd',
      'results/00000000-0000-4000-8000-000000000000',
    ]) {
      const response = await call(server, 'POST', CREATE, { json: { ...base, fileKey }, client: 'alice' });
      expectError(response, 404, 'NOT_FOUND');
    }
    const alices = await uploadA(server, bytes, 'a.png', 'image/png', 'alice');
    const bobs = await call(server, 'POST', CREATE, {
      json: { ...base, fileKey: alices.fileKey },
      client: 'bob',
    });
    expectError(bobs, 404, 'NOT_FOUND');
    expect(bobs.body.error.message).toBe('No such file.'); // the same words as for a made-up key
    const pending = await grant(
      server,
      { fileName: 'b.png', fileSize: bytes.length, contentType: 'image/png' },
      'alice',
    );
    const early = await call(server, 'POST', CREATE, {
      json: { ...base, fileKey: pending.fileKey },
      client: 'alice',
    });
    expectError(early, 409, 'NOT_UPLOADED');
    await expectNoJob(server);
  });

  it('declared size or content that does not match the upload: 409 SIZE_MISMATCH, 422 CONTENT_MISMATCH', async () => {
    const server = await startServer();
    const png = await fixture('fixture.png');
    const jpg = await fixture('fixture.jpg');
    const { fileKey } = await uploadA(server, png, 'a.png', 'image/png');
    const size = await call(server, 'POST', CREATE, {
      json: { fileKey, sourceFormat: 'png', targetFormat: 'jpg', fileSize: png.length + 1 },
    });
    expectError(size, 409, 'SIZE_MISMATCH');

    // JPEG bytes declared (and named, and typed) as PNG.
    const disguised = await uploadA(server, jpg, 'photo.png', 'image/png');
    const mismatch = await call(server, 'POST', CREATE, {
      json: { fileKey: disguised.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: jpg.length },
    });
    expectError(mismatch, 422, 'CONTENT_MISMATCH');

    // Text uploaded as a .png.
    const text = Buffer.from('this is not an image, just some plain text\n'.repeat(20));
    const notes = await uploadA(server, text, 'notes.png', 'image/png');
    const textAsPng = await call(server, 'POST', CREATE, {
      json: { fileKey: notes.fileKey, sourceFormat: 'png', targetFormat: 'jpg', fileSize: text.length },
    });
    expectError(textAsPng, 422, 'CONTENT_MISMATCH');
    await expectNoJob(server);
  });

  it('impossible pairs 422, unknown formats 415, invalid options 400 INVALID_OPTIONS', async () => {
    const server = await startServer();
    const png = await fixture('fixture.png');
    const { fileKey } = await uploadA(server, png, 'a.png', 'image/png');
    const job = (fields: Record<string, unknown>) =>
      call(server, 'POST', CREATE, {
        json: { fileKey, sourceFormat: 'png', targetFormat: 'jpg', fileSize: png.length, ...fields },
      });
    expectError(await job({ targetFormat: 'mp3' }), 422, 'UNSUPPORTED_CONVERSION');
    expectError(await job({ targetFormat: 'docx' }), 422, 'UNSUPPORTED_CONVERSION');
    expectError(await job({ targetFormat: 'xyz' }), 415, 'UNSUPPORTED_FORMAT');
    expectError(await job({ sourceFormat: 'nope' }), 415, 'UNSUPPORTED_FORMAT');
    for (const options of [
      { quality: 'high' },
      { quality: 0 },
      { quality: 101 },
      { width: -5 },
      { width: 1e9 },
      { lossless: true }, // not a jpg option
      { qualty: 50 }, // typo
    ]) {
      expectError(await job({ options }), 400, 'INVALID_OPTIONS');
    }
    await expectNoJob(server);
    // Aliases and case are accepted where the format is known.
    const alias = await job({ sourceFormat: 'PNG', targetFormat: 'jpeg', options: { quality: 60 } });
    expect(alias.status, alias.text).toBe(200);
    const done = await pollJob(server, alias.body.jobId);
    expect([done.status, done.targetFormat]).toEqual(['completed', 'jpg']);
  });
});

describe('GET and DELETE /api/jobs/{jobId} for ids that are not yours', () => {
  it('unknown and foreign job ids are 404 NOT_FOUND, alike', async () => {
    const server = await startServer({ clients: true });
    const bytes = await fixture('fixture.png');
    const { fileKey } = await uploadA(server, bytes, 'a.png', 'image/png', 'alice');
    const created = await call(server, 'POST', CREATE, {
      json: { fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: bytes.length },
      client: 'alice',
    });
    const jobId = created.body.jobId as string;
    const job = await pollJob(server, jobId, 'alice');
    expect(job.status).toBe('completed');

    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', 'x'.repeat(100)]) {
      expectError(await call(server, 'GET', `/api/jobs/${id}`, { client: 'alice' }), 404, 'NOT_FOUND');
    }
    expectError(await call(server, 'GET', `/api/jobs/${'x'.repeat(101)}`), 400, 'INVALID_REQUEST');
    const foreign = await call(server, 'GET', `/api/jobs/${jobId}`, { client: 'bob' });
    expectError(foreign, 404, 'NOT_FOUND');
    expect(foreign.body.error.message).toBe('No such job.');
    expectError(await call(server, 'DELETE', `/api/jobs/${jobId}`, { client: 'bob' }), 404, 'NOT_FOUND');
    // Bob's attempts changed nothing for Alice.
    const still = await call(server, 'GET', `/api/jobs/${jobId}`, { client: 'alice' });
    expect(still.body.status).toBe('completed');
    expect((await call(server, 'GET', still.body.downloadUrl)).status).toBe(200);
    await expectAlive(server);
  });
});
