/**
 * A fallback face for the characters the PDF fonts lack (Chinese, Japanese, Korean, Thai, ...:
 * DejaVu covers none of them), found among the machine's own fonts through fontconfig, the way a
 * desktop application finds one. Without it such text came out as a row of U+FFFD although a
 * CJK font (Droid Sans Fallback, Noto) was installed.
 *
 * Only single-font files qualify (.ttf, .otf): pdf-lib cannot embed a face out of a collection
 * (.ttc, which is how Noto CJK ships). The candidate covering the most of the missing characters
 * wins. fontconfig (`fc-list`) is on every Linux desktop and server image with fonts; without it
 * there is simply no fallback.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Font } from '@pdf-lib/fontkit';
import type { PdfEngine } from '../../kit/libraries/documents.js';

const run = promisify(execFile);

/** Candidates checked at most: each is read and parsed (a CJK font is 5-20 MB). */
const MAX_CANDIDATES = 6;

/** Faces already chosen, by the missing characters they were chosen for. */
const chosen = new Map<string, Promise<string | undefined>>();

/** Files of fonts fontconfig says hold `codePoint`, single-font files only. */
async function fontsWith(codePoint: number): Promise<string[]> {
  try {
    const { stdout } = await run('fc-list', [`:charset=${codePoint.toString(16)}`, 'file'], {
      timeout: 10_000,
      maxBuffer: 1024 * 1024,
    });
    return stdout
      .split('\n')
      .map((line) => line.replace(/:\s*$/, '').trim())
      .filter((file) => /\.(ttf|otf)$/i.test(file));
  } catch {
    return [];
  }
}

function coverage(font: Font, codePoints: readonly number[]): number {
  return codePoints.filter((code) => font.hasGlyphForCodePoint(code)).length;
}

/**
 * The path of an installed font that draws the most of `codePoints` (none of which the document's
 * own fonts have), or undefined when none draws any. Remembered per set of characters.
 */
export function fallbackFontFor(
  engine: PdfEngine,
  codePoints: readonly number[],
): Promise<string | undefined> {
  const key = codePoints.join(',');
  let pending = chosen.get(key);
  if (!pending) {
    pending = pickFont(engine, codePoints);
    chosen.set(key, pending);
  }
  return pending;
}

async function pickFont(engine: PdfEngine, codePoints: readonly number[]): Promise<string | undefined> {
  const files = new Set<string>();
  // The first few missing characters name the scripts in play; each asks fontconfig once.
  for (const code of codePoints.slice(0, 4)) for (const file of await fontsWith(code)) files.add(file);
  let best: { file: string; covered: number } | undefined;
  for (const file of [...files].slice(0, MAX_CANDIDATES)) {
    try {
      const font = engine.fontkit.create(await readFile(file));
      if (typeof font.hasGlyphForCodePoint !== 'function') continue;
      const covered = coverage(font, codePoints);
      if (covered > (best?.covered ?? 0)) best = { file, covered };
    } catch {
      // An unreadable or broken font file is no candidate.
    }
  }
  return best?.file;
}
