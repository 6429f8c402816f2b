/**
 * fileconv/pdf and `fileconv pdf`: merge, split and rotate on real PDFs, each result read back
 * with poppler's pdfinfo and pdftotext (independent of pdf-lib, which wrote it); and what they
 * refuse: a PNG among the inputs, an encrypted PDF, a page past the last, a bad angle, a missing
 * output folder.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  extractPages,
  mergePdfs,
  parsePageRanges,
  readPdfMetadata,
  rotatePages,
  writePdfMetadata,
} from '../src/operations/pdf/index.js';
import { describeWithEngine } from './helpers/engines.js';
import { labelledPdf } from './helpers/pdf-samples.js';
import { CLI_ARGS } from './helpers/serve-process.js';
import { fixture, tempDir } from './helpers/temp.js';

const POPPLER = existsSync('/usr/bin/pdfinfo') && existsSync('/usr/bin/pdftotext');

function pdfinfo(path: string, ...args: string[]): string {
  return execFileSync('pdfinfo', [...args, path], { encoding: 'utf8' });
}

/** The labels of the pages, in order, as pdftotext reads them. */
function labels(path: string): string[] {
  return execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' }).match(/[a-z]\d+/g) ?? [];
}

describe('parsePageRanges', () => {
  it('reads single pages, ranges, open ends and "all", 1-based, in the order written', () => {
    expect(parsePageRanges('2-3,5', 6)).toEqual([1, 2, 4]);
    expect(parsePageRanges('5-', 6)).toEqual([4, 5]);
    expect(parsePageRanges('-2', 6)).toEqual([0, 1]);
    expect(parsePageRanges('all', 3)).toEqual([0, 1, 2]);
    expect(parsePageRanges('3,1', 3)).toEqual([2, 0]);
  });

  it.each([
    ['7', /page 7 does not exist: the PDF has 6 page/],
    ['3-2', /not a range/],
    ['0', /not a range/],
    ['a-b', /not a page or a range/],
    ['1-2-3', /not a page or a range/],
  ])('refuses %s', (spec, message) => {
    expect(() => parsePageRanges(spec, 6)).toThrow(message);
  });
});

describeWithEngine('poppler-utils', POPPLER, 'apt-get install poppler-utils', 'PDF operations', () => {
  it('merges PDFs in order', async () => {
    const dir = await tempDir();
    const a = await labelledPdf(dir, 'a', 2);
    const b = await labelledPdf(dir, 'b', 3);
    const out = join(dir, 'merged.pdf');
    expect(await mergePdfs([a, b], out)).toEqual({ pages: 5 });
    expect(pdfinfo(out)).toMatch(/^Pages:\s+5$/m);
    expect(labels(out)).toEqual(['a1', 'a2', 'b1', 'b2', 'b3']);
  });

  it('extracts page ranges', async () => {
    const dir = await tempDir();
    const input = await labelledPdf(dir, 'p', 6);
    const out = join(dir, 'some.pdf');
    expect(await extractPages(input, '2-3,5', out)).toEqual({ pages: 3 });
    expect(labels(out)).toEqual(['p2', 'p3', 'p5']);
  });

  it('rotates the pages asked for, and only those', async () => {
    const dir = await tempDir();
    const input = await labelledPdf(dir, 'r', 3);
    const out = join(dir, 'rotated.pdf');
    await rotatePages(input, 90, out, { pages: '2' });
    const rotations = pdfinfo(out, '-f', '1', '-l', '3').match(/Page\s+\d+ rot:\s+(\d+)/g);
    expect(rotations?.map((line) => Number(line.split(/\s+/).at(-1)))).toEqual([0, 90, 0]);
    await rotatePages(out, -90, out, { pages: '2' });
    expect(pdfinfo(out, '-f', '2', '-l', '2')).toMatch(/Page\s+2 rot:\s+0/);
  });

  it('refuses what it cannot do, with a stable code, writing nothing', async () => {
    const dir = await tempDir();
    const input = await labelledPdf(dir, 'x', 2);
    const out = join(dir, 'out.pdf');
    await expect(mergePdfs([input, fixture('fixture.png')], out)).rejects.toMatchObject({
      code: 'CORRUPT_INPUT',
    });
    await expect(mergePdfs([input, fixture('bad/encrypted.pdf')], out)).rejects.toMatchObject({
      code: 'PASSWORD_PROTECTED',
    });
    await expect(mergePdfs([input], out)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(extractPages(input, '3', out)).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringMatching(/page 3 does not exist/),
    });
    await expect(rotatePages(input, 45, out)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(extractPages(join(dir, 'missing.pdf'), 'all', out)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(extractPages(input, 'all', join(dir, 'no/such/dir/out.pdf'))).rejects.toMatchObject({
      code: 'OUTPUT_NOT_WRITABLE',
    });
    expect(existsSync(out)).toBe(false);
  });

  it('reads and sets the document information, which pdfinfo then shows', async () => {
    const dir = await tempDir();
    const input = await labelledPdf(dir, 'm', 2);
    const out = join(dir, 'meta.pdf');
    const written = await writePdfMetadata(
      input,
      { title: 'Quarterly report – Q3', author: 'Ana Núñez', subject: 'Sales', keywords: ['sales', 'q3'] },
      out,
    );
    expect(written).toMatchObject({ title: 'Quarterly report – Q3', author: 'Ana Núñez', pages: 2 });
    const info = pdfinfo(out);
    expect(info).toMatch(/^Title:\s+Quarterly report – Q3$/m);
    expect(info).toMatch(/^Author:\s+Ana Núñez$/m);
    expect(info).toMatch(/^Subject:\s+Sales$/m);
    expect(info).toMatch(/^Keywords:\s+sales q3$/m);
    expect(await readPdfMetadata(out)).toMatchObject({ subject: 'Sales', keywords: ['sales', 'q3'] });
    // Nothing else changes: the pages are the same.
    expect(labels(out)).toEqual(['m1', 'm2']);
  });

  it('runs from the command line', async () => {
    const dir = await tempDir();
    const a = await labelledPdf(dir, 'a', 1);
    const b = await labelledPdf(dir, 'b', 2);
    const out = join(dir, 'cli.pdf');
    const merged = spawnSync(process.execPath, [...CLI_ARGS, 'pdf', 'merge', a, b, '-o', out], {
      encoding: 'utf8',
    });
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('(3 page(s))');
    expect(labels(out)).toEqual(['a1', 'b1', 'b2']);
    const past = spawnSync(process.execPath, [...CLI_ARGS, 'pdf', 'split', a, '--pages', '4', '-o', out], {
      encoding: 'utf8',
    });
    expect(past.status).toBe(1);
    expect(past.stderr).toMatch(/page 4 does not exist.*\[INVALID_OPTIONS\]/);
    const titled = join(dir, 'titled.pdf');
    const meta = spawnSync(
      process.execPath,
      [...CLI_ARGS, 'pdf', 'meta', out, '--title', 'Joined', '-o', titled],
      {
        encoding: 'utf8',
      },
    );
    expect(meta.status, meta.stderr).toBe(0);
    const info = spawnSync(process.execPath, [...CLI_ARGS, 'pdf', 'info', titled, '--json'], {
      encoding: 'utf8',
    });
    expect(JSON.parse(info.stdout)).toMatchObject({ title: 'Joined', pages: 3 });
  });
});
