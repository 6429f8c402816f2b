/**
 * Text and Markdown to PDF: the PDFs are opened with pdfjs-dist to check pages, sizes, the text
 * (all of it, in order, non-Latin included), that no line runs past the margin, and the fonts.
 * The line breaker on its own is in text-line-breaker.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { createTextConverter, type TextPdfOptions } from '../../src/converters/text/index.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  expectProgressRun,
  fixture,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const converter = withOptionsParsed(createTextConverter());
const A4 = [595.28, 841.89];
const MM = 72 / 25.4;

interface PdfLine {
  text: string;
  x: number;
  width: number;
  /** Font size (the text matrix's scale). */
  size: number;
  font: string;
}

interface PdfSummary {
  pages: number;
  /** Page sizes [width, height]. */
  sizes: number[][];
  lines: PdfLine[][];
  title: string | undefined;
}

/** Every text item of every page, with its position, size and font name. */
async function readPdf(path: string): Promise<PdfSummary> {
  const doc = await getDocument({ data: new Uint8Array(await readFile(path)) }).promise;
  const summary: PdfSummary = { pages: doc.numPages, sizes: [], lines: [], title: undefined };
  const { info } = await doc.getMetadata();
  summary.title = (info as { Title?: string }).Title;
  for (let number = 1; number <= doc.numPages; number++) {
    const page = await doc.getPage(number);
    summary.sizes.push([page.view[2] ?? 0, page.view[3] ?? 0]);
    const content = await page.getTextContent();
    await page.getOperatorList(); // loads the fonts into commonObjs
    const lines: PdfLine[] = [];
    for (const item of content.items) {
      if (!('str' in item) || item.str === '') continue;
      const font = (page.commonObjs.get(item.fontName) as { name: string }).name;
      lines.push({ text: item.str, x: item.transform[4], width: item.width, size: item.transform[0], font });
    }
    summary.lines.push(lines);
  }
  await doc.destroy();
  return summary;
}

const allText = (pdf: PdfSummary) => pdf.lines.flatMap((page) => page.map((line) => line.text)).join('\n');
const noSpace = (text: string) => text.replace(/\s+/g, '');

async function toPdf(ws: Workspace, from: string, input: string, options: TextPdfOptions = {}, name = 'in') {
  const inputPath = join(ws.inputs, `${name}.${from}`);
  await writeFile(inputPath, input);
  const ctx = context(ws, from, 'pdf', {
    inputPath,
    outputPath: join(ws.outputs, `${name}.pdf`),
    options: { ...options },
  });
  await converter.convert(ctx);
  return readPdf(ctx.outputPath);
}

/** Every line starts at or after the left margin and ends before the right one. */
function expectWithinMargins(pdf: PdfSummary, width: number, margin: number): void {
  for (const line of pdf.lines.flat()) {
    expect(line.x).toBeGreaterThanOrEqual(margin - 0.01);
    expect(line.x + line.width, line.text.slice(0, 40)).toBeLessThanOrEqual(width - margin + 0.5);
  }
}

