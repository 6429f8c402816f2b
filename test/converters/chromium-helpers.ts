/** Reading the Chromium converter's PDFs back with poppler (pdfinfo, pdftotext), tools independent of the renderer. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { locateChromium } from '../../src/converters/chromium/chromium-locate.js';

export const run = promisify(execFile);

/** Whether a Chromium is found here, as the converter looks for one (the test files' engine gate). */
export const CHROMIUM_FOUND = typeof (await locateChromium(undefined)) === 'string';

export async function pdfText(path: string): Promise<string> {
  return (await run('pdftotext', ['-layout', path, '-'])).stdout;
}

export async function pdfInfo(path: string): Promise<{ pages: number; size: string }> {
  const { stdout } = await run('pdfinfo', [path]);
  return {
    pages: Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1]),
    size: /^Page size:\s+([\d.]+ x [\d.]+)/m.exec(stdout)?.[1] ?? '',
  };
}

/**
 * A page size from pdfinfo ('595.92 x 842.88') within 1.5 pt of `points`: Chromium rounds pages to
 * whole device pixels (A4, 595.28 x 841.89 pt, comes out as 595.92 x 842.88).
 */
export function expectSize(size: string, points: [number, number]): void {
  const [width, height] = size.split(' x ').map(Number);
  expect(Math.abs(width! - points[0]), size).toBeLessThan(1.5);
  expect(Math.abs(height! - points[1]), size).toBeLessThan(1.5);
}

/** Where each word of the first page sits, in points from the top left (pdftotext -bbox). */
export async function wordBoxes(path: string): Promise<{ word: string; xMin: number; yMin: number }[]> {
  const { stdout } = await run('pdftotext', ['-bbox', '-f', '1', '-l', '1', path, '-']);
  return [...stdout.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>([^<]*)<\/word>/g)].map((match) => ({
    word: match[3]!,
    xMin: Number(match[1]),
    yMin: Number(match[2]),
  }));
}

/**
 * A DejaVu face from the dejavu-fonts-ttf dev dependency, read at test time (no font file is
 * committed). Tests pick faces no system font matches, so a font in the PDF can only be theirs.
 */
export function dejaVuFace(file: string): Buffer {
  return readFileSync(join(import.meta.dirname, '..', '..', 'node_modules', 'dejavu-fonts-ttf', 'ttf', file));
}
