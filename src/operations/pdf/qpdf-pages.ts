/**
 * Merge, split and rotate through qpdf, when it is installed (operations.ts falls back to pdf-lib
 * otherwise). qpdf copies pages without parsing them into JavaScript objects or deflating them
 * again: ten 14-page PDFs merge in the time of one short process, where pdf-lib's load, copy and
 * save took most of `fileconv pdf merge`. What the inputs must be is what pdf-lib asks
 * (pdf-document.ts): a readable file under the size limit that starts like a PDF, not encrypted
 * (qpdf would open a PDF with an empty user password; pdf-lib refuses it, and so does this), no
 * more pages than the budget. qpdf runs from a job file (qpdf-job.ts), so an input named '-x.pdf'
 * is never read as an option; its result is written in a work folder and moved into place whole.
 */
import { join, resolve } from 'node:path';
import { throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { parsePageRanges } from '../../core/page-ranges.js';
import { workBudgetError } from '../../core/work-limits.js';
import { type WorkDirOptions, withWorkDir } from '../../kit/work-dir.js';
import { type PdfRunOptions, placeFile, readPdfBytes } from './pdf-document.js';
import { type PdfToolRunOptions, stderrTail, toolFailed } from './pdf-tools.js';
import { qpdfSucceeded, runQpdfJob } from './qpdf-job.js';

export type QpdfPageOptions = PdfRunOptions & PdfToolRunOptions & WorkDirOptions;

/** One qpdf run over the inputs in `paths`, in a work folder, its messages naming the files as given. */
interface QpdfRun {
  dir: string;
  run(job: Record<string, unknown>, doing: string): Promise<string>;
}

async function withQpdf<T>(
  paths: readonly string[],
  options: QpdfPageOptions,
  work: (qpdf: QpdfRun) => Promise<T>,
): Promise<T> {
  const signal = options.signal ?? new AbortController().signal;
  const names = Object.fromEntries(paths.map((path) => [resolve(path), path]));
  return withWorkDir(options, (dir) =>
    work({
      dir,
      async run(job, doing) {
        const outcome = await runQpdfJob(job, dir, { ...options, signal, names });
        throwIfAborted(signal);
        if (qpdfSucceeded(outcome)) return outcome.stdout;
        // Inputs were checked to start like an unencrypted PDF: what qpdf cannot read is damaged.
        if (outcome.code === 2 && outcome.stderr.trim() !== '') {
          throw new FileconvError('CORRUPT_INPUT', `Not a readable PDF: ${stderrTail(outcome.stderr)}`, {
            details: { stderr: stderrTail(outcome.stderr) },
          });
        }
        throw toolFailed('qpdf', outcome, doing);
      },
    }),
  );
}

/**
 * Refuses an input pdf-lib would refuse before qpdf reads it: NOT_FOUND, INPUT_LIMIT_EXCEEDED,
 * CORRUPT_INPUT (no PDF header), PASSWORD_PROTECTED. An encrypted PDF names /Encrypt in its
 * trailer, which is never compressed; the rare file that has the word elsewhere (an uncompressed
 * page about encryption) is asked of qpdf, so it is not refused for that.
 */
async function checkInput(path: string, qpdf: QpdfRun, options: QpdfPageOptions): Promise<void> {
  const bytes = await readPdfBytes(path, options);
  if (bytes.indexOf('/Encrypt') === -1) return;
  const encrypted = await runQpdfJob({ inputFile: resolve(path), isEncrypted: '' }, qpdf.dir, {
    ...options,
    names: { [resolve(path)]: path },
  });
  // --is-encrypted: exit 0 encrypted, 2 not.
  if (encrypted.code === 0) {
    throw new FileconvError('PASSWORD_PROTECTED', `${path} is encrypted: unlock it first.`);
  }
}

/** The page count of `path`, read by qpdf; INPUT_LIMIT_EXCEEDED past `maxPages`. */
async function pageCount(
  path: string,
  qpdf: QpdfRun,
  options: QpdfPageOptions,
  what = path,
): Promise<number> {
  const pages = Number(
    (await qpdf.run({ inputFile: resolve(path), showNpages: '' }, 'counting pages')).trim(),
  );
  if (!Number.isInteger(pages)) throw new FileconvError('INTERNAL', `qpdf gave no page count for ${path}.`);
  if (options.maxPages !== undefined && pages > options.maxPages) {
    throw workBudgetError('maxDocumentPages', `${what} has ${pages} pages`, pages, options.maxPages);
  }
  return pages;
}

/** An input checked as pdf-lib would check it (checkInput), and its page count within the budget. */
async function checkedPageCount(path: string, qpdf: QpdfRun, options: QpdfPageOptions): Promise<number> {
  await checkInput(path, qpdf, options);
  return pageCount(path, qpdf, options);
}

/** 0-based page indexes as a qpdf page range, in order: [0, 1, 2, 6, 4] -> '1-3,7,5'. */
export function qpdfRange(indexes: readonly number[]): string {
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i <= indexes.length; i++) {
    if (i < indexes.length && indexes[i] === indexes[i - 1]! + 1) continue;
    const first = indexes[start]! + 1;
    const last = indexes[i - 1]! + 1;
    parts.push(first === last ? `${first}` : `${first}-${last}`);
    start = i;
  }
  return parts.join(',');
}

