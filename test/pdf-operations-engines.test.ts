/**
 * Merge, split and rotate run through qpdf when it is installed and on pdf-lib otherwise
 * (QPDF_PATH naming no executable stands for a machine without qpdf): both ways give the same
 * pages in the same order with the same rotations, read back by poppler (pdfinfo, pdftotext),
 * and refuse the same bad inputs with the same codes, writing nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { extractPages, mergePdfs, rotatePages } from '../src/operations/pdf/index.js';
import { describeWithEngine } from './helpers/engines.js';
import { labelledPdf, truncatedCopy } from './helpers/pdf-samples.js';
import { fixture, tempDir } from './helpers/temp.js';

const TOOLS = ['/usr/bin/pdfinfo', '/usr/bin/pdftotext', '/usr/bin/qpdf'].every((path) => existsSync(path));

const ENGINES = ['qpdf', 'pdf-lib'] as const;
type Engine = (typeof ENGINES)[number];

const savedQpdfPath = process.env.QPDF_PATH;
afterEach(() => {
  if (savedQpdfPath === undefined) delete process.env.QPDF_PATH;
  else process.env.QPDF_PATH = savedQpdfPath;
});

/** Runs the operations of `engine`: qpdf as installed, or pdf-lib where qpdf is not found. */
function use(engine: Engine): void {
  if (engine === 'pdf-lib') process.env.QPDF_PATH = '/nonexistent/qpdf';
  else delete process.env.QPDF_PATH;
}

function pdfinfo(path: string, ...args: string[]): string {
  return execFileSync('pdfinfo', [...args, path], { encoding: 'utf8' });
}

/** What a reader sees of a PDF: its pages' labels in order, and each page's rotation. */
function pagesOf(path: string): { labels: string[]; rotations: number[] } {
  const labels =
    execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' }).match(/[a-z]\d+/g) ?? [];
  const count = Number(/^Pages:\s+(\d+)$/m.exec(pdfinfo(path))?.[1]);
  const rotations = [
    ...pdfinfo(path, '-f', '1', '-l', String(count)).matchAll(/Page\s+\d+ rot:\s+(\d+)/g),
  ].map((match) => Number(match[1]));
  return { labels, rotations };
}

/** Who wrote the result: pdf-lib names itself as its producer, qpdf's page copies name none. */
function producerOf(path: string): string {
  return /^Producer:\s+(.*)$/m.exec(pdfinfo(path))?.[1] ?? '';
}

describeWithEngine(
  'qpdf and poppler-utils',
  TOOLS,
  'apt-get install qpdf poppler-utils',
  'PDF page operations on qpdf and on pdf-lib',
  () => {
    it('give the same pages, order and rotations both ways', async () => {
      const dir = await tempDir();
      const a = await labelledPdf(dir, 'a', 2);
      const b = await labelledPdf(dir, 'b', 3);
      const results: Record<Engine, unknown[]> = { qpdf: [], 'pdf-lib': [] };
      for (const engine of ENGINES) {
        use(engine);
        const merged = join(dir, `${engine}-merged.pdf`);
        const split = join(dir, `${engine}-split.pdf`);
        const rotated = join(dir, `${engine}-rotated.pdf`);
        const counts = [
          await mergePdfs([a, b, a], merged),
          await extractPages(merged, '6-7,2,4-', split),
          await rotatePages(split, 90, rotated, { pages: '1,3-4' }),
        ];
        // Turning a turned page adds to its rotation; -90 and 270 are the same turn.
        await rotatePages(rotated, -90, rotated, { pages: '3-' });
        await rotatePages(rotated, 180, rotated, { pages: '2' });
        const engineWrote = producerOf(merged).includes('pdf-lib') ? 'pdf-lib' : 'qpdf';
        expect(engineWrote).toBe(engine);
        results[engine] = [counts, pagesOf(merged), pagesOf(split), pagesOf(rotated)];
      }
      // Split: pages 6, 7, 2, 4, 5, 6, 7 of a1 a2 b1 b2 b3 a1 a2. Rotate: +90 on 1, 3, 4; -90 on 3 to
      // 7; 180 on 2.
      expect(results.qpdf).toEqual([
        [{ pages: 7 }, { pages: 7 }, { pages: 7 }],
        { labels: ['a1', 'a2', 'b1', 'b2', 'b3', 'a1', 'a2'], rotations: [0, 0, 0, 0, 0, 0, 0] },
        { labels: ['a1', 'a2', 'a2', 'b2', 'b3', 'a1', 'a2'], rotations: [0, 0, 0, 0, 0, 0, 0] },
        { labels: ['a1', 'a2', 'a2', 'b2', 'b3', 'a1', 'a2'], rotations: [90, 180, 0, 0, 270, 270, 270] },
      ]);
      expect(results['pdf-lib']).toEqual(results.qpdf);
    });

    it.each(ENGINES)(
      'refuse the same bad inputs with the same codes on %s, writing nothing',
      async (engine) => {
        use(engine);
        const dir = await tempDir();
        const input = await labelledPdf(dir, 'x', 2);
        const out = join(dir, 'out.pdf');
        const notPdf = join(dir, 'notes.pdf');
        await writeFile(notPdf, 'plain text, not a PDF');
        const truncated = await truncatedCopy(input, dir);
        const cases: [() => Promise<unknown>, string][] = [
          [() => mergePdfs([input, fixture('fixture.png')], out), 'CORRUPT_INPUT'],
          [() => mergePdfs([input, notPdf], out), 'CORRUPT_INPUT'],
          [() => mergePdfs([input, truncated], out), 'CORRUPT_INPUT'],
          [() => mergePdfs([input, fixture('bad/encrypted.pdf')], out), 'PASSWORD_PROTECTED'],
          [() => rotatePages(fixture('bad/encrypted.pdf'), 90, out), 'PASSWORD_PROTECTED'],
          [() => mergePdfs([input, input], out, { maxPages: 3 }), 'INPUT_LIMIT_EXCEEDED'],
          [() => extractPages(input, 'all', out, { maxPages: 1 }), 'INPUT_LIMIT_EXCEEDED'],
          [() => mergePdfs([input, join(dir, 'missing.pdf')], out), 'NOT_FOUND'],
          [() => extractPages(input, '3', out), 'INVALID_OPTIONS'],
          [() => rotatePages(input, 90, out, { pages: '1-5' }), 'INVALID_OPTIONS'],
          [() => extractPages(input, 'all', join(dir, 'no/such/dir/out.pdf')), 'OUTPUT_NOT_WRITABLE'],
        ];
        for (const [operation, code] of cases) await expect(operation()).rejects.toMatchObject({ code });
        expect(existsSync(out)).toBe(false);
      },
    );
  },
);
