/**
 * The print and vector converters on the fixtures, each result read back by a tool independent
 * of the one that wrote it: pdfinfo, pdftotext and pdffonts (Poppler) for PDFs written by
 * Ghostscript and librsvg, Ghostscript for the EPS and PostScript it did not write itself from
 * scratch (the page is re-rendered and compared), identify (ImageMagick) for rendered pages, and
 * an XML parse for SVG.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  createGhostscriptConverter,
  createPdftocairoConverter,
  createRsvgConverter,
  createSvgzConverter,
} from '../../src/converters/vector/index.js';
import { createEngine } from '../../src/index.js';
import { COMMAND_TOOLS } from '../../src/kit/command-tools.js';
import { defaultConverters } from '../../src/preset/converters.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  context,
  expectNoLeftovers,
  expectProgressRun,
  fixture,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';
import { GS, input, PDFTOCAIRO, pdfInfo, pdfText, RSVG, readText, run } from './vector-helpers.js';

/** ImageMagick's view of an image: format and size. */
async function identify(path: string): Promise<{ format: string; width: number; height: number }> {
  const { stdout } = await run('identify', ['-format', '%m %w %h\n', path]);
  const [format = '', width = '0', height = '0'] = (stdout.split('\n')[0] ?? '').split(' ');
  return { format, width: Number(width), height: Number(height) };
}

/** The mean brightness (0..255) of a rendered page, through sharp: a blank page is 255. */
async function meanBrightness(path: string): Promise<number> {
  const stats = await sharp(path).greyscale().stats();
  return stats.channels[0]?.mean ?? 255;
}

/** Mean absolute difference of two same-sized grey images (0..255). */
function meanDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  return sum / a.length;
}

