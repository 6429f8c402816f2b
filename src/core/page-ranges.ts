/**
 * Page ranges as people write them: "1-3,5", "7-" (to the end), "-2" (the first two), "all".
 * Pages are 1-based; a range past the last page is INVALID_OPTIONS naming it, never a silent cut.
 */
import { z } from 'zod';
import { FileconvError } from './errors.js';

/** One written range: its first page and its last (undefined: to the end). */
interface PageRange {
  first: number;
  last: number | undefined;
  written: string;
}

/**
 * The ranges `spec` names, checked for their syntax only (the page count is not known yet):
 * INVALID_OPTIONS for anything that is not a page or a range. Empty for "all".
 */
export function readPageRanges(spec: string): PageRange[] {
  const text = spec.trim().toLowerCase();
  if (text === 'all' || text === '') return [];
  return text.split(',').map((part) => {
    const written = part.trim();
    const match = /^\s*(\d*)\s*(-?)\s*(\d*)\s*$/.exec(part);
    if (!match || (match[1] === '' && match[3] === '') || (match[2] === '' && match[3] !== '')) {
      throw invalid(`"${written}" is not a page or a range (write e.g. 2, 1-3 or 5-)`);
    }
    const first = match[1] === '' ? 1 : Number(match[1]);
    const last = match[2] === '' ? first : match[3] === '' ? undefined : Number(match[3]);
    if (first < 1 || (last !== undefined && last < first))
      throw invalid(`"${written}" is not a range of pages`);
    return { first, last, written };
  });
}

/** The 0-based page indexes `spec` selects from a document of `count` pages, in the order written. */
export function parsePageRanges(spec: string, count: number): number[] {
  const ranges = readPageRanges(spec);
  if (ranges.length === 0) return Array.from({ length: count }, (_, index) => index);
  const pages: number[] = [];
  for (const { first, last = count } of ranges) {
    if (last > count || first > count) {
      throw invalid(`page ${Math.max(first, last)} does not exist: the PDF has ${count} page(s)`);
    }
    for (let page = first; page <= last; page++) pages.push(page - 1);
  }
  return pages;
}

/**
 * Page ranges as an option (the PDF operations', LibreOffice's PDF export): '2-3,5', '7-', 'all',
 * or one page as a number (what the CLI's `--set pages=2` sends); the syntax is checked here, the
 * page count once the document is known.
 */
export const pageRangesSchema = z
  // The string first: a form built from the JSON Schema shows the first type's field, text.
  .union([z.string().min(1).max(1000), z.int().min(1).transform(String)])
  .superRefine((spec, ctx) => {
    try {
      readPageRanges(spec);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
    }
  });

function invalid(message: string): FileconvError {
  return new FileconvError('INVALID_OPTIONS', `Page ranges: ${message}.`);
}
