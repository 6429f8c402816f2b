/**
 * What the OCR tests share: the sentences the fixtures hold (scripts/make-ocr-fixtures.sh), a
 * word-by-word comparison (the bar: at most one wrong word), whether tesseract with the
 * English and German data is here, and a PNG header claiming any size (a decompression bomb).
 */
import { execFileSync } from 'node:child_process';
import { crc32 } from 'node:zlib';

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

/** A PNG of signature, IHDR and IEND only that claims `width` x `height` 8-bit grey pixels. */
export function claimingPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grey
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
