/**
 * Document operations through the HTTP API: Flow A's job with `operation` and `fileKeys`, Flow
 * B's convert with `fileIds`, a batch mixing a conversion and an operation, GET /api/operations,
 * and what is refused (an unknown operation, a PNG among PDFs, too few files, bad options, a page
 * past the last, an encrypted PDF, another client's file), each with its stable code. Results are
 * read back with poppler's pdfinfo and pdftotext, not with pdf-lib that wrote them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { definePlans } from '../../src/core/policy/index.js';
import { pdfOperations } from '../../src/operations/pdf/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import {
  call,
  expectAlive,
  expectError,
  fixture,
  pollJob,
  startServer,
  type TestServer,
  uploadA,
} from './harness.js';

const POPPLER = existsSync('/usr/bin/pdfinfo') && existsSync('/usr/bin/pdftotext');

/** A PDF whose pages say `${label}1`, `${label}2`, ... */
async function labelledPdf(label: string, pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let index = 1; index <= pages; index++) {
    doc.addPage([300, 200]).drawText(`${label}${index}`, { x: 20, y: 100, size: 14, font });
  }
  return Buffer.from(await doc.save());
}

/** Writes `bytes` to a temp file and runs a poppler tool on it. */
async function poppler(tool: 'pdfinfo' | 'pdftotext', bytes: Uint8Array, ...args: string[]): Promise<string> {
  const path = join(await tempDir(), 'result.pdf');
  await writeFile(path, bytes);
  return execFileSync(tool, tool === 'pdftotext' ? [...args, path, '-'] : [...args, path], {
    encoding: 'utf8',
  });
}

