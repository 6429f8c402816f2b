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
 * Spacing accents that TeX (and other typesetters without precomposed glyphs) draws as a glyph of
 * their own before the letter they sit on, with the combining mark each stands for. pdf.js
 * reports them as they are drawn ("Wirtschaftsuniversit¨at"); pdftotext joins them by position.
 */
const SPACING_ACCENTS: Readonly<Record<string, string>> = {
  '\u00a8': '\u0308', // ¨ diaeresis
  '\u00b4': '\u0301', // ´ acute
  '\u02dd': '\u030b', // ˝ double acute
  '`': '\u0300', // grave
  '\u02c6': '\u0302', // ˆ circumflex
  '\u02dc': '\u0303', // ˜ tilde
  '\u00af': '\u0304', // ¯ macron
  '\u02d8': '\u0306', // ˘ breve
  '\u02d9': '\u0307', // ˙ dot above
  '\u02da': '\u030a', // ˚ ring above
  '\u02c7': '\u030c', // ˇ caron
  '\u00b8': '\u0327', // ¸ cedilla
  '\u02db': '\u0328', // ˛ ogonek
};
const ACCENT_THEN_LETTER =
  /([\u00a8\u00b4\u02dd`\u02c6\u02dc\u00af\u02d8\u02d9\u02da\u02c7\u00b8\u02db])(\p{L})/gu;
// An acute or grave typed for an apostrophe in an English contraction ("it´s", "don`t") stays.
const CONTRACTION = /^(?:s|t|ll|d|m|ve|re)\b/;

/**
 * The spacing accents of `text` joined with the letter after them where the two make one letter
 * (¨a -> ä, ˇc -> č); any other pair, or an apostrophe-like accent in a contraction, is left.
 */
export function joinSpacingAccents(text: string): string {
  return text.replace(
    ACCENT_THEN_LETTER,
    (pair, accent: string, letter: string, at: number, whole: string) => {
      if ((accent === '\u00b4' || accent === '`') && CONTRACTION.test(whole.slice(at + 1))) return pair;
      const joined = `${letter}${SPACING_ACCENTS[accent]}`.normalize('NFC');
      return [...joined].length === 1 ? joined : pair;
    },
  );
}

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
  return joinSpacingAccents(text)
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
