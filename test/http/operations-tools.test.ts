/**
 * The PDF operations that run qpdf, Ghostscript and pdf.js, as jobs over HTTP: compress, PDF/A,
 * watermark (text, and an image sent as the job's second file), protect then unlock, thumbnail,
 * split into a zip of one PDF per page, and forms (fill with flatten, flatten, the fields as JSON). Each result is read back with poppler, qpdf, unzip
 * or sharp, never with the tool that wrote it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { pdfOperations } from '../../src/operations/pdf/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { formPdf, labelledPdf, photoPdf } from '../helpers/pdf-samples.js';
import { tempDir } from '../helpers/temp.js';
import { call, expectError, fixture, pollJob, startServer, type TestServer, uploadA } from './harness.js';

const TOOLS = [
  '/usr/bin/qpdf',
  '/usr/bin/gs',
  '/usr/bin/pdfinfo',
  '/usr/bin/pdftotext',
  '/usr/bin/unzip',
].every((path) => existsSync(path));

const start = () =>
  startServer({ engine: { converters: [createSharpConverter()], operations: pdfOperations() } });

/** The fields of a finished job these tests read. */
interface JobBody {
  outputSize: number;
  outputName: string;
  targetFormat: string;
}

/** Uploads local files, runs `operation` over them, and returns the finished job and the result's path. */
async function runJob(
  server: TestServer,
  operation: string,
  paths: readonly string[],
  options?: Record<string, unknown>,
): Promise<{ job: JobBody; result: string }> {
  const fileKeys = [];
  for (const path of paths) {
    const type = path.endsWith('.png') ? 'image/png' : 'application/pdf';
    fileKeys.push((await uploadA(server, await readFile(path), path.split('/').at(-1)!, type)).fileKey);
  }
  const created = await call(server, 'POST', '/api/jobs/create', {
    json: { operation, fileKeys, ...(options ? { options } : {}) },
  });
  expect(created.status, created.text).toBe(200);
  const job = await pollJob(server, created.body.jobId, undefined, 60_000);
  expect(job.status, JSON.stringify(job.error)).toBe('completed');
  const response = await fetch(job.downloadUrl);
  expect(response.status).toBe(200);
  const result = join(await tempDir(), job.outputName);
  await writeFile(result, Buffer.from(await response.arrayBuffer()));
  return { job, result };
}

const text = (path: string, ...args: string[]) =>
  execFileSync('pdftotext', [...args, path, '-'], { encoding: 'utf8' });

