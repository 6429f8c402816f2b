/**
 * Fonts for PDF output. The 14 standard PDF fonts only encode Latin-1, so every PDF embeds real
 * TrueType fonts: DejaVu Sans, Sans Bold and Sans Mono from the npm package `dejavu-fonts-ttf`
 * (Latin, Cyrillic, Greek, Armenian, Georgian, Hebrew, Arabic and many symbols) unless the host
 * supplies its own files, e.g. a CJK font. Fonts are subset, so a PDF carries only the glyphs it
 * uses.
 *
 * A character the faces lack is drawn in a fallback face found among the machine's fonts
 * (system-fonts.ts: a CJK font for Chinese, say), chosen once per document for the characters it
 * holds. A character no face has is replaced with U+FFFD (or '?') rather than drawn as the font's
 * blank .notdef glyph: the reader sees that something is missing, and text extraction does not
 * produce garbage. Control characters and invisible format characters are dropped.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Font } from '@pdf-lib/fontkit';
import type { PDFDocument, PDFFont } from 'pdf-lib';
import { FileconvError } from '../../core/errors.js';
import { npmInstall } from '../../kit/engine-packages.js';
import type { PdfEngine } from '../../kit/libraries/documents.js';
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
      `The text converter needs the npm package 'dejavu-fonts-ttf' for PDF output: run \`${npmInstall('dejavu-fonts-ttf')}\``,
      { cause: error, details: { package: 'dejavu-fonts-ttf', install: npmInstall('dejavu-fonts-ttf') } },
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

/** Whether a character is dropped from text outright: C0/C1 controls. */
const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code < 0xa0);

/** One embedded face, with the measurements the line breaker needs. */
export class LayoutFont {
  /** Advance widths in ems, by code point: measuring through pdf-lib lays out every string. */
  private readonly advances = new Map<number, number>();
  private readonly placeholder: string;

  constructor(
    readonly pdf: PDFFont,
    private readonly metrics: Font,
    /** The face drawing what this one lacks (a CJK font), if the document needed one. */
    readonly fallback?: LayoutFont,
  ) {
    this.placeholder = metrics.hasGlyphForCodePoint(0xfffd) ? '\uFFFD' : '?';
  }

  /** The face that draws `code`: this one, else the fallback when it has it. */
  private faceFor(code: number): LayoutFont {
    return this.fallback && !this.metrics.hasGlyphForCodePoint(code) && this.fallback.has(code)
      ? this.fallback
      : this;
  }

  has(code: number): boolean {
    return this.metrics.hasGlyphForCodePoint(code);
  }

  /** `text` with what no face can draw replaced (placeholder) or dropped (controls, format characters). */
  clean(text: string): string {
    let out = '';
    for (const char of text) {
      const code = char.codePointAt(0) ?? 0;
      if (isControl(code)) continue;
      // Invisible format characters (soft hyphen, bidi marks, zero-width space) draw nothing in
      // a viewer, but DejaVu has visible glyphs for some; the joiners matter to shaping.
      if (FORMAT.test(char) && code !== 0x200c && code !== 0x200d) continue;
      out += this.has(code) || this.fallback?.has(code) ? char : this.placeholder;
    }
    return out;
  }

  /** Cleaned `text` cut into runs of one face each, in order: what a line draws font by font. */
  runs(text: string): { font: LayoutFont; text: string }[] {
    if (!this.fallback) return [{ font: this, text }];
    const runs: { font: LayoutFont; text: string }[] = [];
    for (const char of text) {
      const font = this.faceFor(char.codePointAt(0) ?? 0);
      const last = runs.at(-1);
      if (last?.font === font) last.text += char;
      else runs.push({ font, text: char });
    }
    return runs;
  }

  /**
   * Width of cleaned `text` at `size` points: the sum of its glyphs' advances, which is what the
   * page shows (pdf-lib draws glyphs at their advances, without kerning; ligatures are off).
   */
  width(text: string, size: number): number {
    if (this.fallback && NEEDS_SHAPING.test(text)) {
      const runs = this.runs(text);
      if (runs.length > 1 || runs[0]?.font !== this) {
        return runs.reduce((sum, run) => sum + run.font.width(run.text, size), 0);
      }
    }
    if (NEEDS_SHAPING.test(text)) {
      const glyphs = shapeLine(text, (run) => this.metrics.layout(run, FEATURES).glyphs);
      return (glyphs.reduce((sum, glyph) => sum + glyph.advanceWidth, 0) * size) / this.metrics.unitsPerEm;
    }
    let ems = 0;
    for (const char of text) ems += this.advance(char.codePointAt(0) ?? 0);
    return ems * size;
  }

  /** One character's advance in ems, in the face that draws it. */
  private advance(code: number): number {
    let advance = this.advances.get(code);
    if (advance === undefined) {
      const face = this.faceFor(code);
      advance =
        face === this
          ? this.metrics.glyphForCodePoint(code).advanceWidth / this.metrics.unitsPerEm
          : face.advance(code);
      this.advances.set(code, advance);
    }
    return advance;
  }
}

/**
 * The characters of `texts` that the faces of `files` lack (controls and format characters aside),
 * at most `limit` of them, in order of first appearance: what a fallback face must draw.
 */
export async function missingCodePoints(
  engine: PdfEngine,
  files: FontFiles,
  texts: Iterable<string> | AsyncIterable<string>,
  limit = 256,
): Promise<number[]> {
  const faces = await Promise.all(
    (['regular', 'bold', 'mono'] as const).map(
      async (role) => (await parseFont(engine, files[role], role)).metrics,
    ),
  );
  const missing = new Set<number>();
  const seen = new Set<number>();
  for await (const text of texts) {
    for (const char of text) {
      const code = char.codePointAt(0) ?? 0;
      if (code < 0x80 || seen.has(code)) continue;
      seen.add(code);
      if (isControl(code) || FORMAT.test(char)) continue;
      if (faces.some((face) => !face.hasGlyphForCodePoint(code))) missing.add(code);
      if (missing.size >= limit) return [...missing];
    }
  }
  return [...missing];
}

export type LayoutFonts = Record<FontRole, LayoutFont>;

/**
 * Embeds the three faces into `doc` (subset; the same file used twice is embedded once), each
 * backed by the `fallback` face when one was found for the document's text.
 */
export async function embedFonts(
  doc: PDFDocument,
  engine: PdfEngine,
  files: FontFiles,
  fallback?: string,
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
    const layout = new LayoutFont(pdf, font.metrics, backup);
    embedded.set(path, layout);
    return layout;
  };
  let backup: LayoutFont | undefined;
  if (fallback !== undefined) {
    const font = await parseFont(engine, fallback, 'regular');
    backup = new LayoutFont(
      await doc.embedFont(font.bytes, { subset: true, features: FEATURES }),
      font.metrics,
    );
  }
  const regular = await embed('regular');
  const bold = await embed('bold');
  const mono = await embed('mono');
  return { regular, bold, mono };
}
