/**
 * PDF -> plain text with pdf.js: the text of every page in reading order, page after page, each
 * page ended by a newline and the next one started by a form feed (as pdftotext does), so page
 * boundaries survive and tools like `pr` or `less` honour them. Written page by page to the file,
 * never held whole in memory. Scanned pages (images only) have no text: there is no OCR here.
 */
import { open } from 'node:fs/promises';
import type { TextContent } from 'pdfjs-dist/types/src/display/api.js';
import { raceAbort, throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { getPage, mapPdfError, type PDFDocumentProxy } from './pdfjs.js';

/**
 * One page's text. pdf.js splits text into runs and marks where a line ends (`hasEOL`); runs on a
 * line are already spaced by pdf.js, so they are joined as they come. Trailing blanks are trimmed
 * and runs of empty lines collapsed to one, which keeps paragraphs without the layout's padding.
 */
export function pageText(content: TextContent): string {
  let text = '';
  for (const item of content.items) {
    if (!('str' in item)) continue; // marked-content boundaries carry no text
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return text
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+/, '')
    .trimEnd();
}

/**
 * Writes the text of every page of `doc` to `path`; `onPage(done, total)` after each page.
 * INPUT_LIMIT_EXCEEDED once more than `maxBytes` would be written.
 */
export async function writePdfText(
  doc: PDFDocumentProxy,
  path: string,
  signal: AbortSignal,
  onPage: (done: number, total: number) => void,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<void> {
  const file = await open(path, 'w');
  let written = 0;
  try {
    for (let pageNumber = 1; pageNumber <= doc.numPages; pageNumber++) {
      throwIfAborted(signal);
      const page = await getPage(doc, pageNumber);
      const content = await raceAbort(page.getTextContent(), signal).catch((error: unknown) => {
        throw mapPdfError(error);
      });
      page.cleanup();
      const text = pageText(content);
      const chunk = `${pageNumber > 1 ? '\f' : ''}${text}${text ? '\n' : ''}`;
      written += Buffer.byteLength(chunk);
      if (written > maxBytes) {
        throw new FileconvError(
          'INPUT_LIMIT_EXCEEDED',
          `The PDF's text passes ${Math.round(maxBytes / (1024 * 1024))} MB by page ${pageNumber} of ${doc.numPages}`,
          { details: { maxTextBytes: maxBytes, page: pageNumber, pages: doc.numPages } },
        );
      }
      await file.write(chunk);
      onPage(pageNumber, doc.numPages);
    }
  } finally {
    await file.close();
  }
}
