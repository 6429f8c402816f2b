/**
 * The PDF converter's contract (edges, options schemas, packaging, availability, progress, abort)
 * and PDF -> text. Rendering is in pdf-render.test.ts, images -> PDF in pdf-images.test.ts, broken
 * and hostile PDFs in pdf-inputs.test.ts.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { createPdfConverter } from '../../src/converters/pdf/index.js';
import { context, expectCode, expectNoLeftovers, withOptionsParsed, workspace } from './converter-harness.js';

const converter = withOptionsParsed(createPdfConverter());

/** A PDF of `count` pages, each a different size and saying its number in big letters. */
async function numberedPdf(path: string, count: number): Promise<void> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.HelveticaBold);
  for (let n = 1; n <= count; n++) {
    const page = pdf.addPage([200 + 20 * n, 300]);
    page.drawText(`Page ${n}`, { x: 20, y: 150, size: 36, font });
  }
  await writeFile(path, await pdf.save());
}

describe('contract', () => {
  it('declares pdf -> txt/png/jpg and sharp-readable images -> pdf', () => {
    const edges = converter.edges.map((e) => `${e.from}->${e.to}`);
    expect(edges).toEqual(
      expect.arrayContaining([
        'pdf->txt',
        'pdf->png',
        'pdf->jpg',
        'jpg->pdf',
        'png->pdf',
        'gif->pdf',
        'tiff->pdf',
      ]),
    );
    expect(edges).not.toContain('bmp->pdf'); // routed through the image converter
    const edge = (from: string, to: string) => converter.edges.find((e) => e.from === from && e.to === to);
    expect(edge('pdf', 'png')).toMatchObject({ cost: 2, lossy: true });
    expect(edge('pdf', 'txt')?.lossy).toBe(true);
    expect(edge('png', 'pdf')?.lossy).toBe(false);
    expect(edge('jpg', 'pdf')?.lossy).toBe(false);
  });

  it('validates factory options', () => {
    expect(() => createPdfConverter({ maxPages: 0 })).toThrow(/maxPages/);
    expect(() => createPdfConverter({ bogus: true } as never)).toThrow(/bogus/);
  });

  it('is available, naming the pdf.js version', async () => {
    expect(await converter.available()).toMatchObject({
      ok: true,
      version: expect.stringMatching(/^pdfjs-dist 5\./),
    });
  });

  it('has strict option schemas per target', () => {
    const schema = (to: string) => converter.optionsSchema!(to);
    expect(schema('png').safeParse({ page: 2, dpi: 300 }).success).toBe(true);
    expect(schema('png').safeParse({ quality: 80 }).success).toBe(false); // no quality for PNG
    expect(schema('jpg').safeParse({ quality: 80, width: 800 }).success).toBe(true);
    expect(schema('png').safeParse({ dpi: 20 }).success).toBe(false);
    expect(schema('png').safeParse({ dpi: 144, width: 800 }).success).toBe(false);
    expect(schema('png').safeParse({ page: 1, pages: 'all' }).success).toBe(false);
    expect(schema('png').safeParse({ background: 'url(x)' }).success).toBe(false);
    expect(schema('txt').safeParse({ page: 1 }).success).toBe(false);
    expect(schema('pdf').safeParse({ dpi: 300 }).success).toBe(true);
  });

  it('packages every page as a zip, and one page as itself', () => {
    // packaging() is given options as the engine parsed them.
    const parsed = (to: string, options: object) => converter.optionsSchema!(to).parse(options);
    expect(converter.packaging!('png', parsed('png', { pages: 'all' }))).toBe('zip');
    expect(converter.packaging!('jpg', parsed('jpg', { pages: 'all' }))).toBe('zip');
    expect(converter.packaging!('png', parsed('png', { page: 2 }))).toBeUndefined();
    expect(converter.packaging!('txt', parsed('txt', {}))).toBeUndefined();
  });

  it('reports progress from 0 to 1 and CPU time', async () => {
    const ws = await workspace();
    const progress: number[] = [];
    const result = await converter.convert(context(ws, 'pdf', 'png', { progress }));
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(1);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(result?.cpuMs).toBeGreaterThan(0);
  });

  it('throws CANCELED when the signal is already aborted', async () => {
    const ws = await workspace();
    const controller = new AbortController();
    controller.abort();
    await expectCode(converter.convert(context(ws, 'pdf', 'txt', { signal: controller.signal })), 'CANCELED');
    await expectNoLeftovers(ws);
  });
});

describe('pdf -> txt', () => {
  it('extracts the text of the page, Cyrillic included, line by line', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'pdf', 'txt');
    await converter.convert(ctx);
    const out = await readFile(ctx.outputPath, 'utf8');
    expect(out).toContain('fileconv fixture\n');
    expect(out).toContain('The quick brown fox jumps over the lazy dog.\n');
    expect(out).toContain('Привет мир');
    expect(out.endsWith('\n')).toBe(true);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('joins the spacing accents TeX draws before a letter (¨a -> ä), as pdftotext does', async () => {
    // The survey's TeX PDF gave "Wirtschaftsuniversit¨at".
    const ws = await workspace();
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const page = doc.addPage([500, 200]);
    page.drawText('Wirtschaftsuniversit\u00a8at Gr\u00a8o\u00dfe \u02c6etre s\u00b4eance', {
      x: 20,
      y: 120,
      size: 14,
      font,
    });
    page.drawText('it\u00b4s don`t \u00a8 alone', { x: 20, y: 80, size: 14, font });
    const input = join(ws.inputs, 'accents.pdf');
    await writeFile(input, await doc.save());
    const ctx = context(ws, 'pdf', 'txt', { inputPath: input });
    await converter.convert(ctx);
    expect(await readFile(ctx.outputPath, 'utf8')).toBe(
      'Wirtschaftsuniversit\u00e4t Gr\u00f6\u00dfe \u00eatre s\u00e9ance\nit\u00b4s don`t \u00a8 alone\n',
    );
  });

  it('keeps pages in order, separated by form feeds', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'three.pdf');
    await numberedPdf(input, 3);
    const ctx = context(ws, 'pdf', 'txt', { inputPath: input });
    await converter.convert(ctx);
    expect(await readFile(ctx.outputPath, 'utf8')).toBe('Page 1\n\fPage 2\n\fPage 3\n');
  });

  it('stops at maxTextBytes with INPUT_LIMIT_EXCEEDED, leaving nothing behind', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'pages.pdf');
    await numberedPdf(input, 40);
    // 40 pages of "Page N\n" and a form feed each: about 350 bytes in all.
    const capped = withOptionsParsed(createPdfConverter({ maxTextBytes: 100 }));
    const error = await expectCode(
      capped.convert(context(ws, 'pdf', 'txt', { inputPath: input })),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(error.details).toMatchObject({ maxTextBytes: 100, pages: 40 });
    await expectNoLeftovers(ws);
  });
});