describe('txt -> pdf', () => {
  it('lays out fixture.txt on one A4 page: CJK in a system fallback face where one is installed, a placeholder for what no face has (emoji)', async () => {
    const ws = await workspace();
    const progress: number[] = [];
    const ctx = context(ws, 'txt', 'pdf', { progress });
    const result = await converter.convert(ctx);
    const pdf = await readPdf(ctx.outputPath);
    expect(pdf.pages).toBe(1);
    expect(pdf.sizes[0]).toEqual(A4);
    const text = allText(pdf);
    expect(text).toContain('fileconv plain-text fixture.');
    expect(text).toContain('Second line with UTF-8: café, naïve,');
    // CI installs a CJK font (fonts-droid-fallback); without one the three characters are placeholders.
    expect(text).toContain(hasCjkFont() ? '日本語' : '\uFFFD\uFFFD\uFFFD');
    expect(text).toContain(', emoji \uFFFD.');
    expect(text).toContain('An indented line (tab).');
    expect(pdf.lines[0]?.[0]?.font).toMatch(/^DejaVuSans-\d+$/);
    expect(result?.cpuMs).toBeGreaterThan(0);
    expectProgressRun(progress);
  });

  it('keeps Cyrillic, Greek and other non-Latin text DejaVu covers', async () => {
    const ws = await workspace();
    const input = 'Привет мир\nΓειά σου κόσμε\nGrüße, Ærø, Łódź\nשלום עולם\nمرحبا\nsay שלום to the world\n';
    const pdf = await toPdf(ws, 'txt', input);
    const text = allText(pdf);
    for (const words of ['Привет мир', 'Γειά σου κόσμε', 'Grüße, Ærø, Łódź']) expect(text).toContain(words);
    expect(text).not.toContain('\uFFFD');
    // A right-to-left word inside a left-to-right line turns alone, not the whole line.
    expect(text).toContain('say ');
    expect(text).toContain(' to the world');
  });

  it('wraps, breaks over-long words and paginates without losing or reordering a character', async () => {
    const ws = await workspace();
    const lines = Array.from(
      { length: 500 },
      (_, i) => `Line ${i}: ${'lorem ipsum dolor sit amet '.repeat(1 + (i % 7))}end${i}.`,
    );
    lines.splice(250, 0, `${'x'.repeat(1000)}${'ж'.repeat(1000)}`, '', '\tindented\tby tabs');
    const input = lines.join('\n');
    const pdf = await toPdf(ws, 'txt', input);
    expect(pdf.pages).toBeGreaterThan(10);
    expect(noSpace(allText(pdf))).toBe(noSpace(input));
    expectWithinMargins(pdf, A4[0] ?? 0, 20 * MM);
    // The 2000-character word spans several full lines.
    expect(pdf.lines.flat().filter((line) => /^x+$|^x*ж+$/.test(line.text)).length).toBeGreaterThan(10);
  });

  it('honours pageSize, fontSize, marginMm and monospace', async () => {
    const ws = await workspace();
    const input = Array.from({ length: 120 }, (_, i) => `line ${i} ${'words '.repeat(12)}`).join('\n');
    const plain = await toPdf(ws, 'txt', input, {}, 'plain');
    const options: TextPdfOptions = { pageSize: 'letter', fontSize: 16, marginMm: 10, monospace: true };
    const big = await toPdf(ws, 'txt', input, options, 'big');
    expect(big.sizes[0]).toEqual([612, 792]);
    expect(big.pages).toBeGreaterThan(plain.pages);
    expect(big.lines[0]?.[0]?.size).toBe(16);
    expect(big.lines[0]?.[0]?.x).toBeCloseTo(10 * MM, 1);
    expect(big.lines[0]?.[0]?.font).toMatch(/^DejaVuSansMono-\d+$/);
    expectWithinMargins(big, 612, 10 * MM);
    expect(noSpace(allText(big))).toBe(noSpace(input));
  });

  it('starts a new page at a form feed, and makes one blank page of an empty file', async () => {
    const ws = await workspace();
    const paged = await toPdf(ws, 'txt', 'page one\fpage two\n\fpage three', {}, 'paged');
    expect(paged.pages).toBe(3);
    expect(paged.lines.map((page) => page.map((line) => line.text).join(' '))).toEqual([
      'page one',
      'page two',
      'page three',
    ]);
    const empty = await toPdf(ws, 'txt', '', {}, 'empty');
    expect(empty.pages).toBe(1);
    expect(allText(empty)).toBe('');
  });

  it('uses a font file the host supplies', async () => {
    const ws = await workspace();
    const serif = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSerif.ttf');
    const custom = withOptionsParsed(createTextConverter({ fonts: { regular: serif } }));
    await writeFile(join(ws.inputs, 'serif.md'), '# Heading\n\nBody `code`\n\n    block\n');
    const ctx = context(ws, 'md', 'pdf', { inputPath: join(ws.inputs, 'serif.md') });
    await custom.convert(ctx);
    const fonts = new Set(
      (await readPdf(ctx.outputPath)).lines.flat().map((line) => line.font.replace(/-\d+$/, '')),
    );
    expect([...fonts]).toEqual(['DejaVuSerif']);
  });

  it('stops on abort mid-way with CANCELED and leaves nothing', async () => {
    const ws = await workspace();
    const inputPath = join(ws.inputs, 'long.txt');
    await writeFile(inputPath, 'some words on a line\n'.repeat(200_000));
    const controller = new AbortController();
    const ctx = context(ws, 'txt', 'pdf', {
      inputPath,
      signal: controller.signal,
      onProgress: (fraction) => {
        if (fraction > 0.2) controller.abort();
      },
    });
    await expectCode(converter.convert(ctx), 'CANCELED');
    await expectNoLeftovers(ws);
  });
});

