/**
 * Which font pdf-lib draws text in, for the operations that put text on a page (a watermark, a
 * form's field values): Helvetica, one of the 14 standard fonts every viewer has, when it can
 * encode every character (WinAnsi), so nothing is embedded; otherwise DejaVu Sans, subset and
 * embedded, from the text converter's font packages. Text DejaVu lacks (CJK) or that must be
 * shaped (Arabic, Hebrew: right to left, joined) is INVALID_OPTIONS naming the character.
 */
import { readFile } from 'node:fs/promises';
import type { PDFDocument, PDFFont } from 'pdf-lib';
import { dejaVuFontFiles } from '../../converters/text/fonts.js';
import { NEEDS_SHAPING } from '../../converters/text/shaping.js';
import { FileconvError } from '../../core/errors.js';
import { loadPdfEngine } from '../../kit/libraries/documents.js';

/** The characters WinAnsi adds to Latin-1 (where Latin-1 has control codes, 0x80-0x9F). */
const WIN_ANSI_EXTRAS = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** Whether Helvetica, a standard PDF font, can draw `char` (it encodes WinAnsi). */
export function isWinAnsi(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRAS.has(char);
}

/** What the refusals name: whose text it is ("watermark: the text's", "fill-form: field \"Name\"'s"). */
export interface UnicodeFontUse {
  /** The DejaVu Sans face: 'bold' (watermarks) or 'regular' (form fields). */
  face: 'regular' | 'bold';
  /** The start of a refusal's message, naming the text: `watermark: the text's`. */
  whose: string;
}

/**
 * DejaVu Sans embedded (subset) in `document` for `text` beyond WinAnsi; INVALID_OPTIONS for a
 * character it cannot draw as written, ENGINE_UNAVAILABLE (with its install line) when the text
 * converter's font packages (@pdf-lib/fontkit, dejavu-fonts-ttf) are missing.
 */
export async function embedUnicodeFont(
  document: PDFDocument,
  text: string,
  use: UnicodeFontUse,
): Promise<PDFFont> {
  const shaped = [...text].find((char) => NEEDS_SHAPING.test(char));
  if (shaped !== undefined) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `${use.whose} character "${shaped}" belongs to a script that is joined or written right to left, which is not laid out yet.`,
    );
  }
  const engine = await loadPdfEngine();
  const bytes = await readFile(dejaVuFontFiles()[use.face]);
  const metrics = engine.fontkit.create(bytes);
  const missing = [...text].find(
    (char) => !isWinAnsi(char) && !metrics.hasGlyphForCodePoint(char.codePointAt(0) ?? 0),
  );
  if (missing !== undefined) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `${use.whose} character "${missing}" is in none of the fonts used (Helvetica; DejaVu Sans for Greek, Cyrillic and more).`,
    );
  }
  document.registerFontkit(engine.fontkit);
  return document.embedFont(bytes, { subset: true });
}
