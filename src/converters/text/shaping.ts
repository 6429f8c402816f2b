/**
 * Which glyphs pdf-lib draws for a line. pdf-lib lays out every string with fontkit's full
 * OpenType shaper (GSUB and GPOS lookups), which took ~90% of the time of a plain-text PDF
 * (20 MiB of text: minutes), and then uses only the glyphs, never the GPOS positions. So pdf-lib
 * gets a fontkit whose fonts map code points straight to glyphs, and shape only text that needs
 * it: joining scripts, right-to-left scripts, combining marks.
 *
 * fontkit also reverses the whole string when its script is right-to-left, which turned the
 * English around a single Hebrew word backwards. Lines are therefore shaped in runs: each
 * right-to-left run on its own (reversed by fontkit), the runs in logical order, or in reverse
 * order when the line starts with a right-to-left letter. A rough stand-in for the Unicode
 * bidirectional algorithm, right for a line of one direction with embedded words of the other.
 */
import type { Font, Glyph, GlyphRun } from '@pdf-lib/fontkit';
import type { FontkitModule } from '../../kit/libraries/documents.js';

const RTL = '\\p{Script=Hebrew}\\p{Script=Arabic}\\p{Script=Syriac}\\p{Script=Thaana}\\p{Script=Nko}';

/**
 * Text whose glyphs depend on their neighbours or their direction: joining and right-to-left
 * scripts, combining marks (Indic vowel signs and viramas, accents that compose), and joiners.
 * Everything else maps one code point to one glyph.
 */
export const NEEDS_SHAPING = new RegExp(`[\\p{M}\\p{Script=Mongolian}${RTL}\\u200c\\u200d]`, 'u');

/** A right-to-left run: right-to-left letters and what lies between them, short of another letter. */
const RTL_RUN = new RegExp(`[${RTL}](?:\\P{L}*[${RTL}])*`, 'gu');
const RTL_LETTER = new RegExp(`[${RTL}]`, 'u');

/** Features pdf-lib lays text out with (embedFonts); measurement must use the same. */
export const FEATURES = { liga: false };

/** The glyphs of `text` straight from the cmap, cached by code point (fontkit walks the cmap every time). */
function cmapGlyphs(font: Font, cache: Map<number, Glyph>, text: string): Glyph[] {
  const glyphs: Glyph[] = [];
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    let glyph = cache.get(code);
    if (glyph === undefined) {
      glyph = font.glyphForCodePoint(code);
      cache.set(code, glyph);
    }
    glyphs.push(glyph);
  }
  return glyphs;
}

/** The glyphs of a line that needs shaping, in drawing order; `shape` shapes one run. */
export function shapeLine(text: string, shape: (run: string) => Glyph[]): Glyph[] {
  const runs: Glyph[][] = [];
  let last = 0;
  for (const match of text.matchAll(RTL_RUN)) {
    if (match.index > last) runs.push(shape(text.slice(last, match.index)));
    runs.push(shape(match[0]));
    last = match.index + match[0].length;
  }
  if (last < text.length) runs.push(shape(text.slice(last)));
  const firstLetter = /\p{L}/u.exec(text)?.[0];
  if (firstLetter !== undefined && RTL_LETTER.test(firstLetter)) runs.reverse();
  return runs.flat();
}

/** A GlyphRun of `glyphs`. `positions` stays empty: pdf-lib reads only the glyphs of a run. */
function glyphRun(glyphs: Glyph[]): GlyphRun {
  const advanceWidth = glyphs.reduce((sum, glyph) => sum + glyph.advanceWidth, 0);
  const bbox = { minX: 0, minY: 0, maxX: advanceWidth, maxY: 0, width: advanceWidth, height: 0 };
  const run = { glyphs, positions: [], script: 'Zyyy', language: null, direction: 'ltr' as const };
  return { ...run, features: {}, advanceWidth, advanceHeight: 0, bbox };
}

/** The fontkit given to pdf-lib (see the module comment). */
export function fontkitWithFastLayout(fontkit: FontkitModule): Pick<FontkitModule, 'create'> {
  return {
    create(bytes: Uint8Array, postscriptName?: string): Font {
      const font = fontkit.create(bytes, postscriptName);
      const shape = font.layout.bind(font);
      const cache = new Map<number, Glyph>();
      font.layout = (text, features) => {
        if (!NEEDS_SHAPING.test(text)) return glyphRun(cmapGlyphs(font, cache, text));
        const shapeRun = (run: string) =>
          NEEDS_SHAPING.test(run) ? shape(run, features).glyphs : cmapGlyphs(font, cache, run);
        return glyphRun(shapeLine(text, shapeRun));
      };
      return font;
    },
  };
}
