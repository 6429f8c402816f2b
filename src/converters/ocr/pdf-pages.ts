/**
 * The PDF side of OCR, on Poppler (poppler-utils, GPL-2.0, run as separate programs): the page
 * count and sizes from pdfinfo (checked against the page budget before anything is rendered), and
 * one page rasterised to a grey PNG by pdftoppm at a resolution that keeps it under the pixel
 * limit. Poppler's words for a damaged or locked file become CORRUPT_INPUT and PASSWORD_PROTECTED.
 */
import { join } from 'node:path';
import { FileconvError } from '../../core/errors.js';
import { workBudgetError } from '../../core/work-limits.js';
import { runTool, toolFailed } from '../../kit/command-tools.js';
import { OCR_DPI_RANGE } from './ocr-options.js';

export interface PdfPageSize {
  /** 1-based. */
  number: number;
  /** Points, as shown (pdfinfo's size is the crop box). */
  width: number;
  height: number;
}

/** What a PDF must not be for OCR: locked, or not readable as a PDF at all. */
function pdfReadError(outcome: { code: number | null; stderr: string; stdout: string }, doing: string) {
  if (/Incorrect password/i.test(outcome.stderr)) {
    return new FileconvError('PASSWORD_PROTECTED', 'The PDF is password-protected.');
  }
  const damaged = /Syntax Error|May not be a PDF|Couldn't|Invalid|damaged/i.test(outcome.stderr);
  return toolFailed('pdfinfo', outcome, doing, damaged ? 'CORRUPT_INPUT' : 'CONVERSION_FAILED');
}

/** The pages of the PDF at `path` with their sizes; the page budget is checked on the count first. */
export async function readPdfPages(
  path: string,
  options: { signal: AbortSignal; maxPages?: number | undefined },
): Promise<PdfPageSize[]> {
  const names = { [path]: 'the PDF' };
  const summary = await runTool('pdfinfo', [path], { signal: options.signal, names });
  if (summary.code !== 0) throw pdfReadError(summary, 'reading the PDF');
  const count = Number(/^Pages:\s+(\d+)/m.exec(summary.stdout)?.[1] ?? Number.NaN);
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new FileconvError('CORRUPT_INPUT', 'The PDF has no pages Poppler can read.');
  }
  if (options.maxPages !== undefined && count > options.maxPages) {
    throw workBudgetError('maxDocumentPages', `The PDF has ${count} pages`, count, options.maxPages);
  }
  const listing = await runTool('pdfinfo', ['-f', '1', '-l', String(count), path], {
    signal: options.signal,
    names,
    keepStdout: 4096 + count * 160,
  });
  if (listing.code !== 0) throw pdfReadError(listing, 'reading the page sizes');
  const pages: PdfPageSize[] = [];
  for (const match of listing.stdout.matchAll(/^Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+) pts/gm)) {
    pages.push({ number: Number(match[1]), width: Number(match[2]), height: Number(match[3]) });
  }
  if (pages.length !== count) {
    throw new FileconvError(
      'CORRUPT_INPUT',
      `The PDF says it has ${count} pages; Poppler found ${pages.length}.`,
    );
  }
  return pages;
}

/** Pixels of a page rendered at `dpi` (pdftoppm rounds each side up). */
export function pagePixels(page: PdfPageSize, dpi: number): number {
  return Math.ceil((page.width * dpi) / 72) * Math.ceil((page.height * dpi) / 72);
}

/**
 * The resolution to render `page` at: `dpi`, or lower so the page stays within `maxPixels`
 * (a poster-sized page is read at less detail rather than refused); INPUT_LIMIT_EXCEEDED when
 * even the lowest useful resolution would pass it.
 */
export function pageDpi(page: PdfPageSize, dpi: number, maxPixels: number): number {
  if (pagePixels(page, dpi) <= maxPixels) return dpi;
  const fitting = Math.floor(72 * Math.sqrt(maxPixels / (page.width * page.height))) - 1;
  if (fitting >= OCR_DPI_RANGE.min && pagePixels(page, fitting) <= maxPixels) return fitting;
  throw new FileconvError(
    'INPUT_LIMIT_EXCEEDED',
    `Page ${page.number} (${page.width} x ${page.height} pt) is too large to read: even at ${OCR_DPI_RANGE.min} DPI it passes the limit of ${maxPixels} pixels`,
    { details: { page: page.number, width: page.width, height: page.height, maxPixels } },
  );
}

/** Renders page `number` of `pdf` to a grey PNG in `dir` at `dpi`; returns its path. */
export async function rasterisePage(
  pdf: string,
  number: number,
  dpi: number,
  dir: string,
  signal: AbortSignal,
): Promise<string> {
  const base = join(dir, `page-${number}`);
  const page = String(number);
  const outcome = await runTool(
    'pdftoppm',
    ['-r', String(dpi), '-f', page, '-l', page, '-gray', '-png', '-singlefile', pdf, base],
    { signal, names: { [pdf]: 'the PDF', [base]: `page ${number}` } },
  );
  if (outcome.code !== 0) {
    const damaged = /Syntax Error|Couldn't|Invalid|damaged/i.test(outcome.stderr);
    throw toolFailed(
      'pdftoppm',
      outcome,
      `rendering page ${number}`,
      damaged ? 'CORRUPT_INPUT' : 'CONVERSION_FAILED',
    );
  }
  return `${base}.png`;
}