describeWithEngine('Ghostscript', GS, COMMAND_TOOLS.gs.install, 'ghostscript converter', () => {
  const converter = withOptionsParsed(createGhostscriptConverter());

  it('is available and names its version', async () => {
    expect(await converter.available()).toMatchObject({
      ok: true,
      version: expect.stringMatching(/Ghostscript \d+/),
    });
  });

  it('eps -> pdf: the page is the bounding box, the text stays text', async () => {
    const ws = await workspace();
    const progress: number[] = [];
    const ctx = context(ws, 'eps', 'pdf', { progress });
    await converter.convert(ctx);
    const info = await pdfInfo(ctx.outputPath);
    expect(info).toEqual({ pages: 1, size: '200 x 100' });
    expect(await pdfText(ctx.outputPath)).toContain('EPS fixture 7');
    expectProgressRun(progress);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('ps -> pdf keeps every page, in order, at the size the program set', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'ps', 'pdf');
    await converter.convert(ctx);
    expect(await pdfInfo(ctx.outputPath)).toEqual({ pages: 2, size: '612 x 792' });
    const text = await pdfText(ctx.outputPath);
    expect(text.indexOf('PostScript page one')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('PostScript page two')).toBeGreaterThan(text.indexOf('PostScript page one'));
  });

  it('an EPS behind a DOS binary header (C5 D0 D3 C6) converts like the plain one', async () => {
    const ws = await workspace();
    const ps = await readFile(fixture('fixture.eps'));
    const header = Buffer.alloc(30);
    header.writeUInt32BE(0xc5d0d3c6, 0);
    header.writeUInt32LE(30, 4); // PostScript section offset
    header.writeUInt32LE(ps.length, 8); // and length; no WMF or TIFF preview
    header.writeUInt16LE(0xffff, 28); // no checksum
    const inputPath = await input(ws, 'dos.eps', Buffer.concat([header, ps]));
    const ctx = context(ws, 'eps', 'pdf', { inputPath });
    await converter.convert(ctx);
    expect(await pdfInfo(ctx.outputPath)).toEqual({ pages: 1, size: '200 x 100' });
    expect(await pdfText(ctx.outputPath)).toContain('EPS fixture 7');
  });

  it('eps -> png renders the bounding box at the asked dpi', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'eps', 'png', { options: { dpi: 144 } });
    await converter.convert(ctx);
    // 200 x 100 pt at 144 dpi = 400 x 200 px.
    expect(await identify(ctx.outputPath)).toEqual({ format: 'PNG', width: 400, height: 200 });
    expect(await meanBrightness(ctx.outputPath)).toBeLessThan(250);
  });

  it('eps -> png with a transparent background keeps alpha; -> jpg at 72 dpi is one pixel per point', async () => {
    const ws = await workspace();
    const png = context(ws, 'eps', 'png', { options: { dpi: 72, background: 'transparent' } });
    await converter.convert(png);
    expect((await sharp(png.outputPath).metadata()).hasAlpha).toBe(true);
    const jpg = context(ws, 'eps', 'jpg', { options: { dpi: 72, quality: 90 } });
    await converter.convert(jpg);
    expect(await identify(jpg.outputPath)).toEqual({ format: 'JPEG', width: 200, height: 100 });
  });

  it('ps -> png renders the asked page', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'ps', 'png', { options: { page: 2, dpi: 36 } });
    await converter.convert(ctx);
    // Letter at 36 dpi: 306 x 396 px.
    expect(await identify(ctx.outputPath)).toMatchObject({ width: 306, height: 396 });
  });

  it('pdf -> eps writes one page as EPS cropped to its drawing, which renders as Poppler renders the PDF', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'pdf', 'eps');
    await converter.convert(ctx);
    const eps = await readText(ctx.outputPath);
    expect(eps).toMatch(/^%!PS-Adobe-3\.0 EPSF-3\.0/);
    expect((await run('file', ['-b', ctx.outputPath])).stdout).toMatch(/type EPS/);
    const [x0 = 0, , , y1 = 0] = (/^%%HiResBoundingBox: (.*)$/m.exec(eps)?.[1] ?? '').split(' ').map(Number);
    // The EPS rendered at 72 dpi against the same area of the PDF page rendered by Poppler, both
    // shrunk 4x so that sub-pixel placement of the glyphs does not count.
    const rendered = context(ws, 'eps', 'png', {
      inputPath: ctx.outputPath,
      outputPath: join(ws.outputs, 'eps.png'),
      options: { dpi: 72 },
    });
    await converter.convert(rendered);
    const { width, height } = await identify(rendered.outputPath);
    await run('pdftoppm', [
      '-r',
      '72',
      '-f',
      '1',
      '-l',
      '1',
      '-png',
      '-singlefile',
      fixture('fixture.pdf'),
      join(ws.outputs, 'page'),
    ]);
    const page = join(ws.outputs, 'page.png');
    const pageHeight = (await identify(page)).height;
    const small = (image: Sharp) =>
      image
        .resize(Math.round(width / 4), Math.round(height / 4), { fit: 'fill' })
        .greyscale()
        .raw()
        .toBuffer();
    const area = (top: number) => small(sharp(page).extract({ left: Math.floor(x0), top, width, height }));
    const eps4 = await small(sharp(rendered.outputPath));
    const same = meanDifference(eps4, await area(Math.floor(pageHeight - y1)));
    const elsewhere = meanDifference(eps4, await area(Math.floor(pageHeight - y1) + 2 * height));
    expect(same).toBeLessThan(10);
    expect(elsewhere).toBeGreaterThan(2 * same);
  });

  it('pdf -> ps writes every page as DSC PostScript', async () => {
    const ws = await workspace();
    const twoPages = context(ws, 'ps', 'pdf', { outputPath: join(ws.inputs, 'two.pdf') });
    await converter.convert(twoPages);
    const ctx = context(ws, 'pdf', 'ps', { inputPath: twoPages.outputPath });
    await converter.convert(ctx);
    const ps = await readText(ctx.outputPath);
    expect(ps).toMatch(/^%!PS-Adobe-3\.0/);
    expect(ps.match(/^%%Page: /gm)).toHaveLength(2);
    expect((await run('file', ['-b', ctx.outputPath])).stdout).toMatch(/PostScript document/);
    const back = context(ws, 'ps', 'pdf', {
      inputPath: ctx.outputPath,
      outputPath: join(ws.outputs, 'back.pdf'),
    });
    await converter.convert(back);
    expect(await pdfInfo(back.outputPath)).toEqual({ pages: 2, size: '612 x 792' });
    expect(await pdfText(back.outputPath)).toContain('PostScript page two');
  });
});

