/**
 * The text converter's markup edges: Markdown to HTML and text, HTML to Markdown and text, text to
 * HTML; raw HTML and script URLs, input limits, nesting bombs, and the context contract. PDF
 * output is in text-pdf.test.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTextConverter } from '../../src/converters/text/index.js';
import { FileconvError } from '../../src/core/errors.js';
import { MAX_HTML_DEPTH } from '../../src/kit/text/html-depth.js';
import {
  context,
  expectCode,
  expectHtmlDocument,
  expectNoLeftovers,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const converter = withOptionsParsed(createTextConverter());

/** Converts `input` (written to the workspace as in.<from>) and returns the output as text. */
async function convertText(ws: Workspace, from: string, to: string, input: string, text = converter) {
  const inputPath = join(ws.inputs, `in.${from}`);
  await writeFile(inputPath, input);
  const ctx = context(ws, from, to, { inputPath });
  await text.convert(ctx);
  return readFile(ctx.outputPath, 'utf8');
}

describe('edges', () => {
  it('declares the markup and PDF edges, lossy exactly where markup is dropped', () => {
    const lossy = Object.fromEntries(converter.edges.map((e) => [`${e.from}->${e.to}`, e.lossy]));
    expect(lossy).toEqual({
      'md->html': false,
      'txt->html': false,
      'html->md': true,
      'html->txt': true,
      'md->txt': true,
      'txt->pdf': false,
      'md->pdf': false,
    });
    for (const edge of converter.edges) expect(edge.cost).toBeGreaterThanOrEqual(1);
    for (const edge of converter.edges) expect(edge.cost).toBeLessThanOrEqual(2);
  });

  it('is available, with versions', async () => {
    const availability = await converter.available();
    expect(availability).toMatchObject({ ok: true });
    expect(availability.version).toMatch(/marked 18.*turndown 7.*pdf-lib 1\.17/);
  });
});

describe('fixtures', () => {
  it('md -> html: a standalone document with the elements', async () => {
    const ws = await workspace();
    const progress: number[] = [];
    const ctx = context(ws, 'md', 'html', { progress });
    const result = await converter.convert(ctx);
    const html = await readFile(ctx.outputPath, 'utf8');
    expectHtmlDocument(html, 'fileconv fixture');
    expect(html).toContain('<h1>fileconv fixture</h1>');
    expect(html).toContain('<em>Markdown</em>');
    expect(html).toContain('<a href="https://example.com">link</a>');
    expect(html).toContain('<code>code</code>');
    expect(html).toMatch(/<ul>\s*<li>item one<\/li>\s*<li>item two<\/li>\s*<\/ul>/);
    expect(html).toMatch(/<th>name<\/th>\s*<th>value<\/th>/);
    expect(html).toMatch(/<td>a<\/td>\s*<td>1<\/td>/);
    expect(result?.cpuMs).toBeGreaterThanOrEqual(0);
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(1);
  });

  it('md -> txt: the text, lists and table rows', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'md', 'txt');
    await converter.convert(ctx);
    expect(await readFile(ctx.outputPath, 'utf8')).toBe(
      'fileconv fixture\n\nA Markdown file with a link and code.\n\n- item one\n- item two\n\nname\tvalue\na\t1\n',
    );
  });

  it('html -> md: headings, list and a pipe table', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'html', 'md');
    await converter.convert(ctx);
    expect(await readFile(ctx.outputPath, 'utf8')).toBe(
      '# fileconv fixture\n\nAn HTML page with a list and a table.\n\n-   one\n-   two\n\n| name | value |\n| --- | --- |\n| a | 1 |\n',
    );
  });

  it('html -> txt: the text without markup or the <title>', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'html', 'txt');
    await converter.convert(ctx);
    expect(await readFile(ctx.outputPath, 'utf8')).toBe(
      'fileconv fixture\n\nAn HTML page with a list and a table.\n\n- one\n- two\n\nname\tvalue\na\t1\n',
    );
  });

  it('txt -> html: every character kept, escaped, in a wrapping <pre>', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'txt', 'html');
    await converter.convert(ctx);
    const html = await readFile(ctx.outputPath, 'utf8');
    const original = await readFile(ctx.inputPath, 'utf8');
    expect(html).toContain(`<pre style="white-space: pre-wrap">${original}</pre>`);
    expect(html).toContain('<title>fileconv plain-text fixture.</title>');
  });
});

