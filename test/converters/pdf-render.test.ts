/**
 * PDF -> PNG/JPEG: one page at a dpi or width, the background, page selection, every page as a
 * zip written while rendering, and the limits (pixels, pages) that refuse work before it starts.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import * as yauzl from 'yauzl';
import { createPdfConverter } from '../../src/converters/pdf/index.js';
import { context, expectCode, expectNoLeftovers, withOptionsParsed, workspace } from './converter-harness.js';

const converter = withOptionsParsed(createPdfConverter());
/** fixture.pdf is A4: 595.3 x 841.9 points. */
const A4 = { width: 595.3, height: 841.9 };
const pixelsAt = (points: number, dpi: number) => Math.round((points * dpi) / 72);

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

/** Each entry of a zip file: name and bytes, in archive order. */
async function readZip(path: string): Promise<{ name: string; data: Buffer }[]> {
  const zip = await yauzl.openPromise(path);
  const entries: { name: string; data: Buffer }[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      const stream = await zip.openReadStreamPromise(entry);
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      entries.push({ name: entry.fileName, data: Buffer.concat(chunks) });
    }
  } finally {
    zip.close();
  }
  return entries;
}

/** Whether an image has ink: its darkest pixel is well below the white page. */
async function hasDarkPixels(input: string | Buffer): Promise<boolean> {
  const { channels } = await sharp(input).stats();
  return (channels[0]?.min ?? 255) < 100;
}

describe('pdf -> png/jpg', () => {
  it('renders page 1 at 144 dpi by default, with ink on a white page', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'pdf', 'png');
    await converter.convert(ctx);
    const meta = await sharp(ctx.outputPath).metadata();
    expect(meta).toMatchObject({
      format: 'png',
      width: pixelsAt(A4.width, 144),
      height: pixelsAt(A4.height, 144),
    });
    expect(meta.hasAlpha).toBe(false);
    expect(await hasDarkPixels(ctx.outputPath)).toBe(true);
    const { channels } = await sharp(ctx.outputPath).stats();
    expect(channels[0]?.max).toBe(255); // the background is white
  });

  it('honours dpi, width and quality for JPEG', async () => {
    const ws = await workspace();
    const atDpi = context(ws, 'pdf', 'jpg', { options: { dpi: 72, quality: 60 } });
    await converter.convert(atDpi);
    expect(await sharp(atDpi.outputPath).metadata()).toMatchObject({
      format: 'jpeg',
      width: 595,
      height: 842,
    });
    const byWidth = context(ws, 'pdf', 'jpg', {
      outputPath: join(ws.outputs, 'w.jpg'),
      options: { width: 300 },
    });
    await converter.convert(byWidth);
    expect(await sharp(byWidth.outputPath).metadata()).toMatchObject({
      width: 300,
      height: Math.round((300 * A4.height) / A4.width),
    });
    expect(await hasDarkPixels(byWidth.outputPath)).toBe(true);
  });

  it('paints the background colour, and keeps PNG alpha for a transparent one', async () => {
    const ws = await workspace();
    const red = context(ws, 'pdf', 'png', { options: { background: '#ff0000', dpi: 36 } });
    await converter.convert(red);
    const pixel = await sharp(red.outputPath)
      .extract({ left: 1, top: 1, width: 1, height: 1 })
      .raw()
      .toBuffer();
    expect([...pixel]).toEqual([255, 0, 0]);
    const clear = context(ws, 'pdf', 'png', {
      outputPath: join(ws.outputs, 't.png'),
      options: { background: 'transparent', dpi: 36 },
    });
    await converter.convert(clear);
    expect((await sharp(clear.outputPath).metadata()).hasAlpha).toBe(true);
  });

  it('renders the requested page, and refuses a page out of range with the page count', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'three.pdf');
    await numberedPdf(input, 3);
    const ctx = context(ws, 'pdf', 'png', { inputPath: input, options: { page: 3, dpi: 72 } });
    await converter.convert(ctx);
    expect(await sharp(ctx.outputPath).metadata()).toMatchObject({ width: 260, height: 300 });
    await rm(ctx.outputPath); // the failure below must leave the workspace empty
    const error = await expectCode(
      converter.convert(context(ws, 'pdf', 'png', { inputPath: input, options: { page: 4 } })),
      'INVALID_OPTIONS',
    );
    expect(error.details).toMatchObject({ page: 4, pageCount: 3 });
    await expectNoLeftovers(ws);
  });

  it("writes every page into a zip of decodable images for pages: 'all'", async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'three.pdf');
    await numberedPdf(input, 3);
    const progress: number[] = [];
    const ctx = context(ws, 'pdf', 'png', { inputPath: input, options: { pages: 'all', dpi: 72 }, progress });
    await converter.convert(ctx);
    const entries = await readZip(ctx.outputPath);
    expect(entries.map((e) => e.name)).toEqual(['page-001.png', 'page-002.png', 'page-003.png']);
    for (const [index, entry] of entries.entries()) {
      expect(await sharp(entry.data).metadata()).toMatchObject({
        format: 'png',
        width: 220 + 20 * index,
        height: 300,
      });
      expect(await hasDarkPixels(entry.data)).toBe(true);
    }
    expect(progress.length).toBeGreaterThanOrEqual(5); // start, open, a step per page, end
  });

  it('names JPEG pages .jpg and refuses more pages than maxPages', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'three.pdf');
    await numberedPdf(input, 3);
    const ctx = context(ws, 'pdf', 'jpg', { inputPath: input, options: { pages: 'all', dpi: 36 } });
    await converter.convert(ctx);
    expect((await readZip(ctx.outputPath)).map((e) => e.name)).toEqual([
      'page-001.jpg',
      'page-002.jpg',
      'page-003.jpg',
    ]);
    const small = withOptionsParsed(createPdfConverter({ maxPages: 2 }));
    await rm(ctx.outputPath);
    const error = await expectCode(
      small.convert(context(ws, 'pdf', 'png', { inputPath: input, options: { pages: 'all' } })),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(error.details).toMatchObject({ pageCount: 3, maxPages: 2 });
    await expectNoLeftovers(ws);
  });

  it('refuses a page whose raster exceeds the pixel limit, before rendering', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'pdf', 'png', { options: { dpi: 600 }, limits: { maxPixels: 1_000_000 } });
    const error = await expectCode(converter.convert(ctx), 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ width: pixelsAt(A4.width, 600), maxPixels: 1_000_000 });
    await expectNoLeftovers(ws);
  });

  it("makes a one-entry zip of a one-page PDF for pages: 'all'", async () => {
    const ws = await workspace();
    const ctx = context(ws, 'pdf', 'png', { options: { pages: 'all', dpi: 36 } });
    await converter.convert(ctx);
    const entries = await readZip(ctx.outputPath);
    expect(entries.map((e) => e.name)).toEqual(['page-001.png']);
    expect(await hasDarkPixels(entries[0]!.data)).toBe(true);
  });

  it('stops between pages when aborted mid-way, leaving nothing behind', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'three.pdf');
    await numberedPdf(input, 3);
    const controller = new AbortController();
    const ctx = context(ws, 'pdf', 'png', {
      inputPath: input,
      options: { pages: 'all' },
      signal: controller.signal,
      onProgress: (fraction) => {
        if (fraction > 0.05 && fraction < 1) controller.abort(); // after the first page
      },
    });
    await expectCode(converter.convert(ctx), 'CANCELED');
    await expectNoLeftovers(ws);
  });
});
