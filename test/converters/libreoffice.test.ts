/**
 * The LibreOffice converter: declared edges and how the graph uses them, factory options, and
 * documents on the warm pool (every target of docx, every source to pdf) with the result read
 * back for content: PDF pages and text with pdf.js, documents converted back to text. Cold mode
 * once. Spreadsheets and presentations are in libreoffice-sheets-slides.test.ts, pool behaviour
 * in libreoffice-pool.test.ts, hostile inputs in libreoffice-safety.test.ts.
 */
import { readdir, readFile } from 'node:fs/promises';
import { afterAll, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { createLibreOfficeConverter } from '../../src/converters/libreoffice/index.js';
import { ConversionGraph } from '../../src/core/graph/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { expectProgressRun, withOptionsParsed } from './converter-harness.js';
import {
  context,
  contextFor,
  DOC_TEXT,
  expectCode,
  expectNoLeftovers,
  LO_AVAILABLE,
  LO_INSTALL,
  readPdf,
  textOf,
  workspace,
} from './libreoffice-helpers.js';

it('declares honest edges: layout-keeping targets are lossless, text/csv/html/epub are not', () => {
  const converter = withOptionsParsed(createLibreOfficeConverter());
  const edge = (from: string, to: string) => converter.edges.find((e) => e.from === from && e.to === to);
  expect(edge('docx', 'pdf')).toEqual({ from: 'docx', to: 'pdf', cost: 4, lossy: false });
  expect(edge('docx', 'txt')?.lossy).toBe(true);
  expect(edge('xlsx', 'csv')?.lossy).toBe(true);
  expect(edge('csv', 'xlsx')?.lossy).toBe(false);
  expect(edge('txt', 'html')?.lossy).toBe(false);
  expect(edge('key', 'pptx')?.lossy).toBe(false);
  expect(edge('docx', 'docx')).toBeUndefined();
  expect(edge('pptx', 'txt')).toBeUndefined();
  // Templates and macro-enabled files open like their documents.
  expect(edge('dotx', 'pdf')).toEqual({ from: 'dotx', to: 'pdf', cost: 4, lossy: false });
  expect(edge('xlsm', 'csv')?.lossy).toBe(true);
  expect(edge('otp', 'pptx')?.lossy).toBe(false);
  // 13 x 8 documents, 12 x 10 spreadsheets, 10 x 5 presentations, 4 x 6 drawings, less the self edges.
  expect(converter.edges).toHaveLength(13 * 8 - 6 + (12 * 10 - 8) + (10 * 5 - 4) + (4 * 6 - 3));
});

it('wins docx -> pdf in one lossless step over a cheaper lossy detour through txt', () => {
  const cheapText = {
    name: 'text',
    edges: [
      { from: 'docx', to: 'txt', cost: 1, lossy: true },
      { from: 'txt', to: 'pdf', cost: 1 },
    ],
  };
  const graph = ConversionGraph.fromConverters([cheapText, createLibreOfficeConverter()]);
  const plan = graph.findPath('docx', 'pdf');
  expect(plan?.steps.map((step) => step.converter)).toEqual(['libreoffice']);
  expect(plan?.lossySteps).toBe(0);
});

it.each([
  [{ poolSize: 0 }, 'poolSize'],
  [{ mode: 'warm' }, 'mode'],
  [{ timeoutMs: -1 }, 'timeoutMs'],
  [{ poolsize: 2 }, 'poolsize'],
])('refuses the factory option %o with INVALID_OPTIONS naming it', (bad, name) => {
  const error = (() => {
    try {
      createLibreOfficeConverter(bad as never);
    } catch (thrown) {
      return thrown as { code?: string; message: string };
    }
    return undefined;
  })();
  expect(error?.code).toBe('INVALID_OPTIONS');
  expect(error?.message).toContain(name);
});

describeWithEngine('LibreOffice', LO_AVAILABLE, LO_INSTALL, 'libreoffice converter (warm pool)', () => {
  const converter = withOptionsParsed(createLibreOfficeConverter({ poolSize: 2 }));
  afterAll(() => converter.close());

  it('reports the pool in available() without starting anything', async () => {
    const fresh = withOptionsParsed(
      createLibreOfficeConverter({ onSpawn: () => expect.unreachable('nothing may start') }),
    );
    const availability = await fresh.available();
    expect(availability).toMatchObject({ ok: true });
    expect(availability.version).toMatch(/^LibreOffice \d+\.\d+.* \(warm pool, .+\)$/);
    expect(fresh.stats()).toMatchObject({ workers: [], started: 0 });
    await fresh.close();
  });

  it('falls back to cold runs without a Python that has uno, and says why', async () => {
    const auto = withOptionsParsed(createLibreOfficeConverter({ pythonPath: '/bin/false' }));
    const availability = await auto.available();
    expect(availability).toMatchObject({ ok: true, install: expect.stringContaining('python3-uno') });
    expect(availability.version).toMatch(/cold fallback/);
    expect(availability.reason).toMatch(/python3-uno/);
    const strict = withOptionsParsed(createLibreOfficeConverter({ mode: 'pool', pythonPath: '/bin/false' }));
    expect(await strict.available()).toMatchObject({ ok: false, reason: expect.stringMatching(/pool/) });
    const ws = await workspace();
    await expectCode(strict.convert(context(ws, 'docx', 'pdf')), 'ENGINE_UNAVAILABLE');
    await expectNoLeftovers(ws);
    await Promise.all([auto.close(), strict.close()]);
  });

  it('converts docx to pdf with the text on one page, reporting progress and CPU time', async () => {
    const ws = await workspace();
    const progress: number[] = [];
    const ctx = context(ws, 'docx', 'pdf', { progress });
    const result = await converter.convert(ctx);
    const pdf = await readPdf(ctx.outputPath);
    expect(pdf.pages).toBe(1);
    for (const text of DOC_TEXT) expect(pdf.text).toContain(text);
    expectProgressRun(progress);
    expect(result?.cpuMs).toBeGreaterThan(0);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it.each(['odt', 'rtf'])('converts docx to %s, which reads back with the text', async (to) => {
    const ws = await workspace();
    const ctx = context(ws, 'docx', to);
    await converter.convert(ctx);
    const text = await textOf(converter, ws, ctx.outputPath, to);
    for (const line of DOC_TEXT) expect(text).toContain(line);
  });

  it('converts odt to docx, which reads back with the text', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'odt', 'docx');
    await converter.convert(ctx);
    const text = await textOf(converter, ws, ctx.outputPath, 'docx');
    for (const line of DOC_TEXT) expect(text).toContain(line);
  });

  it('converts docx to UTF-8 txt without a byte-order mark, and to html and epub', async () => {
    const ws = await workspace();
    const txt = context(ws, 'docx', 'txt');
    await converter.convert(txt);
    const bytes = await readFile(txt.outputPath);
    expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
    for (const line of DOC_TEXT) expect(bytes.toString('utf8')).toContain(line);

    const html = context(ws, 'docx', 'html');
    await converter.convert(html);
    const page = await readFile(html.outputPath, 'utf8');
    expect(page).toMatch(/<html/i);
    for (const line of DOC_TEXT) expect(page).toContain(line);

    const epub = context(ws, 'docx', 'epub');
    await converter.convert(epub);
    const zip = await yauzl.openPromise(epub.outputPath);
    let book = '';
    for await (const entry of zip.eachEntry()) {
      if (!entry.fileName.endsWith('.xhtml')) continue;
      for await (const chunk of await zip.openReadStreamPromise(entry)) book += String(chunk);
    }
    zip.close();
    for (const line of DOC_TEXT) expect(book).toContain(line);
  });

  it.each([
    ['doc', DOC_TEXT],
    ['odt', DOC_TEXT],
    ['rtf', ['fileconv RTF fixture.', 'café']],
    // Not the CJK words: without a CJK font installed they come out of pdf.js as tofu.
    ['txt', ['fileconv plain-text fixture.', 'café, naïve']],
    ['html', ['fileconv fixture', 'An HTML page with a list and a table.']],
  ])('converts %s to pdf with its text', async (from, lines) => {
    const ws = await workspace();
    const ctx = context(ws, from, 'pdf');
    await converter.convert(ctx);
    const pdf = await readPdf(ctx.outputPath);
    expect(pdf.pages).toBeGreaterThanOrEqual(1);
    for (const line of lines) expect(pdf.text).toContain(line);
  });

  it('refuses an edge it does not have, and unknown options', async () => {
    const ws = await workspace();
    await expectCode(converter.convert(context(ws, 'pptx', 'docx')), 'UNSUPPORTED_CONVERSION');
    await expectCode(
      converter.convert(context(ws, 'docx', 'pdf', { options: { qualty: 3 } })),
      'INVALID_OPTIONS',
    );
    await expectNoLeftovers(ws);
  });
});

describeWithEngine('LibreOffice', LO_AVAILABLE, LO_INSTALL, 'libreoffice converter (cold mode)', () => {
  const converter = withOptionsParsed(createLibreOfficeConverter({ mode: 'cold' }));
  afterAll(() => converter.close());

  it('says so in available() and converts docx to pdf with one soffice of its own', async () => {
    expect((await converter.available()).version).toMatch(/\(cold: one soffice per document\)/);
    const ws = await workspace();
    const ctx = context(ws, 'docx', 'pdf');
    const result = await converter.convert(ctx);
    const pdf = await readPdf(ctx.outputPath);
    for (const text of DOC_TEXT) expect(pdf.text).toContain(text);
    expect(result?.cpuMs).toBeGreaterThan(0);
    expect(converter.stats()).toBeUndefined();
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('reads csv as UTF-8 there too', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'csv', 'ods');
    await converter.convert(ctx);
    const back = contextFor(ws, ctx.outputPath, 'ods', 'csv', 'back.csv');
    await converter.convert(back);
    expect(await readFile(back.outputPath, 'utf8')).toContain('gamma,-3,café');
  });
});