describeWithEngine('librsvg', RSVG, COMMAND_TOOLS['rsvg-convert'].install, 'rsvg converter', () => {
  const converter = withOptionsParsed(createRsvgConverter());
  const TEXT_SVG = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="400" height="200" viewBox="0 0 400 200">
  <rect x="10" y="10" width="380" height="180" fill="#eef" stroke="#00f"/>
  <text x="30" y="100" font-family="DejaVu Sans" font-size="28">Vector Hello 42</text>
  <a xlink:href="https://example.com/page.html"><circle cx="350" cy="150" r="20" fill="red"/></a>
</svg>`;

  it('svg -> pdf keeps the text as text in an embedded font, at the SVG size in points', async () => {
    const ws = await workspace();
    const inputPath = await input(ws, 'text.svg', TEXT_SVG);
    const ctx = context(ws, 'svg', 'pdf', { inputPath });
    await converter.convert(ctx);
    // 400 x 200 CSS px at 96 px per inch = 300 x 150 pt.
    expect(await pdfInfo(ctx.outputPath)).toEqual({ pages: 1, size: '300 x 150' });
    expect(await pdfText(ctx.outputPath)).toContain('Vector Hello 42');
    const fonts = (await run('pdffonts', [ctx.outputPath])).stdout;
    expect(fonts).toMatch(/DejaVuSans\s+\S+\s+\S+\s+yes/);
    await expectNoLeftovers({ ...ws, outputs: ws.temp });
  });

  it('svg -> pdf of the fixture (a gradient, no text)', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'svg', 'pdf');
    await converter.convert(ctx);
    expect(await pdfInfo(ctx.outputPath)).toEqual({ pages: 1, size: '48 x 36' });
  });
});

describeWithEngine('Poppler', PDFTOCAIRO, COMMAND_TOOLS.pdftocairo.install, 'pdftocairo converter', () => {
  const converter = withOptionsParsed(createPdftocairoConverter());

  it('pdf -> svg: one page as SVG that parses, with paths for shapes and glyphs', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'pdf', 'svg');
    await converter.convert(ctx);
    const svg = await readText(ctx.outputPath);
    expect(svg).toMatch(/<svg[^>]+width="595\.\d*pt" height="841\.\d*pt"/);
    expect(svg.match(/<path /g)?.length ?? 0).toBeGreaterThan(10);
    expect(svg).toMatch(/<use xlink:href="#glyph/);
    // libvips (through librsvg, at its default 72 dpi) parses it and sizes it as the page.
    const meta = await sharp(Buffer.from(svg)).metadata();
    expect(meta).toMatchObject({ format: 'svg', width: 595, height: 842 });
  });
});

describeWithEngine(
  'Ghostscript, librsvg and Poppler',
  GS && RSVG && PDFTOCAIRO,
  'apt-get install ghostscript librsvg2-bin poppler-utils',
  'the CLI assembly',
  () => {
    it.each([
      ['fixture.svg', 'pdf', ['svg', 'pdf']],
      ['fixture.svgz', 'png', ['svgz', 'svg', 'png']],
      ['fixture.svgz', 'pdf', ['svgz', 'svg', 'pdf']],
      ['fixture.eps', 'webp', ['eps', 'png', 'webp']],
      ['fixture.ps', 'eps', ['ps', 'pdf', 'eps']],
      ['fixture.pdf', 'svgz', ['pdf', 'svg', 'svgz']],
    ])('%s -> %s goes %j', async (name, to, path) => {
      const ws = await workspace();
      const engine = createEngine({ converters: defaultConverters(), tempDir: ws.temp });
      try {
        const output = join(ws.outputs, `out.${to}`);
        const report = await engine.convertFile(fixture(name), output);
        expect(report.path).toEqual(path);
        expect((await readFile(output)).length).toBeGreaterThan(100);
      } finally {
        await engine.close();
      }
    });
  },
);

describe('svgz converter', () => {
  const converter = withOptionsParsed(createSvgzConverter());

  it('svgz -> svg gives back the SVG gzip packed; svg -> svgz packs it again', async () => {
    const ws = await workspace();
    const unpacked = context(ws, 'svgz', 'svg');
    await converter.convert(unpacked);
    expect(await readFile(unpacked.outputPath)).toEqual(await readFile(fixture('fixture.svg')));
    const packed = context(ws, 'svg', 'svgz');
    await converter.convert(packed);
    const { stdout } = await run('gzip', ['-dc', packed.outputPath]);
    expect(stdout).toBe(await readFile(fixture('fixture.svg'), 'utf8'));
  });
});
