/**
 * Images -> PDF: one page per image or frame, each sized to its image at the dpi, JPEG embedded
 * byte for byte (with its EXIF orientation applied by the drawing, not by re-encoding), and the
 * result readable by pdf.js. Every output is read back with pdf.js, as any viewer would.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createPdfConverter } from '../../src/converters/pdf/index.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const converter = withOptionsParsed(createPdfConverter());

/** Page sizes in points, read with pdf.js. */
async function pageSizes(path: string): Promise<[number, number][]> {
  const doc = await getDocument({ data: new Uint8Array(await readFile(path)), verbosity: 0 }).promise;
  try {
    const sizes: [number, number][] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const { width, height } = (await doc.getPage(n)).getViewport({ scale: 1 });
      sizes.push([Math.round(width * 100) / 100, Math.round(height * 100) / 100]);
    }
    return sizes;
  } finally {
    await doc.destroy();
  }
}

/** Renders page `page` of a PDF back to PNG with the converter itself; returns the raw greyscale pixels. */
async function renderBack(ws: Awaited<ReturnType<typeof workspace>>, pdf: string, dpi = 72) {
  const ctx = context(ws, 'pdf', 'png', {
    inputPath: pdf,
    outputPath: join(ws.outputs, 'back.png'),
    options: { dpi },
  });
  await converter.convert(ctx);
  return sharp(ctx.outputPath).greyscale().raw().toBuffer({ resolveWithObject: true });
}

