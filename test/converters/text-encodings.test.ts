/**
 * Text in the encodings detection accepts, read right by every text edge: UTF-16 with and without
 * a byte-order mark, Windows-1252 and an HTML page's declared charset. And scripts DejaVu lacks
 * (Chinese) drawn in a fallback face found through fontconfig, read back with pdftotext.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTextConverter } from '../../src/converters/text/index.js';
import { sniffEncoding } from '../../src/kit/text/text-encoding.js';
import { describeWithEngine } from '../helpers/engines.js';
import { context, type Workspace, withOptionsParsed, workspace } from './converter-harness.js';

const converter = withOptionsParsed(createTextConverter());
const HINDI = 'नमस्ते दुनिया, यह एक परीक्षण है।';
const FRENCH = 'Où est la fenêtre? Déjà vu, naïve façade.';
const CHINESE = '你好，世界。这是一个测试。';

function utf16(text: string, littleEndian: boolean, bom: boolean): Buffer {
  const le = Buffer.from(text, 'utf16le');
  const bytes = littleEndian ? le : Buffer.from(le).swap16();
  const mark = littleEndian ? [0xff, 0xfe] : [0xfe, 0xff];
  return bom ? Buffer.concat([Buffer.from(mark), bytes]) : bytes;
}

async function convert(ws: Workspace, from: string, to: string, input: Buffer): Promise<string> {
  const inputPath = join(ws.inputs, `in-${to}.${from}`);
  await writeFile(inputPath, input);
  const ctx = context(ws, from, to, { inputPath, outputPath: join(ws.outputs, `out.${to}`) });
  await converter.convert(ctx);
  expect(await readdir(ws.temp)).toEqual([]);
  if (to !== 'pdf') return readFile(ctx.outputPath, 'utf8');
  return execFileSync('pdftotext', ['-enc', 'UTF-8', ctx.outputPath, '-'], { encoding: 'utf8' });
}

const hasPdftotext = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('sniffEncoding', () => {
  it.each([
    ['UTF-8 with BOM', Buffer.from(`\uFEFF${FRENCH}`), 'utf-8', 3],
    ['UTF-8', Buffer.from(FRENCH), 'utf-8', 0],
    ['UTF-16LE with BOM', utf16(HINDI, true, true), 'utf-16le', 2],
    ['UTF-16BE with BOM', utf16(HINDI, false, true), 'utf-16be', 2],
    ['UTF-16LE without BOM', utf16('Hello, plain ASCII in UTF-16', true, false), 'utf-16le', 0],
    ['Windows-1252', Buffer.from(FRENCH, 'latin1'), 'windows-1252', 0],
    [
      'a declared charset',
      Buffer.from(
        '<html><head><meta charset="iso-8859-15"></head><body>\xe9t\xe9 \xa4</body></html>',
        'latin1',
      ),
      'iso-8859-15',
      0,
    ],
  ])('%s', (_name, bytes, encoding, bom) => {
    expect(sniffEncoding(bytes)).toEqual({ encoding, bom });
  });
});

describeWithEngine(
  'pdftotext',
  hasPdftotext,
  'apt-get install poppler-utils',
  'text in other encodings',
  () => {
    it('reads UTF-16LE Hindi text to html (and mostly-ASCII UTF-16 without a byte-order mark)', async () => {
      const ws = await workspace();
      const input = utf16(`${HINDI}\n`, true, true);
      expect(await convert(ws, 'txt', 'html', input)).toContain(HINDI);
      const ascii = 'Plain words, saved as UTF-16 without a mark.';
      expect(await convert(ws, 'txt', 'html', utf16(ascii, true, false))).toContain(ascii);
    });

    it('reads Windows-1252 HTML to md and txt with its accents', async () => {
      const ws = await workspace();
      const input = Buffer.from(`<html><body><p>${FRENCH}</p></body></html>`, 'latin1');
      expect(await convert(ws, 'html', 'md', input)).toContain(FRENCH);
      expect(await convert(ws, 'html', 'txt', input)).toContain(FRENCH);
    });

    it('reads UTF-16BE Markdown to pdf', async () => {
      const ws = await workspace();
      const text = await convert(ws, 'md', 'pdf', utf16(`# Titre\n\n${FRENCH}\n`, false, true));
      expect(text).toContain('Titre');
      expect(text.replace(/\s+/g, ' ')).toContain(FRENCH);
    });
  },
);

/** Whether fontconfig knows a single-file font holding `codePoint` (what a fallback can use). */
function hasFontFor(codePoint: number): boolean {
  try {
    return execFileSync('fc-list', [`:charset=${codePoint.toString(16)}`, 'file'], { encoding: 'utf8' })
      .split('\n')
      .some((line) => /\.(ttf|otf):/.test(line));
  } catch {
    return false;
  }
}
const hasFallbackFonts = hasFontFor(0x4e2d) && hasFontFor(0x928);

describeWithEngine(
  'CJK and Devanagari fonts',
  hasFallbackFonts && hasPdftotext,
  'apt-get install fonts-droid-fallback fonts-lohit-deva fontconfig poppler-utils',
  'scripts DejaVu lacks',
  () => {
    it('draws Chinese in a system fallback face, Latin still in DejaVu', async () => {
      const ws = await workspace();
      const markdown = `# Hello 世界\n\n${CHINESE} Latin text stays.\n`;
      const text = await convert(ws, 'md', 'pdf', Buffer.from(markdown));
      expect(text).toContain('世界');
      expect(text.replace(/\s+/g, '')).toContain(CHINESE.replace(/\s+/g, ''));
      expect(text).not.toContain('\uFFFD');
      const fonts = execFileSync('pdffonts', [join(ws.outputs, 'out.pdf')], { encoding: 'utf8' });
      expect(fonts).toMatch(/DejaVuSans/);
      expect(fonts).toMatch(/Droid|Noto|WenQuanYi|CJK|Fallback/i);
    });

    it('draws UTF-16LE Hindi in a Devanagari face, shaped', async () => {
      const ws = await workspace();
      const pdf = await convert(ws, 'txt', 'pdf', utf16(`${HINDI}\n`, true, true));
      // pdftotext gives conjuncts back whole, but a vowel sign drawn before its consonant comes
      // out in visual order: whole words without one are compared.
      expect(pdf).toContain('नमस्ते');
      expect(pdf).toContain('परीक्षण');
      expect(pdf).not.toContain('\uFFFD');
    });

    it('does the same for plain text', async () => {
      const ws = await workspace();
      const text = await convert(ws, 'txt', 'pdf', Buffer.from(`${CHINESE}\nplain\n`));
      expect(text.replace(/\s+/g, '')).toContain(CHINESE);
      expect(text).not.toContain('\uFFFD');
    });
  },
);
