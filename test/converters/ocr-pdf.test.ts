/**
 * OCR of PDFs: the 'ocr' operation makes a searchable PDF of a scan (fixtures/ocr/scanned.pdf,
 * an image-only page) or of an image, and pdf -> txt reads scanned pages by OCR. Proved with
 * Poppler, which wrote none of it: pdftotext finds the sentence (at most one wrong word),
 * pdfimages finds the scan's image kept as it was, pdfinfo the page size unchanged. Bad input:
 * a truncated PDF, a PNG named .pdf, an encrypted PDF, a page over the pixel limit, a work budget,
 * an unknown language; nothing is left in the temp dir.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, expect, it, vi } from 'vitest';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../../src/adapters/storage/memory.js';
import type { OperationContext } from '../../src/core/ports/index.js';
import { createEngine } from '../../src/index.js';
import { ocrOperations } from '../../src/operations/ocr/ocr-operation.js';
import { defaultConverters } from '../../src/preset/converters.js';
import { pngClaiming } from '../../src/testing/bad-inputs.js';
import { describeWithEngine } from '../helpers/engines.js';
import { leftovers, tempDir } from '../helpers/temp.js';
import { expectCode, fixture, MAX_PIXELS, type Workspace, workspace } from './converter-harness.js';
import { OCR_TOOLS, SENTENCE, TESSERACT_INSTALL, wrongWords } from './ocr-helpers.js';

const SCANNED_PDF = fixture('ocr/scanned.pdf');
const SENTENCE_PNG = fixture('ocr/sentence.png');

const run = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8' });
const pdfText = (path: string) => run('pdftotext', [path, '-']);
const pageSize = (path: string) => /Page size:\s+(.*) pts/.exec(run('pdfinfo', [path]))?.[1];
/** pdfimages -list rows as [width, height, encoding]. */
const images = (path: string) =>
  run('pdfimages', ['-list', path])
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((line) => line.trim().split(/\s+/))
    .map((cells) => [Number(cells[3]), Number(cells[4]), cells[8]]);

// A page of OCR is seconds of CPU; on a busy machine a test of several pages needs room.
vi.setConfig({ testTimeout: 180_000 });

