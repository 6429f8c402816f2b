/**
 * Searchable PDFs: the scan stays as it is and invisible text is laid under it, so a viewer
 * shows the same page while search, copy and pdftotext find the words.
 *
 * - A scanned PDF: each page without a text layer is rendered (pdftoppm, grey, 300 DPI or less
 *   to stay under the pixel limit), read by tesseract into a one-page PDF holding only the
 *   text (textonly_pdf), and qpdf lays those pages under the original ones (--underlay, scaled to
 *   each page). The original pages keep their images, vector content and size untouched: nothing
 *   is re-encoded.
 * - An image (PNG): tesseract writes the PDF itself, the image over its text, one page sized
 *   by the image's resolution (its pHYs, else `dpi`).
 */
import { copyFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { throwIfAborted } from '../../core/abort.js';
import { workBudgetError } from '../../core/work-limits.js';
import { runTool, toolFailed } from '../../kit/command-tools.js';
import { placeFile } from '../../kit/place-file.js';
import { withWorkDir } from '../../kit/work-dir.js';
import type { OcrOperationOptions } from './ocr-options.js';
import { pageDpi, pagePixels, rasterisePage, readPdfPages } from './pdf-pages.js';
import { readPngHeader } from './png-header.js';
import { runTesseract } from './tesseract.js';

export interface SearchablePdfRun {
  signal: AbortSignal;
  /** Where the work folder is made (and removed). */
  tempDir: string;
  maxPixels: number;
  maxPages?: number | undefined;
  maxWorkPixels?: number | undefined;
  /** Pages done of pages to read, after each. */
  onPage?: (done: number, total: number) => void;
}

export interface SearchablePdfResult {
  pages: number;
  /** The pages read by OCR (the others had text already). */
  ocrPages: number;
}

/** Writes `input` (a PDF) to `output` with a text layer under every page that had none. */
export async function searchablePdf(
  input: string,
  output: string,
  options: OcrOperationOptions,
  run: SearchablePdfRun,
): Promise<SearchablePdfResult> {
  return withWorkDir({ tempDir: run.tempDir }, async (dir) => {
    const pages = await readPdfPages(input, { signal: run.signal, maxPages: run.maxPages });
    const withText = options.force ? new Set<number>() : await pagesWithText(input, dir, run.signal);
    const toRead = pages.filter((page) => !withText.has(page.number));
    const plan = toRead.map((page) => ({ page, dpi: pageDpi(page, options.dpi, run.maxPixels) }));
    const work = plan.reduce((sum, { page, dpi }) => sum + pagePixels(page, dpi), 0);
    if (run.maxWorkPixels !== undefined && work > run.maxWorkPixels) {
      throw workBudgetError('maxWorkPixels', `Reading ${toRead.length} pages`, work, run.maxWorkPixels);
    }
    const scratch = join(dir, 'searchable.pdf');
    if (plan.length === 0) {
      await copyFile(input, scratch);
    } else {
      const textPages: string[] = [];
      for (const [index, { page, dpi }] of plan.entries()) {
        throwIfAborted(run.signal);
        const image = await rasterisePage(input, page.number, dpi, dir, run.signal);
        await readPngHeader(image, run.maxPixels, `Page ${page.number}`);
        const outputBase = join(dir, `text-${page.number}`);
        await runTesseract({
          ...options,
          image,
          outputBase,
          output: 'pdf',
          textOnly: true,
          dpi,
          signal: run.signal,
          name: `page ${page.number}`,
        });
        await rm(image, { force: true });
        textPages.push(`${outputBase}.pdf`);
        run.onPage?.(index + 1, plan.length);
      }
      const textLayer = join(dir, 'text-layer.pdf');
      await qpdf(['--empty', '--pages', ...textPages, '--', textLayer], run.signal, 'joining the text pages');
      const to = plan.map(({ page }) => page.number).join(',');
      await qpdf(
        [input, '--underlay', textLayer, `--to=${to}`, `--from=1-${plan.length}`, '--', scratch],
        run.signal,
        'laying the text under the pages',
      );
    }
    throwIfAborted(run.signal);
    await placeFile(scratch, output);
    return { pages: pages.length, ocrPages: plan.length };
  });
}

/** Writes a one-page searchable PDF of the PNG `input`. */
export async function searchablePdfFromImage(
  input: string,
  output: string,
  options: OcrOperationOptions,
  run: SearchablePdfRun,
): Promise<SearchablePdfResult> {
  const header = await readPngHeader(input, run.maxPixels);
  const pixels = header.width * header.height;
  if (run.maxWorkPixels !== undefined && pixels > run.maxWorkPixels) {
    throw workBudgetError(
      'maxWorkPixels',
      `The image is ${header.width}x${header.height} pixels`,
      pixels,
      run.maxWorkPixels,
    );
  }
  return withWorkDir({ tempDir: run.tempDir }, async (dir) => {
    const outputBase = join(dir, 'searchable');
    await runTesseract({
      ...options,
      image: input,
      outputBase,
      output: 'pdf',
      // The scan's own resolution sets the page size; a PNG that does not say gets `dpi`.
      dpi: header.dpi ?? options.dpi,
      signal: run.signal,
      name: 'the image',
    });
    throwIfAborted(run.signal);
    await placeFile(`${outputBase}.pdf`, output);
    run.onPage?.(1, 1);
    return { pages: 1, ocrPages: 1 };
  });
}

/** The pages pdftotext finds any text on (a form feed ends each page of its output). */
async function pagesWithText(input: string, dir: string, signal: AbortSignal): Promise<Set<number>> {
  const textFile = join(dir, 'existing-text.txt');
  const outcome = await runTool('pdftotext', ['-enc', 'UTF-8', input, textFile], {
    signal,
    names: { [input]: 'the PDF', [textFile]: 'text' },
  });
  if (outcome.code !== 0)
    throw toolFailed('pdftotext', outcome, 'reading the existing text', 'CORRUPT_INPUT');
  const pages = (await readFile(textFile, 'utf8')).split('\f');
  await rm(textFile, { force: true });
  const found = new Set<number>();
  pages.forEach((text, index) => {
    if (text.trim() !== '') found.add(index + 1);
  });
  return found;
}

/** Runs qpdf; its exit 3 means "done, with warnings" (a damaged input it repaired). */
async function qpdf(args: string[], signal: AbortSignal, doing: string): Promise<void> {
  const outcome = await runTool('qpdf', ['--no-warn', ...args], { signal });
  if (outcome.code === 0 || outcome.code === 3) return;
  const damaged = /damaged|not a PDF|can't find|invalid/i.test(outcome.stderr);
  throw toolFailed('qpdf', outcome, doing, damaged ? 'CORRUPT_INPUT' : 'CONVERSION_FAILED');
}