describe('md -> pdf', () => {
  it('renders fixture.md: bold, larger heading, bullets, the table text and a title', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'md', 'pdf');
    await converter.convert(ctx);
    const pdf = await readPdf(ctx.outputPath);
    expect(pdf.pages).toBe(1);
    expect(pdf.title).toBe('fileconv fixture');
    const [heading, paragraph] = pdf.lines[0] ?? [];
    expect(heading).toMatchObject({ text: 'fileconv fixture', size: 22 });
    expect(heading?.font).toMatch(/^DejaVuSans-Bold-\d+$/);
    expect(paragraph).toMatchObject({ text: 'A Markdown file with a link and code.', size: 11 });
    const text = allText(pdf);
    expect(text).toContain('•');
    expect(text).toContain('item one');
    expect(noSpace(text)).toContain('name|value');
    expect(noSpace(text)).toContain('a|1');
    expect(text).not.toMatch(/[*`#[\]]/);
  });

  it('keeps all the text of every block, in order', async () => {
    const ws = await workspace();
    const markdown = [
      '# Title &amp; more',
      '## Второй уровень',
      'A paragraph with **bold**, _em_, `a < b`, ~~gone~~, a [link](https://example.com) and ![alt text](x.png).',
      'Soft\nbreak and hard  \nbreak.',
      '1. first',
      '2. second',
      '   - nested',
      '- [x] done',
      '- [ ] todo',
      '> quoted *text*',
      '```js',
      'const x = 1;\n\tindented();',
      '```',
      '---',
      '<div>html <b>block</b><script>hidden()</script></div>',
      '| h1 | h2 |\n| -- | -- |\n| c1 | c2 |',
    ].join('\n\n');
    const pdf = await toPdf(ws, 'md', markdown);
    const text = allText(pdf);
    const expected =
      'Title & more Второй уровень A paragraph with bold, em, a < b, gone, a link and alt text. Soft break and hard break. ' +
      '1. first 2. second ◦ nested ☑ done ☐ todo quoted text const x = 1; indented(); html block h1 | h2 c1 | c2';
    expect(noSpace(text)).toBe(noSpace(expected));
    // A soft break reads as a space; a hard break starts a new line.
    expect(text).toContain('Soft break and hard\nbreak.');
    expect(text).not.toContain('hidden');
    const code = pdf.lines.flat().find((line) => line.text.startsWith('const'));
    expect(code?.font).toMatch(/^DejaVuSansMono-\d+$/);
    const sizes = pdf.lines.flat().map((line) => line.size);
    expect(sizes[0]).toBeGreaterThan(sizes[1] ?? 0);
    expect(sizes[1]).toBeGreaterThan(sizes[2] ?? 0);
  });

  it('wraps long paragraphs within the margins over several pages', async () => {
    const ws = await workspace();
    const paragraph = 'Съешь же ещё этих мягких французских булок, да выпей чаю. '.repeat(40);
    const markdown = Array.from(
      { length: 20 },
      (_, i) => `## Part ${i}\n\n${paragraph}\n\n- ${paragraph}`,
    ).join('\n\n');
    const pdf = await toPdf(ws, 'md', markdown, { fontSize: 12 });
    expect(pdf.pages).toBeGreaterThan(5);
    expectWithinMargins(pdf, A4[0] ?? 0, 20 * MM);
    expect(noSpace(allText(pdf)).replace(/•/g, '')).toBe(noSpace(markdown).replace(/##|-/g, ''));
  });

  it('fails on fixture-less corrupt input cleanly (a missing file is INTERNAL)', async () => {
    const ws = await workspace();
    await expectCode(
      converter.convert(context(ws, 'md', 'pdf', { inputPath: fixture('nope.md') })),
      'INTERNAL',
    );
    await expectNoLeftovers(ws);
  });
});

/** Whether fontconfig knows a single-file font with CJK ideographs (what the fallback can use). */
function hasCjkFont(): boolean {
  try {
    return execFileSync('fc-list', [':charset=65e5', 'file'], { encoding: 'utf8' })
      .split('\n')
      .some((line) => /\.(ttf|otf):/.test(line));
  } catch {
    return false;
  }
}