async function labelsOf(bytes: Uint8Array): Promise<string[]> {
  return (await poppler('pdftotext', bytes, '-layout')).match(/[a-z]\d+/g) ?? [];
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

async function uploadPdf(server: TestServer, label: string, pages: number, client?: string) {
  return uploadA(server, await labelledPdf(label, pages), `${label}.pdf`, 'application/pdf', client);
}

describeWithEngine('poppler-utils', POPPLER, 'apt-get install poppler-utils', 'operations over HTTP', () => {
  /** A server per test (the harness closes each after its test), with the PDF operations. */
  const start = () =>
    startServer({
      clients: true,
      engine: { converters: [createSharpConverter()], operations: pdfOperations() },
      router: {
        plans: definePlans({
          free: { conversionsPerDay: 1000, maxDocumentPages: 20, batch: true, maxBatchJobs: 10 },
        }),
      },
    });

  it('GET /api/operations lists merge, split, rotate and metadata with their options schemas', async () => {
    const server = await start();
    const response = await call(server, 'GET', '/api/operations');
    expect(response.status).toBe(200);
    const names = response.body.operations.map((operation: { name: string }) => operation.name);
    expect(names).toEqual(expect.arrayContaining(['merge', 'split', 'rotate', 'metadata']));
    const rotate = response.body.operations.find(
      (operation: { name: string }) => operation.name === 'rotate',
    );
    expect(rotate).toMatchObject({ input: 'pdf', minInputs: 1, maxInputs: 1 });
    expect(rotate.options).toMatchObject({ type: 'object', required: ['angle'] });
    const merge = response.body.operations.find((operation: { name: string }) => operation.name === 'merge');
    expect(merge).toMatchObject({ minInputs: 2, maxInputs: 50 });
  });

  it('Flow A: merges uploaded PDFs in the order given', async () => {
    const server = await start();
    const a = await uploadPdf(server, 'a', 2, 'alice');
    const b = await uploadPdf(server, 'b', 3, 'alice');
    const created = await call(server, 'POST', '/api/jobs/create', {
      client: 'alice',
      json: { operation: 'merge', fileKeys: [b.fileKey, a.fileKey] },
    });
    expect(created.status, created.text).toBe(200);
    const job = await pollJob(server, created.body.jobId, 'alice');
    expect(job).toMatchObject({
      status: 'completed',
      operation: 'merge',
      inputFiles: ['b.pdf', 'a.pdf'],
      sourceFormat: 'pdf',
      targetFormat: 'pdf',
      outputName: 'b-merged.pdf',
    });
    const merged = await download(job.downloadUrl);
    expect(await poppler('pdfinfo', merged)).toMatch(/^Pages:\s+5$/m);
    expect(await labelsOf(merged)).toEqual(['b1', 'b2', 'b3', 'a1', 'a2']);
  });

  it('Flow B: splits and rotates through POST /api/convert with fileIds', async () => {
    const server = await start();
    const form = new FormData();
    form.append('file', new Blob([await labelledPdf('s', 4)], { type: 'application/pdf' }), 's.pdf');
    const uploaded = await call(server, 'POST', '/api/upload', { client: 'bob', body: form });
    expect(uploaded.status, uploaded.text).toBe(200);
    const fileId = uploaded.body.fileId as string;
    const downloadB = async (id: string) => {
      const response = await fetch(`${server.url}/api/download?id=${id}`, {
        headers: { 'x-test-client': 'bob' },
      });
      expect(response.status).toBe(200);
      return Buffer.from(await response.arrayBuffer());
    };

    const split = await call(server, 'POST', '/api/convert', {
      client: 'bob',
      json: { operation: 'split', fileIds: [fileId], options: { pages: '2-3' } },
    });
    expect(split.status, split.text).toBe(200);
    expect(split.body.outputName).toBe('s-split.pdf');
    expect(await labelsOf(await downloadB(split.body.downloadId))).toEqual(['s2', 's3']);

    const rotated = await call(server, 'POST', '/api/convert', {
      client: 'bob',
      json: { operation: 'rotate', fileIds: [fileId], options: { angle: 90, pages: '1' } },
    });
    expect(rotated.status, rotated.text).toBe(200);
    const info = await poppler('pdfinfo', await downloadB(rotated.body.downloadId), '-f', '1', '-l', '2');
    expect(info).toMatch(/Page\s+1 rot:\s+90/);
    expect(info).toMatch(/Page\s+2 rot:\s+0/);

    // A failed operation answers its job's code, as a conversion does.
    const past = await call(server, 'POST', '/api/convert', {
      client: 'bob',
      json: { operation: 'split', fileIds: [fileId], options: { pages: '9' } },
    });
    expectError(past, 400, 'INVALID_OPTIONS');
  });

  it('a batch may mix a conversion and an operation', async () => {
    const server = await start();
    const png = await uploadA(server, await fixture('fixture.png'), 'pic.png', 'image/png', 'carol');
    const a = await uploadPdf(server, 'm', 1, 'carol');
    const b = await uploadPdf(server, 'n', 1, 'carol');
    const batch = await call(server, 'POST', '/api/jobs/batch', {
      client: 'carol',
      json: {
        jobs: [
          {
            fileKey: png.fileKey,
            sourceFormat: 'png',
            targetFormat: 'webp',
            fileSize: (await fixture('fixture.png')).length,
          },
          { operation: 'merge', fileKeys: [a.fileKey, b.fileKey] },
        ],
      },
    });
    expect(batch.status, batch.text).toBe(200);
    const [conversion, operation] = await Promise.all(
      batch.body.jobIds.map((id: string) => pollJob(server, id, 'carol')),
    );
    expect(conversion).toMatchObject({ status: 'completed', targetFormat: 'webp' });
    expect(operation).toMatchObject({ status: 'completed', operation: 'merge' });
  });

  it('refuses what it cannot run, with stable codes, ', async () => {
    const server = await start();
    const pdf = await uploadPdf(server, 'x', 2, 'dave');
    const png = await uploadA(server, await fixture('fixture.png'), 'pic.png', 'image/png', 'dave');
    const create = (json: Record<string, unknown>, client = 'dave') =>
      call(server, 'POST', '/api/jobs/create', { client, json });
    expectError(await create({ operation: 'shred', fileKeys: [pdf.fileKey] }), 422, 'UNSUPPORTED_CONVERSION');
    const pngAmong = await create({ operation: 'merge', fileKeys: [pdf.fileKey, png.fileKey] });
    expectError(pngAmong, 415, 'UNSUPPORTED_FORMAT');
    expect(pngAmong.body.error.message).toMatch(
      /File 2 \(pic\.png\) is png; the merge operation takes pdf files only there/,
    );
    expectError(await create({ operation: 'merge', fileKeys: [pdf.fileKey] }), 400, 'INVALID_REQUEST');
    expectError(await create({ operation: 'merge', fileKeys: [] }), 400, 'INVALID_REQUEST');
    expectError(
      await create({ operation: 'rotate', fileKeys: [pdf.fileKey], options: { angle: 45 } }),
      400,
      'INVALID_OPTIONS',
    );
    expectError(
      await create({ operation: 'split', fileKeys: [pdf.fileKey], options: { pages: 'two' } }),
      400,
      'INVALID_OPTIONS',
    );
    expectError(
      await create({ operation: 'merge', fileKeys: [pdf.fileKey, 'uploads/nope'] }),
      404,
      'NOT_FOUND',
    );
    // Another client's file is not found, not merged.
    expectError(
      await create({ operation: 'merge', fileKeys: [pdf.fileKey, pdf.fileKey] }, 'eve'),
      404,
      'NOT_FOUND',
    );
    await expectAlive(server);
  });

  it('a page past the last or an encrypted input fails the job with its code and no server path', async () => {
    const server = await start();
    const pdf = await uploadPdf(server, 'y', 2, 'frank');
    const past = await call(server, 'POST', '/api/jobs/create', {
      client: 'frank',
      json: { operation: 'split', fileKeys: [pdf.fileKey], options: { pages: '3' } },
    });
    expect(past.status, past.text).toBe(200);
    const failed = await pollJob(server, past.body.jobId, 'frank');
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'INVALID_OPTIONS' } });
    expect(failed.error.message).toMatch(/page 3 does not exist/);

    const encrypted = await uploadA(
      server,
      await fixture('bad/encrypted.pdf'),
      'locked.pdf',
      'application/pdf',
      'frank',
    );
    const locked = await call(server, 'POST', '/api/jobs/create', {
      client: 'frank',
      json: { operation: 'merge', fileKeys: [pdf.fileKey, encrypted.fileKey] },
    });
    expect(locked.status, locked.text).toBe(200);
    const lockedJob = await pollJob(server, locked.body.jobId, 'frank');
    expect(lockedJob).toMatchObject({ status: 'failed', error: { code: 'PASSWORD_PROTECTED' } });
    expect(lockedJob.error.message).toMatch(/file 2 \(locked\.pdf\)/);
    expect(lockedJob.error.message).not.toMatch(/fileconv-|\/tmp|input-2/);
  });

  it("a plan's maxDocumentPages bounds the merged result", async () => {
    const server = await start();
    const big = await uploadPdf(server, 'p', 12, 'gina');
    const other = await uploadPdf(server, 'q', 12, 'gina');
    const created = await call(server, 'POST', '/api/jobs/create', {
      client: 'gina',
      json: { operation: 'merge', fileKeys: [big.fileKey, other.fileKey] },
    });
    expect(created.status, created.text).toBe(200);
    const job = await pollJob(server, created.body.jobId, 'gina');
    expect(job).toMatchObject({ status: 'failed', error: { code: 'INPUT_LIMIT_EXCEEDED' } });
    expect(job.error.message).toMatch(/maxDocumentPages 20/);
  });
});

