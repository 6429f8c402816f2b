/**
 * The older and adjacent office formats through one LibreOffice pool: flat ODF (fodt fods fodp),
 * OpenOffice.org 1 (sxw sxc sxi; scripts/make-staroffice-fixtures.mjs),
 * WordPerfect 5.1 (wpd; scripts/make-wordperfect-fixture.mjs), Pages '09 (scripts/make-pages-fixture.mjs), Visio (vsdx; scripts/make-visio-fixture.mjs),
 * Excel 2003 XML (xmlss), SYLK, dBase, PowerPoint shows (ppsx), and Draw's drawings and metafiles
 * (odg emf wmf). Each fixture (scripts/make-office-legacy-fixtures.sh) goes to its main targets,
 * read back with independent tools: pdftotext and pdfinfo (poppler), exceljs for workbooks,
 * ImageMagick's identify for PNG; written files are also detected from their bytes. Then broken
 * inputs (truncated, lying about their extension) with their stable codes, nothing left behind.
 * Also two LibreOffice defects of issue 17: a warm worker crashing under a conversion (retried
 * once cold; no backtrace in messages) and a docx whose zip spells '[content_types].xml'.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { createLibreOfficeConverter } from '../../src/converters/libreoffice/index.js';
import { withoutBacktrace } from '../../src/converters/libreoffice/libreoffice-errors.js';
import { detectFormat } from '../../src/core/formats/index.js';
import { createEngine } from '../../src/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  context,
  contextFor,
  DATA_ROWS,
  DOC_TEXT,
  expectCode,
  expectNoLeftovers,
  fixture,
  LO_AVAILABLE,
  LO_INSTALL,
  readWorkbook,
  SECOND_ROWS,
  textOf,
  workspace,
} from './libreoffice-helpers.js';

const run = promisify(execFile);

/** Text of a PDF as poppler's pdftotext extracts it, and its page count from pdfinfo. */
async function popplerPdf(path: string): Promise<{ pages: number; text: string }> {
  const { stdout: text } = await run('pdftotext', ['-enc', 'UTF-8', path, '-']);
  const { stdout: info } = await run('pdfinfo', [path]);
  return { pages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]), text: text.replace(/\s+/g, ' ') };
}

async function detected(path: string): Promise<string | undefined> {
  return detectFormat((await readFile(path)).subarray(0, 64 * 1024));
}

const DRAWING_TEXT = ['fileconv drawing', 'Привет, vector shapes.'];

it('declares the new edges with honest lossiness', () => {
  const converter = withOptionsParsed(createLibreOfficeConverter());
  const edge = (from: string, to: string) => converter.edges.find((e) => e.from === from && e.to === to);
  expect(edge('fodt', 'pdf')).toMatchObject({ lossy: false });
  expect(edge('docx', 'fodt')).toMatchObject({ lossy: false });
  expect(edge('xlsx', 'dbf')).toMatchObject({ lossy: true });
  expect(edge('dbf', 'csv')).toMatchObject({ lossy: false });
  expect(edge('xmlss', 'xlsx')).toMatchObject({ lossy: false });
  expect(edge('emf', 'svg')).toMatchObject({ lossy: false });
  expect(edge('wmf', 'png')).toMatchObject({ lossy: true });
  expect(edge('odg', 'emf')).toBeDefined();
  expect(edge('ppsx', 'pptx')).toBeDefined();
  expect(edge('emf', 'docx')).toBeUndefined();
});

it('keeps a crash backtrace out of error messages, and the lines around it in', () => {
  const output = [
    'Fatal exception: Signal 11',
    'Stack:',
    '/usr/lib/libreoffice/program/libuno_sal.so.3(+0x3f4d2)[0x7f5c1b23f4d2]',
    '/usr/lib/libreoffice/program/libmergedlo.so(_ZN3sfx2+0x12)[0x7f5c19a0c012]',
    '/lib/x86_64-linux-gnu/libc.so.6(+0x3c050)[0x7f5c1ae5b050]',
    '#3 0x00007f5c1ae5b050 in raise () from /lib/x86_64-linux-gnu/libc.so.6',
    'Unspecified Application Error',
  ].join('\n');
  expect(withoutBacktrace(output)).toEqual(['Fatal exception: Signal 11', 'Unspecified Application Error']);
});