describe('images -> pdf', () => {
  it.each(['png', 'jpg', 'webp', 'avif', 'tiff'])(
    'makes one page the size of fixture.%s at 72 dpi',
    async (from) => {
      const ws = await workspace();
      const ctx = context(ws, from, 'pdf');
      await converter.convert(ctx);
      const { width, height } = await sharp(fixture(`fixture.${from}`)).metadata();
      expect(await pageSizes(ctx.outputPath)).toEqual([[width, height]]);
      expect(await readdir(ws.temp)).toEqual([]); // the scratch file was moved into place
    },
  );

  it('makes a page per page of a multi-page TIFF, sized by the resolution the scan records', async () => {
    const ws = await workspace();
    // Three pages of a 300 dpi scan of a Letter page (2550x3300 pixels), written by sharp.
    const page = (grey: number) =>
      sharp({ create: { width: 2550, height: 3300, channels: 3, background: { r: grey, g: grey, b: grey } } })
        .png()
        .toBuffer();
    const input = join(ws.inputs, 'scan.tiff');
    const pages = await Promise.all([40, 120, 200].map(page));
    await sharp(pages, { join: { animated: true } })
      .withMetadata({ density: 300 })
      .tiff({ compression: 'lzw', xres: 300 / 25.4, yres: 300 / 25.4 })
      .toFile(input);
    expect((await sharp(input).metadata()).pages).toBe(3);
    const ctx = context(ws, 'tiff', 'pdf', { inputPath: input });
    await converter.convert(ctx);
    // 8.5 x 11 inches: the scan's 300 dpi, not 72 (which made a 2550 x 3300 point page).
    expect(await pageSizes(ctx.outputPath)).toEqual([
      [612, 792],
      [612, 792],
      [612, 792],
    ]);
    // The dpi option still wins over what the file records.
    const at150 = context(ws, 'tiff', 'pdf', {
      inputPath: input,
      outputPath: join(ws.outputs, '150.pdf'),
      options: { dpi: 150 },
    });
    await converter.convert(at150);
    expect((await pageSizes(at150.outputPath))[0]).toEqual([1224, 1584]);
  });

  it('sizes pages by the dpi option', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'png', 'pdf', { options: { dpi: 144 } });
    await converter.convert(ctx);
    expect(await pageSizes(ctx.outputPath)).toEqual([[32, 24]]); // 64x48 pixels at 144 dpi
  });

  it('makes a page per frame of an animated GIF and WebP', async () => {
    const ws = await workspace();
    for (const from of ['gif', 'webp']) {
      const input = from === 'webp' ? fixture('fixture-animated.webp') : fixture('fixture.gif');
      const { pages, width, pageHeight, height } = await sharp(input).metadata();
      expect(pages).toBeGreaterThan(1);
      const ctx = context(ws, from, 'pdf', { inputPath: input, outputPath: join(ws.outputs, `${from}.pdf`) });
      await converter.convert(ctx);
      const sizes = await pageSizes(ctx.outputPath);
      expect(sizes).toHaveLength(pages!);
      for (const size of sizes) expect(size).toEqual([width, pageHeight ?? height]);
    }
  });

  it('makes a page per page of a multi-page TIFF', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'three.tiff');
    await sharp(fixture('fixture.gif'), { animated: true }).tiff().toFile(input);
    const progress: number[] = [];
    const ctx = context(ws, 'tiff', 'pdf', { inputPath: input, progress });
    await converter.convert(ctx);
    expect(await pageSizes(ctx.outputPath)).toEqual([
      [32, 24],
      [32, 24],
      [32, 24],
    ]);
    expect(progress.at(-1)).toBe(1);
  });

  it('embeds a JPEG byte for byte, and pdf.js renders it back', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'jpg', 'pdf');
    await converter.convert(ctx);
    const jpeg = await readFile(fixture('fixture.jpg'));
    expect((await readFile(ctx.outputPath)).indexOf(jpeg)).toBeGreaterThan(0);
    const back = await renderBack(ws, ctx.outputPath);
    expect([back.info.width, back.info.height]).toEqual([64, 48]);
  });

  it("applies a JPEG's EXIF orientation with the drawing matrix, keeping its bytes", async () => {
    const ws = await workspace();
    // 40x20 stored: left half black, right half white; orientation 6 shows it turned 90 clockwise.
    const stored = Buffer.alloc(40 * 20 * 3, 255);
    for (let y = 0; y < 20; y++) stored.fill(0, y * 120, y * 120 + 60);
    const jpeg = await sharp(stored, { raw: { width: 40, height: 20, channels: 3 } })
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const input = join(ws.inputs, 'rotated.jpg');
    await writeFile(input, jpeg);
    const ctx = context(ws, 'jpg', 'pdf', { inputPath: input });
    await converter.convert(ctx);
    expect((await readFile(ctx.outputPath)).indexOf(jpeg)).toBeGreaterThan(0);
    expect(await pageSizes(ctx.outputPath)).toEqual([[20, 40]]);
    // Displayed upright, the stored left half (black) is now the top half.
    const { data, info } = await renderBack(ws, ctx.outputPath);
    const mean = (from: number, to: number) =>
      data.subarray(from * info.width, to * info.width).reduce((sum, v) => sum + v, 0) /
      ((to - from) * info.width);
    expect(mean(2, 18)).toBeLessThan(40);
    expect(mean(22, 38)).toBeGreaterThan(215);
  });

  it('keeps transparency as a soft mask: transparent pixels show the white page', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'clear.png');
    await sharp({
      create: { width: 20, height: 10, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toFile(input);
    const ctx = context(ws, 'png', 'pdf', { inputPath: input });
    await converter.convert(ctx);
    const { data } = await renderBack(ws, ctx.outputPath);
    expect(Math.min(...data)).toBeGreaterThan(240);
  });

  it('refuses an image above the pixel limit, and a damaged one, leaving nothing behind', async () => {
    const ws = await workspace();
    const big = context(ws, 'png', 'pdf', { limits: { maxPixels: 1000 } });
    await expectCode(converter.convert(big), 'INPUT_LIMIT_EXCEEDED');
    const input = join(ws.inputs, 'cut.png');
    const png = await readFile(fixture('fixture.png'));
    await writeFile(input, png.subarray(0, png.length / 2));
    await expectCode(converter.convert(context(ws, 'png', 'pdf', { inputPath: input })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it('refuses more frames than maxPages', async () => {
    const ws = await workspace();
    const small = withOptionsParsed(createPdfConverter({ maxPages: 2 }));
    const error = await expectCode(small.convert(context(ws, 'gif', 'pdf')), 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ frames: 3, maxPages: 2 });
    await expectNoLeftovers(ws);
  });

  it('throws CANCELED between frames when aborted', async () => {
    const ws = await workspace();
    const controller = new AbortController();
    const ctx = context(ws, 'gif', 'pdf', {
      signal: controller.signal,
      onProgress: (fraction) => {
        if (fraction > 0 && fraction < 1) controller.abort();
      },
    });
    await expectCode(converter.convert(ctx), 'CANCELED');
    await expectNoLeftovers(ws);
  });
});