describe('markup details', () => {
  it('escapes raw HTML in Markdown by default, and keeps it when the host says so', async () => {
    const ws = await workspace();
    const markdown = 'Hello <b onclick="x()">bold</b>\n\n<script>alert(1)</script>\n';
    const escaped = await convertText(ws, 'md', 'html', markdown);
    expect(escaped).not.toContain('<script>');
    expect(escaped).not.toContain('<b onclick');
    expect(escaped).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(escaped).toContain('&lt;b onclick=&quot;x()&quot;&gt;bold&lt;/b&gt;');
    const trusting = withOptionsParsed(createTextConverter({ markdownHtml: 'keep' }));
    const kept = await convertText(ws, 'md', 'html', markdown, trusting);
    expect(kept).toContain('<script>alert(1)</script>');
  });

  it('drops script URLs from Markdown links and images, keeping their text and ordinary URLs', async () => {
    const ws = await workspace();
    const markdown = [
      '[a](javascript:alert(1)) [b](JaVaScRiPt:x) [c](&#106;avascript:y) [d](java&#x09;script:z)',
      '[e]( vbscript:q ) [f](<java\tscript:w>) ![g](data:text/html,x) [h](data:text/html,x)',
      '[ok](https://example.com/?a=1&b=2 "T &amp; t") ![img](https://example.com/d.png) ![px](data:image/png;base64,AAAA)',
    ].join('\n\n');
    const html = await convertText(ws, 'md', 'html', markdown);
    const body = html.slice(html.indexOf('<body>'));
    expect(body.toLowerCase()).not.toMatch(/(?:href|src)="[^"]*(?:script|text\/html)/);
    expect(body).not.toMatch(/&#1|&#x0/);
    for (const text of ['a', 'b', 'c', 'd', 'e', 'f', 'h']) expect(body).toMatch(new RegExp(`\\b${text}\\b`));
    expect(body).toContain('<a href="https://example.com/?a=1&amp;b=2" title="T &amp; t">ok</a>');
    expect(body).toContain('<img src="https://example.com/d.png" alt="img">');
    expect(body).toContain('<img src="data:image/png;base64,AAAA" alt="px">');
  });

  it('reads UTF-8 with a byte-order mark and decodes HTML entities', async () => {
    const ws = await workspace();
    const text = await convertText(
      ws,
      'html',
      'txt',
      '\uFEFF<p>caf&eacute; &amp; Привет&nbsp;мир</p><script>evil()</script><style>p{}</style>',
    );
    expect(text).toBe('café & Привет\u00a0мир\n');
    const md = await convertText(ws, 'md', 'txt', '\uFEFF# Title &amp; more\n');
    expect(md).toBe('Title & more\n');
  });

  it('numbers ordered list items and indents nested ones in text', async () => {
    const ws = await workspace();
    const text = await convertText(ws, 'md', 'txt', '3. three\n4. four\n   - nested\n');
    expect(text).toBe('3. three\n4. four\n   - nested\n');
  });

  it('refuses HTML nested absurdly deep, quickly, before parsing it', async () => {
    const ws = await workspace();
    const depth = 20_000;
    const started = Date.now();
    const bomb = `${'<div>'.repeat(depth)}x${'</div>'.repeat(depth)}`;
    await writeFile(join(ws.inputs, 'deep.html'), bomb);
    const ctx = context(ws, 'html', 'md', { inputPath: join(ws.inputs, 'deep.html') });
    const error = await expectCode(converter.convert(ctx), 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ maxDepth: MAX_HTML_DEPTH });
    expect(Date.now() - started).toBeLessThan(2000);
    // Within the limit, deep HTML converts.
    const fine = `${'<div>'.repeat(200)}deep text${'</div>'.repeat(200)}`;
    expect(await convertText(ws, 'html', 'txt', fine)).toBe('deep text\n');
    await expectCode(convertText(ws, 'md', 'txt', `${'> '.repeat(30_000)}quote\n`), 'INPUT_LIMIT_EXCEEDED');
  });
});

