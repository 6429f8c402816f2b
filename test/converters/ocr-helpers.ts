/**
 * What the OCR tests share: the sentences the fixtures hold (scripts/make-ocr-fixtures.sh), a
 * word-by-word comparison (the bar: at most one wrong word), whether tesseract with the
 * English and German data is here, and a PNG header claiming any size (a decompression bomb).
 */
import { execFileSync } from 'node:child_process';

export const SENTENCE = 'The quick brown fox jumps over the lazy dog 1234';
export const GERMAN_SENTENCE = 'Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich';
export const TESSERACT_INSTALL = 'apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu';

function installedLanguages(): string[] {
  try {
    return execFileSync('tesseract', ['--list-langs'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
      .split('\n')
      .map((line) => line.trim());
  } catch {
    return [];
  }
}

/** Tesseract with eng and deu, poppler-utils and qpdf: everything the OCR tests run or check with. */
export const OCR_TOOLS = (() => {
  const languages = installedLanguages();
  const has = (tool: string, args: string[]) => {
    try {
      execFileSync(tool, args, { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  return (
    languages.includes('eng') &&
    languages.includes('deu') &&
    has('pdftotext', ['-v']) &&
    has('pdftoppm', ['-v']) &&
    has('qpdf', ['--version'])
  );
})();

/** Words as compared: split on white space, punctuation at either end dropped. */
function words(text: string): string[] {
  return text
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter(Boolean);
}

/** Word-level edit distance between what was expected and what OCR read (substitutions, insertions, deletions). */
export function wrongWords(expected: string, actual: string): number {
  const want = words(expected);
  const got = words(actual);
  let row = Array.from({ length: got.length + 1 }, (_, index) => index);
  for (let i = 1; i <= want.length; i++) {
    const next = [i];
    for (let j = 1; j <= got.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (want[i - 1] === got[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[got.length]!;
}