describe('operations without pdf operations configured', () => {
  it('an engine without operations refuses any operation as unsupported', async () => {
    const server = await startServer();
    const pdf = await uploadA(server, await labelledPdf('z', 1), 'z.pdf', 'application/pdf');
    const response = await call(server, 'POST', '/api/jobs/create', {
      json: { operation: 'merge', fileKeys: [pdf.fileKey, pdf.fileKey] },
    });
    expectError(response, 422, 'UNSUPPORTED_CONVERSION');
    expect((await call(server, 'GET', '/api/operations')).body).toEqual({ operations: [] });
  });
});

describeWithEngine(
  'poppler-utils',
  POPPLER,
  'apt-get install poppler-utils',
  'operations through fileconv/client',
  () => {
    it('runOperation uploads the files, merges them in order and downloads the result', async () => {
      const server = await startServer({ engine: { converters: [], operations: pdfOperations() } });
      const client = createClient({ baseUrl: server.url });
      const listed = await client.operations();
      expect(listed.operations.map((operation) => operation.name)).toContain('merge');
      const merged = await client.runOperation('merge', [
        { body: new Blob([await labelledPdf('c', 1)], { type: 'application/pdf' }), fileName: 'c.pdf' },
        { body: await labelledPdf('d', 2), fileName: 'd.pdf' },
      ]);
      expect(merged.job).toMatchObject({ operation: 'merge', inputFiles: ['c.pdf', 'd.pdf'] });
      expect(merged.fileName).toBe('c-merged.pdf');
      const bytes = Buffer.from(await new Response(merged.stream).arrayBuffer());
      expect(await labelsOf(bytes)).toEqual(['c1', 'd1', 'd2']);
      // A failure throws the job's own code.
      await expect(
        client.runOperation('split', [{ body: await labelledPdf('e', 1), fileName: 'e.pdf' }], {
          options: { pages: '4' },
        }),
      ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    });
  },
);