describe('limits and contract', () => {
  it('refuses inputs over maxInputBytes (text) and maxMarkupBytes (HTML, Markdown) before reading them', async () => {
    const ws = await workspace();
    const small = withOptionsParsed(createTextConverter({ maxInputBytes: 40, maxMarkupBytes: 100 }));
    const error = await expectCode(small.convert(context(ws, 'txt', 'pdf')), 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ maxInputBytes: 40 });
    await expectCode(small.convert(context(ws, 'txt', 'html')), 'INPUT_LIMIT_EXCEEDED');
    await expectCode(small.convert(context(ws, 'html', 'md')), 'INPUT_LIMIT_EXCEEDED');
    await expectCode(small.convert(context(ws, 'md', 'pdf')), 'INPUT_LIMIT_EXCEEDED');
    await expectNoLeftovers(ws);
    const markdownOnly = withOptionsParsed(createTextConverter({ maxInputBytes: 40 }));
    await markdownOnly.convert(context(ws, 'md', 'html'));
  });

  it('validates factory options', () => {
    expect(() => createTextConverter({ maxInputBytes: 0 })).toThrow(FileconvError);
    expect(() => createTextConverter({ markdownHtml: 'sanitize' as never })).toThrow(/markdownHtml/);
    expect(() => createTextConverter({ fonts: { regular: '/no/such/font.ttf' } })).toThrow(/fonts\.regular/);
    expect(() => createTextConverter({ extra: 1 } as never)).toThrow(FileconvError);
  });

  it('has strict option schemas: PDF options for pdf, none elsewhere', async () => {
    expect(converter.optionsSchema?.('html').safeParse({}).success).toBe(true);
    expect(converter.optionsSchema?.('html').safeParse({ pageSize: 'a4' }).success).toBe(false);
    const pdf = converter.optionsSchema?.('pdf');
    expect(pdf?.safeParse({ pageSize: 'letter', fontSize: 12, marginMm: 10, monospace: true }).success).toBe(
      true,
    );
    expect(pdf?.safeParse({ pageSize: 'a3' }).success).toBe(false);
    expect(pdf?.safeParse({ fontSize: 1000 }).success).toBe(false);
    expect(pdf?.safeParse({ colour: 'red' }).success).toBe(false);
    const ws = await workspace();
    await expectCode(
      converter.convert(context(ws, 'md', 'html', { options: { fontSize: 3 } })),
      'INVALID_OPTIONS',
    );
  });

  it('refuses undeclared conversions', async () => {
    const ws = await workspace();
    await expectCode(converter.convert(context(ws, 'docx', 'html')), 'UNSUPPORTED_CONVERSION');
    await expectCode(converter.convert(context(ws, 'html', 'pdf')), 'UNSUPPORTED_CONVERSION');
  });

  it('answers an aborted signal with CANCELED and leaves nothing', async () => {
    const ws = await workspace();
    const controller = new AbortController();
    controller.abort();
    for (const [from, to] of [
      ['md', 'html'],
      ['html', 'txt'],
      ['txt', 'pdf'],
    ] as const) {
      await expectCode(converter.convert(context(ws, from, to, { signal: controller.signal })), 'CANCELED');
    }
    const during = new AbortController();
    const ctx = context(ws, 'html', 'md', {
      signal: during.signal,
      onProgress: (fraction) => {
        if (fraction > 0) during.abort();
      },
    });
    await expectCode(converter.convert(ctx), 'CANCELED');
    await expectNoLeftovers(ws);
  });
});