describeWithEngine(
  'qpdf, ghostscript, poppler-utils, unzip',
  TOOLS,
  'apt-get install qpdf ghostscript poppler-utils unzip',
  'PDF tool operations over HTTP',
  () => {
    it('lists every operation whose engine is installed', async () => {
      const server = await start();
      const listed = await call(server, 'GET', '/api/operations');
      expect(listed.body.operations.map((operation: { name: string }) => operation.name).sort()).toEqual([
        'compress',
        'fill-form',
        'flatten',
        'form-fields',
        'merge',
        'metadata',
        'pdfa',
        'protect',
        'rotate',
        'split',
        'thumbnail',
        'unlock',
        'watermark',
      ]);
    });

    it('compresses a photo PDF, and archives it as PDF/A-2b', async () => {
      const server = await start();
      const dir = await tempDir();
      const photos = await photoPdf(dir, 2);
      const { job, result } = await runJob(server, 'compress', [photos], { quality: 50, resolution: 72 });
      expect(job.outputSize).toBeLessThan((await readFile(photos)).length / 2);
      expect(execFileSync('pdfinfo', [result], { encoding: 'utf8' })).toMatch(/^Pages:\s+2$/m);
      const archived = await runJob(server, 'pdfa', [await labelledPdf(dir, 'a', 2)], { level: '2b' });
      const xmp = execFileSync('pdfinfo', ['-meta', archived.result], { encoding: 'utf8' });
      expect(xmp).toMatch(/pdfaid:part(='|>)2/);
      expect(text(archived.result)).toMatch(/a1[\s\S]*a2/);
    });

    it('stamps a text watermark, and an image sent as the second file', async () => {
      const server = await start();
      const dir = await tempDir();
      const pdf = await labelledPdf(dir, 'w', 2);
      const stamped = await runJob(server, 'watermark', [pdf], {
        text: 'CONFIDENTIAL',
        opacity: 0.5,
        position: 'top',
      });
      expect(text(stamped.result).match(/CONFIDENTIAL/g)).toHaveLength(2);
      const logo = join(dir, 'logo.png');
      await writeFile(logo, await fixture('fixture.png'));
      const withImage = await runJob(server, 'watermark', [pdf, logo], { position: 'top-right' });
      const images = execFileSync('pdfimages', ['-list', withImage.result], { encoding: 'utf8' });
      // One image per page (an alpha channel adds an smask row of its own).
      const rows = images.trim().split('\n').slice(2);
      expect(
        rows.filter((row) => row.trim().split(/\s+/)[2] === 'image').map((row) => row.trim().split(/\s+/)[0]),
      ).toEqual(['1', '2']);
      // A path as an option would make the service read its own files: refused.
      const key = (await uploadA(server, await readFile(pdf), 'w.pdf', 'application/pdf')).fileKey;
      const create = (fileKeys: string[], options: Record<string, unknown>) =>
        call(server, 'POST', '/api/jobs/create', { json: { operation: 'watermark', fileKeys, options } });
      expectError(await create([key], { image: '/etc/passwd' }), 400, 'INVALID_OPTIONS');
      // Text or an image, one of the two.
      expectError(await create([key], {}), 400, 'INVALID_OPTIONS');
      // The second file must be an image.
      const twoPdfs = await call(server, 'POST', '/api/jobs/create', {
        json: { operation: 'watermark', fileKeys: [key, key], options: {} },
      });
      expectError(twoPdfs, 415, 'UNSUPPORTED_FORMAT');
    });

    it('protects with a password, and unlocks with it; a wrong one is PASSWORD_PROTECTED', async () => {
      const server = await start();
      const pdf = await labelledPdf(await tempDir(), 'p', 1);
      const locked = await runJob(server, 'protect', [pdf], { password: 's3cret' });
      // qpdf --requires-password exits 0 when a password is needed to open the file.
      expect(spawnSync('qpdf', ['--requires-password', locked.result]).status).toBe(0);
      expect(spawnSync('pdfinfo', [locked.result]).status).not.toBe(0);
      const unlocked = await runJob(server, 'unlock', [locked.result], { password: 's3cret' });
      expect(spawnSync('qpdf', ['--requires-password', unlocked.result]).status).toBe(2);
      expect(text(unlocked.result)).toMatch(/p1/);
      const wrong = await call(server, 'POST', '/api/jobs/create', {
        json: {
          operation: 'unlock',
          fileKeys: [
            (await uploadA(server, await readFile(locked.result), 'locked.pdf', 'application/pdf')).fileKey,
          ],
          options: { password: 'guess' },
        },
      });
      const failed = await pollJob(server, wrong.body.jobId, undefined, 60_000);
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'PASSWORD_PROTECTED' } });
      expect(failed.error.message).not.toMatch(/\/tmp|fileconv-|input-1/);
    });

    it('makes a thumbnail of the first page, and splits every page into a zip', async () => {
      const server = await start();
      const pdf = await labelledPdf(await tempDir(), 't', 3);
      const thumb = await runJob(server, 'thumbnail', [pdf], { width: 120, format: 'webp' });
      expect(thumb.job).toMatchObject({ targetFormat: 'webp', outputName: 't-thumbnail.webp' });
      const meta = await sharp(thumb.result).metadata();
      expect({ format: meta.format, width: meta.width }).toEqual({ format: 'webp', width: 120 });
      const split = await runJob(server, 'split', [pdf], { everyPage: true });
      expect(split.job.outputName).toBe('t-split.zip');
      const listing = execFileSync('unzip', ['-Z1', split.result], { encoding: 'utf8' }).trim().split('\n');
      expect(listing).toHaveLength(3);
      const out = await tempDir();
      execFileSync('unzip', ['-q', split.result, '-d', out]);
      const second = listing.find((name) => /2/.test(name))!;
      expect(text(join(out, second))).toMatch(/t2/);
    });

    it('fills a form and flattens it, lists its fields as JSON; a field it lacks fails the job naming it', async () => {
      const server = await start();
      const form = await formPdf(await tempDir());
      const listed = await runJob(server, 'form-fields', [form]);
      expect(listed.job).toMatchObject({ targetFormat: 'json', outputName: 'form-form-fields.json' });
      const { fields } = JSON.parse(await readFile(listed.result, 'utf8')) as {
        fields: { name: string; type: string; options?: string[] }[];
      };
      expect(fields.find((field) => field.name === 'country')).toMatchObject({
        type: 'dropdown',
        options: ['France', 'Spain', 'Peru'],
      });
      const filled = await runJob(server, 'fill-form', [form], {
        fields: { name: 'Ana Smith', country: 'Peru', agree: true, tags: ['green'] },
        flatten: true,
      });
      expect(text(filled.result, '-layout')).toMatch(/Ana Smith[\s\S]*Peru/);
      const acroform = JSON.parse(
        execFileSync('qpdf', ['--json', '--json-key=acroform', filled.result], { encoding: 'utf8' }),
      ).acroform;
      expect(acroform).toMatchObject({ hasacroform: false, fields: [] });
      const unfilled = await runJob(server, 'fill-form', [form], { fields: { name: 'Left Open' } });
      const flat = await runJob(server, 'flatten', [unfilled.result]);
      expect(text(flat.result)).toContain('Left Open');

      const key = (await uploadA(server, await readFile(form), 'form.pdf', 'application/pdf')).fileKey;
      const create = (options: Record<string, unknown>) =>
        call(server, 'POST', '/api/jobs/create', {
          json: { operation: 'fill-form', fileKeys: [key], options },
        });
      // What the schema sees is refused when the job is created...
      expectError(await create({ fields: { name: 7 } }), 400, 'INVALID_OPTIONS');
      expectError(await create({}), 400, 'INVALID_OPTIONS');
      // ...what needs the form (its field names, types and options) when the job runs.
      const wrong = await create({ fields: { nmae: 'Ana', agree: 'yes' } });
      expect(wrong.status, wrong.text).toBe(200);
      const failed = await pollJob(server, wrong.body.jobId, undefined, 60_000);
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'INVALID_OPTIONS' } });
      expect(failed.error.message).toMatch(/fields\.nmae: the form has no such field/);
      expect(failed.error.message).toMatch(/fields\.agree: a checkbox takes true or false, not text/);
      expect(failed.error.message).not.toMatch(/\/tmp|fileconv-|input-1/);
    });
  },
);