/** mergePdfs through qpdf: the pages of `inputs`, in order, in a new PDF. */
export async function qpdfMerge(
  inputs: readonly string[],
  output: string,
  options: QpdfPageOptions,
): Promise<{ pages: number }> {
  return withQpdf(inputs, options, async (qpdf) => {
    for (const input of inputs) await checkInput(input, qpdf, options);
    const merged = join(qpdf.dir, 'merged.pdf');
    const pages = inputs.map((input) => ({ file: resolve(input) }));
    await qpdf.run({ empty: '', outputFile: merged, pages }, 'merging the PDFs');
    const count = await pageCount(merged, qpdf, options, 'The merged PDF');
    await placeFile(merged, output);
    return { pages: count };
  });
}

/** extractPages through qpdf: the pages `ranges` selects, in the order written, in a new PDF. */
export async function qpdfExtract(
  input: string,
  ranges: string,
  output: string,
  options: QpdfPageOptions,
): Promise<{ pages: number }> {
  return withQpdf([input], options, async (qpdf) => {
    const selected = parsePageRanges(ranges, await checkedPageCount(input, qpdf, options));
    const extracted = join(qpdf.dir, 'extracted.pdf');
    const pages = [{ file: resolve(input), range: qpdfRange(selected) }];
    await qpdf.run({ empty: '', outputFile: extracted, pages }, 'extracting pages');
    await placeFile(extracted, output);
    return { pages: selected.length };
  });
}

/** rotatePages through qpdf: `angle` (a multiple of 90, clockwise) added to the pages `ranges` selects. */
export async function qpdfRotate(
  input: string,
  angle: number,
  ranges: string,
  output: string,
  options: QpdfPageOptions,
): Promise<{ pages: number }> {
  return withQpdf([input], options, async (qpdf) => {
    const count = await checkedPageCount(input, qpdf, options);
    const selected = parsePageRanges(ranges, count);
    const turn = ((angle % 360) + 360) % 360;
    const rotated = join(qpdf.dir, 'rotated.pdf');
    const job: Record<string, unknown> = { inputFile: resolve(input), outputFile: rotated };
    // '+90:1-3': relative to each page's own rotation, as pdf-lib's getRotation() + angle is.
    if (turn !== 0 && selected.length > 0) job.rotate = `+${turn}:${qpdfRange(selected)}`;
    await qpdf.run(job, 'rotating pages');
    await placeFile(rotated, output);
    return { pages: count };
  });
}
