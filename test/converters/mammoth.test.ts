/**
 * The mammoth (docx) converter: the three edges on fixture.docx, and the context contract
 * (options, progress, abort, leftovers). Images, links and broken or hostile inputs are in
 * mammoth-inputs.test.ts.
 */
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createMammothConverter } from '../../src/converters/mammoth/index.js';
import { FileconvError } from '../../src/core/errors.js';
import {
  context,
  expectCode,
  expectHtmlDocument,
  expectNoLeftovers,
  expectProgressRun,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const converter = withOptionsParsed(createMammothConverter());

describe('edges', () => {
  it('declares docx -> html, md, txt, all lossy, in-process costs', () => {
    expect(converter.name).toBe('mammoth');
    expect(converter.edges.map((e) => `${e.from}->${e.to}`).sort()).toEqual([
      'docx->html',
      'docx->md',
      'docx->txt',
    ]);
    for (const edge of converter.edges) {
      expect(edge.lossy).toBe(true);
      expect(edge.cost).toBeGreaterThanOrEqual(1);
      expect(edge.cost).toBeLessThanOrEqual(2);
    }
  });

  it('is available, with versions', async () => {
    const availability = await converter.available();
    expect(availability.ok).toBe(true);
    expect(availability.version).toMatch(/mammoth 1\.13/);
  });
});

describe('fixture.docx', () => {
  it('converts to HTML with headings, the table cells and non-Latin text', async () => {
    const ws = await workspace();
    const progress: number[] = [];
    const ctx = context(ws, 'docx', 'html', { progress });
    const result = await converter.convert(ctx);
    const html = await readFile(ctx.outputPath, 'utf8');
    expectHtmlDocument(html, 'fileconv fixture');
    expect(html).toContain('<h1>fileconv fixture</h1>');
    expect(html).toContain('<h2>A table</h2>');
    expect(html).toMatch(
      /<table>.*<td><p>alpha<\/p><\/td><td><p>1<\/p><\/td>.*<td><p>beta<\/p><\/td><td><p>2\.5<\/p><\/td>.*<\/table>/s,
    );
    expect(html).toContain('<li>first item</li>');
    expect(html).toContain('Grüße, Привет мир, Γειά σου κόσμε.');
    expect(result?.cpuMs).toBeGreaterThan(0);
    expectProgressRun(progress);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('converts to Markdown with # headings and a pipe table', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'docx', 'md');
    await converter.convert(ctx);
    const md = await readFile(ctx.outputPath, 'utf8');
    expect(md).toMatch(/^# fileconv fixture$/m);
    expect(md).toMatch(/^## A table$/m);
    expect(md).toContain('| name | value |\n| --- | --- |\n| alpha | 1 |\n| beta | 2.5 |');
    expect(md).toMatch(/^- +first item$/m);
    expect(md).toContain('Привет мир');
  });

  it('converts to plain text with every paragraph, tab-separated cells and list items', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'docx', 'txt');
    await converter.convert(ctx);
    const text = await readFile(ctx.outputPath, 'utf8');
    expect(text).toBe(
      [
        'fileconv fixture',
        '',
        'The quick brown fox jumps over the lazy dog.',
        '',
        'Non-Latin text: Grüße, Привет мир, Γειά σου κόσμε.',
        '',
        'A table',
        '',
        'name\tvalue',
        'alpha\t1',
        'beta\t2.5',
        '',
        '- first item',
        '- second item',
        '',
        'The end of the fixture.',
        '',
      ].join('\n'),
    );
  });
});

describe('contract', () => {
  it('validates factory options', () => {
    expect(() => createMammothConverter({ zip: { maxEntries: 0 } })).toThrow(FileconvError);
    expect(() => createMammothConverter({ nope: true } as never)).toThrow(/nope/);
  });

  it('validates conversion options, rejecting unknown keys and images for text', async () => {
    const schema = converter.optionsSchema?.('html');
    expect(schema?.safeParse({ images: 'drop' }).success).toBe(true);
    expect(schema?.safeParse({ images: 'maybe' }).success).toBe(false);
    expect(schema?.safeParse({ colour: 'red' }).success).toBe(false);
    expect(converter.optionsSchema?.('txt').safeParse({ images: 'drop' }).success).toBe(false);
    const ws = await workspace();
    await expectCode(converter.convert(context(ws, 'docx', 'md', { options: { x: 1 } })), 'INVALID_OPTIONS');
  });

  it('refuses an undeclared conversion', async () => {
    const ws = await workspace();
    await expectCode(converter.convert(context(ws, 'docx', 'pdf')), 'UNSUPPORTED_CONVERSION');
    await expectCode(converter.convert(context(ws, 'odt', 'html')), 'UNSUPPORTED_CONVERSION');
  });

  it('answers an aborted signal with CANCELED, before and during the conversion, leaving nothing', async () => {
    const ws = await workspace();
    const before = new AbortController();
    before.abort();
    await expectCode(converter.convert(context(ws, 'docx', 'html', { signal: before.signal })), 'CANCELED');
    const during = new AbortController();
    const ctx = context(ws, 'docx', 'md', {
      signal: during.signal,
      onProgress: (fraction) => {
        if (fraction >= 0.2) during.abort();
      },
    });
    await expectCode(converter.convert(ctx), 'CANCELED');
    await expectNoLeftovers(ws);
  });
});