describeWithEngine('tesseract', OCR_TOOLS, TESSERACT_INSTALL, "the 'ocr' operation (searchable PDF)", () => {
  const [operation] = ocrOperations();
  if (!operation) throw new Error('no ocr operation');

  function operationContext(
    ws: Workspace,
    input: string,
    overrides: Partial<OperationContext> = {},
  ): OperationContext {
    return {
      inputPaths: [input],
      outputPath: join(ws.outputs, 'searchable.pdf'),
      options: operation!.optionsSchema.parse({}),
      tempDir: ws.temp,
      signal: new AbortController().signal,
      limits: { maxPixels: MAX_PIXELS },
      ...overrides,
    };
  }

  it('is available, takes a PDF or an image, writes a PDF', async () => {
    expect(await operation.available()).toMatchObject({ ok: true });
    expect(operation.accepts?.(0)).toEqual(expect.arrayContaining(['pdf', 'png', 'jpg', 'tiff']));
    expect(operation.output({})).toEqual({ format: 'pdf' });
  });

  it('lays the text under a scanned PDF: the sentence is found, the image and the page size kept', async () => {
    const ws = await workspace();
    expect(pdfText(SCANNED_PDF).trim()).toBe(''); // the fixture is a scan with no text at all
    const ctx = operationContext(ws, SCANNED_PDF);
    await operation.run(ctx);
    const text = pdfText(ctx.outputPath);
    expect(wrongWords(SENTENCE, text), text).toBeLessThanOrEqual(1);
    expect(images(ctx.outputPath)).toEqual(images(SCANNED_PDF));
    expect(images(ctx.outputPath)).toEqual([[1275, 825, 'jpeg']]);
    expect(pageSize(ctx.outputPath)).toBe(pageSize(SCANNED_PDF));
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('lines the text up with a page turned by /Rotate 90 (the words run down the page, as its picture does)', async () => {
    const ws = await workspace();
    const turned = join(ws.inputs, 'turned.pdf');
    run('qpdf', [SCANNED_PDF, '--rotate=+90', '--', turned]);
    const ctx = operationContext(ws, turned);
    await operation.run(ctx);
    expect(wrongWords(SENTENCE, pdfText(ctx.outputPath))).toBeLessThanOrEqual(1);
    // pdftotext -bbox gives boxes as the page is shown: turned, 'quick' is taller than wide.
    const box = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">quick</.exec(
      run('pdftotext', ['-bbox', ctx.outputPath, '-']),
    );
    const [xMin, yMin, xMax, yMax] = (box?.slice(1) ?? []).map(Number);
    expect(yMax! - yMin!).toBeGreaterThan(2 * (xMax! - xMin!));
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('makes a searchable PDF of a PNG scan: the image over its text, the page sized by its 300 DPI', async () => {
    const ws = await workspace();
    const ctx = operationContext(ws, SENTENCE_PNG);
    await operation.run(ctx);
    const text = pdfText(ctx.outputPath);
    expect(wrongWords(SENTENCE, text), text).toBeLessThanOrEqual(1);
    expect(images(ctx.outputPath).map(([width, height]) => [width, height])).toEqual([[1628, 214]]);
    expect(pageSize(ctx.outputPath)).toBe('390.72 x 51.36'); // 1628 x 214 px at 300 DPI
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('reads a JPEG scan too (decoded to PNG by the image converter first)', async () => {
    const ws = await workspace();
    const jpeg = join(ws.inputs, 'scan.jpg');
    run('convert', [SENTENCE_PNG, '-quality', '75', jpeg]);
    const ctx = operationContext(ws, jpeg);
    await operation.run(ctx);
    expect(wrongWords(SENTENCE, pdfText(ctx.outputPath))).toBeLessThanOrEqual(1);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('keeps a PDF that has text as it is (no second text layer), unless force', async () => {
    const ws = await workspace();
    const input = fixture('fixture.pdf');
    const ctx = operationContext(ws, input);
    await operation.run(ctx);
    expect(pdfText(ctx.outputPath)).toBe(pdfText(input));
    const forced = join(ws.outputs, 'forced.pdf');
    const options = operation.optionsSchema.parse({ force: true });
    await operation.run({ ...ctx, outputPath: forced, options });
    // The OCR'd words come on top of the page's own: 'fixture' is there twice now.
    expect(pdfText(forced).match(/fixture/g)?.length).toBe(
      2 * (pdfText(input).match(/fixture/g)?.length ?? 0),
    );
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('refuses a truncated PDF and a fake PDF header (CORRUPT_INPUT), an encrypted PDF (PASSWORD_PROTECTED), bytes of no scan (UNSUPPORTED_FORMAT)', async () => {
    const ws = await workspace();
    const truncated = join(ws.inputs, 'truncated.pdf');
    const bytes = await readFile(SCANNED_PDF);
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expectCode(operation.run(operationContext(ws, truncated)), 'CORRUPT_INPUT');
    const text = join(ws.inputs, 'notes.pdf');
    await writeFile(text, '%PDF-1.4\nnot really\n');
    await expectCode(operation.run(operationContext(ws, text)), 'CORRUPT_INPUT');
    const encrypted = join(ws.inputs, 'locked.pdf');
    await copyFile(fixture('bad/encrypted.pdf'), encrypted);
    await expectCode(operation.run(operationContext(ws, encrypted)), 'PASSWORD_PROTECTED');
    const garbage = join(ws.inputs, 'garbage.pdf');
    await writeFile(garbage, 'hello, not a scan');
    await expectCode(operation.run(operationContext(ws, garbage)), 'UNSUPPORTED_FORMAT');
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('refuses a PNG claiming 100,000 x 100,000 pixels, a page or a scan past the work budget (INPUT_LIMIT_EXCEEDED)', async () => {
    const ws = await workspace();
    const bomb = join(ws.inputs, 'bomb.png');
    await writeFile(bomb, pngClaiming(100_000, 100_000));
    await expectCode(operation.run(operationContext(ws, bomb)), 'INPUT_LIMIT_EXCEEDED');
    // 306 x 198 pt at 70 DPI is 298 x 193 pixels: a limit under that leaves no DPI to read it at.
    const tiny = { maxPixels: 50_000 };
    await expectCode(
      operation.run(operationContext(ws, SCANNED_PDF, { limits: tiny })),
      'INPUT_LIMIT_EXCEEDED',
    );
    const budget = { maxPixels: MAX_PIXELS, maxWorkPixels: 100_000 };
    const error = await expectCode(
      operation.run(operationContext(ws, SCANNED_PDF, { limits: budget })),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(error.details).toMatchObject({ budget: 'maxWorkPixels' });
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('refuses a language that is not installed, naming the package (INVALID_OPTIONS)', async () => {
    const ws = await workspace();
    const options = operation.optionsSchema.parse({ languages: ['klingon'] });
    const error = await expectCode(
      operation.run(operationContext(ws, SCANNED_PDF, { options })),
      'INVALID_OPTIONS',
    );
    expect(error.message).toMatch(/tesseract-ocr-klingon/);
    expect(() => operation.optionsSchema.parse({ dpi: 5000 })).toThrow();
    expect(await readdir(ws.temp)).toEqual([]);
  });
});

describeWithEngine('tesseract', OCR_TOOLS, TESSERACT_INSTALL, "an 'ocr' job of the engine", () => {
  it('takes an uploaded PNG scan, refuses an unknown language when the job runs, and leaves nothing', async () => {
    const engineTemp = await tempDir();
    const engine = createEngine({
      storage: createMemoryStorage(),
      jobs: createMemoryJobStore(),
      queue: createMemoryQueue(),
      converters: [],
      operations: ocrOperations(),
      tempDir: engineTemp,
      sweepIntervalMs: 0,
    });
    await engine.start();
    const file = await engine.uploadFile({
      owner: 'a',
      fileName: 'scan.png',
      body: await readFile(SENTENCE_PNG),
    });
    const job = await engine.createJob({ owner: 'a', operation: 'ocr', fileIds: [file.id] });
    const done = await engine.waitForJob(job.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    const result = await engine.openResult(job.id, 'a');
    expect(result.contentType).toBe('application/pdf');
    const ws = await workspace();
    const output = join(ws.outputs, 'result.pdf');
    await writeFile(output, await buffer(result.stream));
    expect(wrongWords(SENTENCE, pdfText(output))).toBeLessThanOrEqual(1);
    const unknown = await engine.createJob({
      owner: 'a',
      operation: 'ocr',
      fileIds: [file.id],
      options: { languages: ['xyz'] },
    });
    const failed = await engine.waitForJob(unknown.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'INVALID_OPTIONS' });
    expect(await leftovers(engineTemp)).toEqual([]);
    await engine.close();
  });
});

describeWithEngine('tesseract', OCR_TOOLS, TESSERACT_INSTALL, 'pdf -> txt of a scanned PDF', () => {
  const engine = createEngine({ converters: defaultConverters() });
  afterAll(() => engine.close());

  it('plans scans straight to OCR, never through a PDF (image -> pdf -> txt would read a re-rendered page)', async () => {
    for (const from of ['png', 'jpg', 'tiff', 'webp', 'gif', 'bmp', 'avif']) {
      expect(
        (await engine.plan(from, 'txt')).steps.map((step) => step.converter),
        from,
      ).toEqual(['ocr']);
    }
  });

  it("reads the scanned page by OCR ('auto', the default), and nothing with ocr: 'never'", async () => {
    const ws = await workspace();
    const output = join(ws.outputs, 'scan.txt');
    const report = await engine.convertFile(SCANNED_PDF, output);
    expect(report.path).toEqual(['pdf', 'txt']);
    const text = await readFile(output, 'utf8');
    expect(wrongWords(SENTENCE, text), text).toBeLessThanOrEqual(1);
    await engine.convertFile(SCANNED_PDF, output, { options: { ocr: 'never' } });
    expect((await readFile(output, 'utf8')).trim()).toBe('');
  });

  it("keeps the text layer of a PDF that has one ('auto'), and refuses an unknown language", async () => {
    const ws = await workspace();
    const auto = join(ws.outputs, 'auto.txt');
    const never = join(ws.outputs, 'never.txt');
    await engine.convertFile(fixture('fixture.pdf'), auto);
    await engine.convertFile(fixture('fixture.pdf'), never, { options: { ocr: 'never' } });
    expect(await readFile(auto, 'utf8')).toBe(await readFile(never, 'utf8'));
    await expectCode(
      engine.convertFile(SCANNED_PDF, join(ws.outputs, 'x.txt'), { options: { languages: ['xyz'] } }),
      'INVALID_OPTIONS',
    );
    await expectCode(
      engine.convertFile(SCANNED_PDF, join(ws.outputs, 'y.txt'), { options: { ocr: 'sometimes' } }),
      'INVALID_OPTIONS',
    );
  });
});
