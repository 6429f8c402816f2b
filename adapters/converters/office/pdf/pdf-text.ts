/**
 * PDF -> plain text with pdf.js: the text of every page in reading order, page after page, each
 * page ended by a newline and the next one started by a form feed (as pdftotext does), so page
 * boundaries survive and tools like `pr` or `less` honour them. Written page by page to the file,
 * never held whole in memory. Scanned pages (images only) have no text: there is no OCR here.
 */
import { open } from 'node:fs/promises';
import type { TextContent } from 'pdfjs-dist/types/src/display/api.js';
import { raceAbort, throwIfAborted } from '../../../../src/abort.js';
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

/** Writes the text of every page of `doc` to `path`; `onPage(done, total)` after each page. */
export async function writePdfText(
  doc: PDFDocumentProxy,
  path: string,
  signal: AbortSignal,
  onPage: (done: number, total: number) => void,
): Promise<void> {
  const file = await open(path, 'w');
  try {
    for (let pageNumber = 1; pageNumber <= doc.numPages; pageNumber++) {
      throwIfAborted(signal);
      const page = await getPage(doc, pageNumber);
      const content = await raceAbort(page.getTextContent(), signal).catch((error: unknown) => {
        throw mapPdfError(error);
      });
      page.cleanup();
      const text = pageText(content);
      await file.write(`${pageNumber > 1 ? '\f' : ''}${text}${text ? '\n' : ''}`);
      onPage(pageNumber, doc.numPages);
    }
  } finally {
    await file.close();
  }
}
