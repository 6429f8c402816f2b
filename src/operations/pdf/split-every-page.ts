/**
 * Splitting a PDF into one PDF per page, packed as a zip (page-001.pdf, page-002.pdf, ...). The
 * zip is written entry by entry while the pages are copied, beside the output under a temp name,
 * and moved into place only when complete.
 */
import { randomUUID } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { createStreamingZip, pageEntryName } from '../../converters/pdf/page-zip.js';
import { throwIfAborted } from '../../core/abort.js';
import { isFileconvError } from '../../core/errors.js';
import { parsePageRanges } from '../../core/page-ranges.js';
import { loadPdfLib } from '../../kit/libraries/pdf.js';
import { outputFileError } from '../../kit/local-files.js';
import { openPdf, type PdfRunOptions } from './pdf-document.js';

export const splitEveryPageOptionsSchema = z.strictObject({
  /** Which pages become files ("1-3,5", "7-"); default every page. */
  pages: z.string().max(1000).optional().describe('Which pages become files ("1-3,5", "7-"). Default all.'),
});

export type SplitEveryPageOptions = z.input<typeof splitEveryPageOptionsSchema> & PdfRunOptions;

/** Writes each selected page of `input` as its own PDF into the zip `outputZip`. */
export async function splitEveryPage(
  input: string,
  outputZip: string,
  options: SplitEveryPageOptions = {},
): Promise<{ pages: number; files: string[] }> {
  const signal = options.signal ?? new AbortController().signal;
  const { PDFDocument } = await loadPdfLib();
  const source = await openPdf(input, options);
  const count = source.getPageCount();
  const selected = parsePageRanges(options.pages ?? 'all', count);
  const scratch = join(dirname(outputZip), `.fileconv-${randomUUID()}.zip`);
  const files: string[] = [];
  const zip = await createStreamingZip(scratch);
  try {
    for (const index of selected) {
      throwIfAborted(signal);
      const single = await PDFDocument.create();
      const [page] = await single.copyPages(source, [index]);
      if (page) single.addPage(page);
      const name = pageEntryName(index + 1, count, 'pdf');
      await zip.add(name, Buffer.from(await single.save()));
      files.push(name);
    }
    throwIfAborted(signal);
    await zip.finish();
    await rename(scratch, outputZip);
  } catch (error) {
    await zip.abort();
    await rm(scratch, { force: true });
    // Our own errors (abort) pass; anything else happened writing the zip.
    throw isFileconvError(error) ? error : outputFileError(outputZip, error);
  }
  return { pages: selected.length, files };
}