describeWithEngine('LibreOffice', LO_AVAILABLE, LO_INSTALL, 'libreoffice older and adjacent formats', () => {
  const converter = withOptionsParsed(createLibreOfficeConverter({ poolSize: 2 }));
  afterAll(() => converter.close());

  it('converts a flat ODF text to pdf and docx with its text', async () => {
    const ws = await workspace();
    const pdf = context(ws, 'fodt', 'pdf');
    await converter.convert(pdf);
    const { pages, text } = await popplerPdf(pdf.outputPath);
    expect(pages).toBe(1);
    for (const line of DOC_TEXT) expect(text).toContain(line);
    const docx = context(ws, 'fodt', 'docx');
    await converter.convert(docx);
    const back = await textOf(converter, ws, docx.outputPath, 'docx');
    for (const line of DOC_TEXT) expect(back).toContain(line);
  });

  it('converts an OpenOffice.org 1 text (sxw) to pdf and docx with its text', async () => {
    const ws = await workspace();
    const pdf = context(ws, 'sxw', 'pdf');
    await converter.convert(pdf);
    const { pages, text } = await popplerPdf(pdf.outputPath);
    expect(pages).toBe(1);
    for (const line of DOC_TEXT) expect(text).toContain(line);
    const docx = context(ws, 'sxw', 'docx');
    await converter.convert(docx);
    const back = await textOf(converter, ws, docx.outputPath, 'docx');
    for (const line of DOC_TEXT) expect(back).toContain(line);
  });

  it('converts an Apple Pages document to pdf and odt with its text', async () => {
    const ws = await workspace();
    const lines = ['fileconv fixture', 'The quick brown fox jumps over the lazy dog.'];
    const pdf = context(ws, 'pages', 'pdf');
    await converter.convert(pdf);
    const { text } = await popplerPdf(pdf.outputPath);
    for (const line of lines) expect(text).toContain(line);
    const odt = context(ws, 'pages', 'odt');
    await converter.convert(odt);
    const back = await textOf(converter, ws, odt.outputPath, 'odt');
    for (const line of lines) expect(back).toContain(line);
  });

  it('converts a WordPerfect 5.1 document to pdf and docx with its text', async () => {
    const ws = await workspace();
    const lines = ['fileconv fixture', 'The quick brown fox jumps over the lazy dog.'];
    const pdf = context(ws, 'wpd', 'pdf');
    await converter.convert(pdf);
    const { pages, text } = await popplerPdf(pdf.outputPath);
    expect(pages).toBe(1);
    for (const line of lines) expect(text).toContain(line);
    const docx = context(ws, 'wpd', 'docx');
    await converter.convert(docx);
    const back = await textOf(converter, ws, docx.outputPath, 'docx');
    for (const line of lines) expect(back).toContain(line);
  });

  it('writes docx as flat ODF text, detected as fodt and reading back', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'docx', 'fodt');
    await converter.convert(ctx);
    expect(await detected(ctx.outputPath)).toBe('fodt');
    const back = await textOf(converter, ws, ctx.outputPath, 'fodt');
    for (const line of DOC_TEXT) expect(back).toContain(line);
  });

  it.each(['fods', 'xmlss', 'sxc'])('converts %s to xlsx keeping both sheets cell by cell', async (from) => {
    const ws = await workspace();
    const ctx = context(ws, from, 'xlsx');
    await converter.convert(ctx);
    expect(await readWorkbook(ctx.outputPath)).toEqual({ Data: DATA_ROWS, Second: SECOND_ROWS });
  });

  it('converts SYLK to xlsx with its one sheet', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'slk', 'xlsx');
    await converter.convert(ctx);
    const [rows] = Object.values(await readWorkbook(ctx.outputPath));
    expect(rows?.slice(0, 2)).toEqual(DATA_ROWS.slice(0, 2));
    expect(rows?.map((row) => row[0])).toEqual(['name', 'alpha', 'beta', 'gamma']);
  });

  it('converts a dBase table to xlsx and pdf with its fields and records', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'dbf', 'xlsx');
    await converter.convert(ctx);
    const [rows] = Object.values(await readWorkbook(ctx.outputPath));
    // LibreOffice heads each column with the field's name, type and width.
    expect(rows?.[0]?.map((cell) => cell.split(',')[0])).toEqual(['NAME', 'VALUE', 'NOTE']);
    expect(rows?.slice(1).map((row) => row.slice(0, 2))).toEqual([
      ['alpha', '1'],
      ['beta', '2.5'],
      ['gamma', '-3'],
    ]);
    const pdf = context(ws, 'dbf', 'pdf');
    await converter.convert(pdf);
    expect((await popplerPdf(pdf.outputPath)).text).toContain('line with "quotes"');
  });

  it.each([
    ['fods', 'fods'],
    ['xmlss', 'xmlss'],
    ['slk', 'slk'],
    ['dbf', 'dbf'],
  ])('writes xlsx as %s, detected from its bytes and reading back', async (to, name) => {
    const ws = await workspace();
    const ctx = context(ws, 'xlsx', to);
    await converter.convert(ctx);
    expect(await detected(ctx.outputPath)).toBe(name);
    const back = contextFor(ws, ctx.outputPath, to, 'xlsx', `back-${to}.xlsx`);
    await converter.convert(back);
    const [rows] = Object.values(await readWorkbook(back.outputPath));
    expect(rows?.flat().join(' ')).toContain('alpha');
    expect(rows?.flat().join(' ')).toContain('gamma');
  });

  it.each(['fodp', 'ppsx', 'sxi'])('converts %s to pdf with two pages, one per slide', async (from) => {
    const ws = await workspace();
    const ctx = context(ws, from, 'pdf');
    await converter.convert(ctx);
    const { pages, text } = await popplerPdf(ctx.outputPath);
    expect(pages).toBe(2);
    for (const line of ['fileconv fixture', 'Second slide']) expect(text).toContain(line);
  });

  it('writes pptx as a slide show and as flat ODF, each reading back with both slides', async () => {
    const ws = await workspace();
    for (const to of ['ppsx', 'fodp']) {
      const ctx = context(ws, 'pptx', to);
      await converter.convert(ctx);
      const pdf = contextFor(ws, ctx.outputPath, to, 'pdf', `back-${to}.pdf`);
      await converter.convert(pdf);
      expect((await popplerPdf(pdf.outputPath)).pages).toBe(2);
    }
  });

  it.each(['odg', 'emf', 'wmf'])('converts a %s drawing to pdf with its text', async (from) => {
    const ws = await workspace();
    const ctx = context(ws, from, 'pdf');
    await converter.convert(ctx);
    const { pages, text } = await popplerPdf(ctx.outputPath);
    expect(pages).toBe(1);
    for (const line of DRAWING_TEXT) expect(text).toContain(line);
  });

  it('converts a Visio drawing to pdf and png', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'vsdx', 'pdf');
    await converter.convert(ctx);
    const { pages, text } = await popplerPdf(ctx.outputPath);
    expect(pages).toBe(1);
    for (const line of ['fileconv diagram', 'A Visio shape with text.']) expect(text).toContain(line);
    const png = context(ws, 'vsdx', 'png');
    await converter.convert(png);
    const { stdout } = await run('identify', ['-format', '%m', png.outputPath]);
    expect(stdout).toBe('PNG');
  });

  it.each(['odg', 'emf', 'wmf'])('converts a %s drawing to png and svg', async (from) => {
    const ws = await workspace();
    const png = context(ws, from, 'png');
    await converter.convert(png);
    const { stdout } = await run('identify', ['-format', '%m %w %h', png.outputPath]);
    const [format, width, height] = stdout.split(' ');
    expect(format).toBe('PNG');
    expect(Number(width)).toBeGreaterThan(100);
    expect(Number(height)).toBeGreaterThan(50);
    const svg = context(ws, from, 'svg');
    await converter.convert(svg);
    expect(await detected(svg.outputPath)).toBe('svg');
    expect(await readFile(svg.outputPath, 'utf8')).toContain('<svg');
  });

  it.each(['emf', 'wmf'])('writes a drawing as %s, detected from its bytes', async (to) => {
    const ws = await workspace();
    const ctx = context(ws, 'odg', to);
    await converter.convert(ctx);
    expect(await detected(ctx.outputPath)).toBe(to);
  });

  it('retries once in a cold soffice when the warm one crashes under a conversion', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'docx', 'pdf', {
      onProgress: (fraction) => {
        // The job has its worker: kill that worker's soffice before it can answer.
        const busy = converter.stats()?.workers.find((worker) => worker.busy);
        if (fraction === 0.1 && busy) process.kill(busy.sofficePid, 'SIGKILL');
      },
    });
    const lostBefore = converter.stats()?.lost ?? 0;
    await converter.convert(ctx);
    expect(converter.stats()?.lost).toBe(lostBefore + 1);
    const { text } = await popplerPdf(ctx.outputPath);
    for (const line of DOC_TEXT) expect(text).toContain(line);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('converts a docx whose zip names its content types in lower case', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'lower.docx');
    // Python's zipfile, an independent zip writer: every entry copied, one name respelt.
    await run('python3', [
      '-c',
      [
        'import sys, zipfile',
        'src = zipfile.ZipFile(sys.argv[1])',
        "out = zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED)",
        'for item in src.infolist():',
        "    name = '[content_types].xml' if item.filename == '[Content_Types].xml' else item.filename",
        '    out.writestr(name, src.read(item.filename))',
        'out.close()',
      ].join('\n'),
      fixture('fixture.docx'),
      input,
    ]);
    const { stdout: listing } = await run('python3', ['-m', 'zipfile', '-l', input]);
    expect(listing).toContain('[content_types].xml');
    const ctx = contextFor(ws, input, 'docx', 'pdf');
    await converter.convert(ctx);
    const { text } = await popplerPdf(ctx.outputPath);
    for (const line of DOC_TEXT) expect(text).toContain(line);
    // The upload itself is left as it was: only the staged copy is respelt.
    const { stdout: after } = await run('python3', ['-m', 'zipfile', '-l', input]);
    expect(after).toContain('[content_types].xml');
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it.each([
    ['fodt', 'pdf'],
    ['xmlss', 'xlsx'],
    ['odg', 'pdf'],
    ['emf', 'pdf'],
    ['wmf', 'pdf'],
    ['dbf', 'xlsx'],
    ['sxc', 'xlsx'],
    ['sxw', 'pdf'],
    ['vsdx', 'pdf'],
    ['wpd', 'pdf'],
  ])('fails a truncated %s with CORRUPT_INPUT', async (from, to) => {
    const ws = await workspace();
    const input = join(ws.inputs, `truncated.${from}`);
    const bytes = await readFile(fixture(`fixture.${from}`));
    await writeFile(input, bytes.subarray(0, Math.floor(bytes.length / 3)));
    await expectCode(converter.convert(contextFor(ws, input, from, to)), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });
});

describeWithEngine('LibreOffice', LO_AVAILABLE, LO_INSTALL, 'older office formats through the engine', () => {
  const engine = createEngine({ converters: [createLibreOfficeConverter({ poolSize: 1 })] });
  afterAll(() => engine.close());

  it.each([
    ['fixture.png', 'drawing.emf'],
    ['fixture.docx', 'table.dbf'],
    ['fixture.pdf', 'sheet.xmlss'],
  ])('refuses %s named %s with CONTENT_MISMATCH', async (real, lying) => {
    const ws = await workspace();
    const input = join(ws.inputs, lying);
    await writeFile(input, await readFile(fixture(real)));
    await expectCode(engine.convertFile(input, join(ws.outputs, 'out.pdf')), 'CONTENT_MISMATCH');
  });

  it('detects each new fixture from its bytes and converts it by name alone', async () => {
    const ws = await workspace();
    const report = await engine.convertFile(fixture('fixture.wmf'), join(ws.outputs, 'drawing.pdf'));
    expect(report).toMatchObject({ from: 'wmf', to: 'pdf', path: ['wmf', 'pdf'] });
  });
});
