/**
 * Greedy line breaking for PDF text: words are packed onto a line while they fit, breaks fall on
 * whitespace, and a word wider than the line (a URL, a hash, CJK text without spaces) is broken
 * between characters rather than allowed to run off the page. No character is ever dropped except
 * the whitespace at a break.
 */

/** Width in points of a string, for one font and size. */
export type Measure = (text: string) => number;

const WHITESPACE = /^\s/u;
const COMBINING_MARK = /^\p{M}/u;

/**
 * The lines `text` (one paragraph, no line feeds, already cleaned for the font) breaks into at
 * `maxWidth`. Leading whitespace (indentation) is kept on the first line only; runs of spaces
 * inside a line are kept as they are (a plain-text file may align columns with them).
 */
export function* breakLines(text: string, maxWidth: number, measure: Measure): Generator<string> {
  let line = '';
  let width = 0;
  let pending = '';
  let first = true;
  for (const [token] of text.matchAll(/\s+|\S+/gu)) {
    if (WHITESPACE.test(token)) {
      pending += token;
      continue;
    }
    const gap = line === '' && !first ? '' : pending;
    pending = '';
    const gapWidth = gap === '' ? 0 : measure(gap);
    const tokenWidth = measure(token);
    if (width + gapWidth + tokenWidth <= maxWidth) {
      line += gap + token;
      width += gapWidth + tokenWidth;
      first = false;
      continue;
    }
    if (line !== '') {
      yield line;
      line = '';
      width = 0;
    }
    first = false;
    if (tokenWidth <= maxWidth) {
      line = token;
      width = tokenWidth;
      continue;
    }
    // Too wide for any line: break between characters (code points, so surrogate pairs stay whole;
    // a combining mark stays with its base even if that overshoots by a hair).
    for (const char of token) {
      const charWidth = measure(char);
      if (line !== '' && width + charWidth > maxWidth && !COMBINING_MARK.test(char)) {
        yield line;
        line = '';
        width = 0;
      }
      line += char;
      width += charWidth;
    }
  }
  // A paragraph of only whitespace (or nothing) is still one, empty, line.
  if (line !== '' || first) yield line;
}
