/**
 * Fonts for PDF output. The 14 standard PDF fonts only encode Latin-1, so every PDF embeds real
 * TrueType fonts: DejaVu Sans, Sans Bold and Sans Mono from the npm package `dejavu-fonts-ttf`
 * (Latin, Cyrillic, Greek, Armenian, Georgian, Hebrew, Arabic and many symbols) unless the host
 * supplies its own files, e.g. a CJK font. Fonts are subset, so a PDF carries only the glyphs it
 * uses.
 *
 * A character the font lacks is replaced with U+FFFD (or '?') rather than drawn as the font's
 * blank .notdef glyph: the reader sees that something is missing, and text extraction does not
 * produce garbage. Control characters and invisible format characters are dropped.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Font } from '@pdf-lib/fontkit';
import type { PDFDocument, PDFFont } from 'pdf-lib';
import { FileconvError } from '../../../../src/errors.js';
import type { PdfEngine } from './engines.js';
import { FEATURES, fontkitWithFastLayout, NEEDS_SHAPING, shapeLine } from './shaping.js';

/** Paths of the three faces a PDF uses: body text, headings and code. */
export interface FontFiles {
  regular: string;
  bold: string;
  mono: string;
}

export type FontRole = keyof FontFiles;

const DEJAVU: FontFiles = {
  regular: 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf',
  bold: 'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf',
  mono: 'dejavu-fonts-ttf/ttf/DejaVuSansMono.ttf',
};

/**
 * The DejaVu files, resolved through Node's module resolution (not a path relative to this file,
 * which would break once bundled into dist/). ENGINE_UNAVAILABLE when the package is missing.
 */
export function dejaVuFontFiles(): FontFiles {
  const require = createRequire(import.meta.url);
  try {
    return {
      regular: require.resolve(DEJAVU.regular),
      bold: require.resolve(DEJAVU.bold),
      mono: require.resolve(DEJAVU.mono),
    };
  } catch (error) {
    throw new FileconvError(
      'ENGINE_UNAVAILABLE',
      "The text converter needs the npm package 'dejavu-fonts-ttf' for PDF output: run `npm install dejavu-fonts-ttf`",
      { cause: error, details: { package: 'dejavu-fonts-ttf', install: 'npm install dejavu-fonts-ttf' } },
    );
  }
}

interface ParsedFont {
  bytes: Uint8Array;
  metrics: Font;
}

/** Parsed fonts by path: DejaVu Sans is 740 kB, not worth reading and parsing for every PDF. */
const parsed = new Map<string, Promise<ParsedFont>>();

function parseFont(engine: PdfEngine, path: string, role: FontRole): Promise<ParsedFont> {
  let pending = parsed.get(path);
  if (!pending) {
    pending = readFile(path).then((bytes) => {
      const metrics = engine.fontkit.create(bytes);
      // A font collection (.ttc) parses into something without glyph lookups; pdf-lib cannot embed it either.
      if (typeof metrics.hasGlyphForCodePoint !== 'function')
        throw new Error('not a single TrueType/OpenType font');
      return { bytes, metrics };
    });
    pending.catch(() => parsed.delete(path));
    parsed.set(path, pending);
  }
  // The path stays out of the message: job errors reach clients, the server's layout should not.
  return pending.catch((error: unknown) => {
    throw new FileconvError('ENGINE_UNAVAILABLE', `The ${role} font for PDF output could not be loaded`, {
      cause: error,
      details: { font: role },
    });
  });
}

const FORMAT = /\p{Cf}/u;

/** One embedded face, with the measurements the line breaker needs. */
export class LayoutFont {
  /** Advance widths in font units, by code point: measuring through pdf-lib lays out every string. */
  private readonly advances = new Map<number, number>();
  private readonly placeholder: string;

  constructor(
    readonly pdf: PDFFont,
    private readonly metrics: Font,
  ) {
    this.placeholder = metrics.hasGlyphForCodePoint(0xfffd) ? '\uFFFD' : '?';
  }

  /** `text` with what this font cannot draw replaced (placeholder) or dropped (controls, format characters). */
  clean(text: string): string {
    let out = '';
    for (const char of text) {
      const code = char.codePointAt(0) ?? 0;
      if (code < 0x20 || (code >= 0x7f && code < 0xa0)) continue;
      // Invisible format characters (soft hyphen, bidi marks, zero-width space) draw nothing in
      // a viewer, but DejaVu has visible glyphs for some; the joiners matter to shaping.
      if (FORMAT.test(char) && code !== 0x200c && code !== 0x200d) continue;
      out += this.metrics.hasGlyphForCodePoint(code) ? char : this.placeholder;
    }
    return out;
  }

  /**
   * Width of cleaned `text` at `size` points: the sum of its glyphs' advances, which is what the
   * page shows (pdf-lib draws glyphs at their advances, without kerning; ligatures are off).
   */
  width(text: string, size: number): number {
    if (NEEDS_SHAPING.test(text)) {
      const glyphs = shapeLine(text, (run) => this.metrics.layout(run, FEATURES).glyphs);
      return (glyphs.reduce((sum, glyph) => sum + glyph.advanceWidth, 0) * size) / this.metrics.unitsPerEm;
    }
    let units = 0;
    for (const char of text) {
      const code = char.codePointAt(0) ?? 0;
      let advance = this.advances.get(code);
      if (advance === undefined) {
        advance = this.metrics.glyphForCodePoint(code).advanceWidth;
        this.advances.set(code, advance);
      }
      units += advance;
    }
    return (units * size) / this.metrics.unitsPerEm;
  }
}

export type LayoutFonts = Record<FontRole, LayoutFont>;

/** Embeds the three faces into `doc` (subset; the same file used twice is embedded once). */
export async function embedFonts(
  doc: PDFDocument,
  engine: PdfEngine,
  files: FontFiles,
): Promise<LayoutFonts> {
  doc.registerFontkit(fontkitWithFastLayout(engine.fontkit));
  const embedded = new Map<string, LayoutFont>();
  const embed = async (role: FontRole): Promise<LayoutFont> => {
    const path = files[role];
    const known = embedded.get(path);
    if (known) return known;
    const font = await parseFont(engine, path, role);
    // Ligatures off: a ligature glyph ("fi") would make extracted and copied text differ from the input.
    const pdf = await doc.embedFont(font.bytes, { subset: true, features: FEATURES });
    const layout = new LayoutFont(pdf, font.metrics);
    embedded.set(path, layout);
    return layout;
  };
  const regular = await embed('regular');
  const bold = await embed('bold');
  const mono = await embed('mono');
  return { regular, bold, mono };
}
