/**
 * OCR of one checked PNG to text: the step image -> txt, the pdf -> txt fallback and the
 * searchable PDF's pages all go through here or runTesseract. Tesseract writes its text to a
 * file in a private work folder; it comes back tidied (no trailing blanks, no run of empty lines
 * longer than one), the layout pdf.js's text has too.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTesseract } from './tesseract.js';

export interface ReadImageOptions {
  languages: readonly string[];
  psm: number;
  /** The image's resolution when its header does not say. */
  dpi?: number | undefined;
  signal: AbortSignal;
  /** A folder of the caller's that is removed after (tesseract's output goes there). */
  workDir: string;
  /** What to call the image in messages. */
  name: string;
}

/** The text tesseract reads in `image`, tidied; '' for a page without text. */
export async function readImageText(image: string, options: ReadImageOptions): Promise<string> {
  const outputBase = join(options.workDir, 'ocr-text');
  await runTesseract({ ...options, image, outputBase, output: 'txt' });
  return tidyText(await readFile(`${outputBase}.txt`, 'utf8'));
}

export function tidyText(text: string): string {
  return text
    .replace(/\f/g, '\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+/, '')
    .trimEnd();
}
