/**
 * The calibre converter on the e-book fixtures: each target read back by a tool of its own
 * (ebook-meta, bsdtar, pdftotext/pdfinfo, mammoth, fileconv's detection), and the conformance
 * suite. Each conversion starts calibre once (a few seconds): one per edge worth proving.
 */
import { readdir, readFile } from 'node:fs/promises';
import mammoth from 'mammoth';
import { expect, it } from 'vitest';
import { CALIBRE_EDGES } from '../../src/converters/calibre/calibre-edges.js';
import { CALIBRE_INSTALL, createCalibreConverter } from '../../src/converters/calibre/index.js';
import { createMammothConverter } from '../../src/converters/mammoth/index.js';
import { ConversionGraph } from '../../src/core/graph/index.js';
import { findTool } from '../../src/kit/command-tools.js';
import { fixturePath, testConverter } from '../../src/testing/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { readZip } from '../helpers/zip.js';
import {
  context,
  expectNoLeftovers,
  expectProgressRun,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';
import { bookMeta, detectFile, pdfText, run, zipNames } from './ebook-helpers.js';

const available = (await findTool('ebook-convert')) !== undefined;
const TITLE = 'fileconv fixture';
const SENTENCE = 'The quick brown fox jumps over the lazy dog.';

describeWithEngine('calibre', available, CALIBRE_INSTALL, 'calibre converter', () => {
  const converter = withOptionsParsed(createCalibreConverter());

  async function convert(ws: Workspace, from: string, to: string, options: Record<string, unknown> = {}) {
    const progress: number[] = [];
    const ctx = context(ws, from, to, { options, progress });
    await converter.convert(ctx);
    expectProgressRun(progress);
    expect(await readdir(ws.temp)).toEqual([]);
    return ctx.outputPath;
  }

  it('declares every e-book format to every other, and to pdf, docx, txt, md and htmlzip', () => {
    expect(converter.edges).toEqual(CALIBRE_EDGES);
    const targets = new Set(CALIBRE_EDGES.filter((edge) => edge.from === 'epub').map((edge) => edge.to));
    expect([...targets].sort()).toEqual(['azw3', 'docx', 'fb2', 'htmlzip', 'md', 'mobi', 'pdf', 'txt']);
    expect(CALIBRE_EDGES.filter((edge) => edge.to === 'epub').map((edge) => edge.from)).toEqual([
      'mobi',
      'azw3',
      'fb2',
    ]);
  });

  it('plans e-book -> md/txt through docx and mammoth (which keep tables), directly without it', () => {
    const converters = (withMammoth: boolean) =>
      ConversionGraph.fromConverters(withMammoth ? [converter, createMammothConverter()] : [converter]);
    for (const to of ['md', 'txt']) {
      const planned = converters(true)
        .findPath('mobi', to)
        ?.steps.map((step) => step.converter);
      expect(planned).toEqual(['calibre', 'mammoth']);
      expect(
        converters(false)
          .findPath('mobi', to)
          ?.steps.map((step) => step.converter),
      ).toEqual(['calibre']);
    }
  });

  it.each([
    ['mobi', 'mobi'],
    ['azw3', 'azw3'],
  ])(
    'writes epub -> %s: a Kindle book of the right kind, with its title and author',
    async (to, detected) => {
      const ws = await workspace();
      const out = await convert(ws, 'epub', to);
      expect(await detectFile(out)).toBe(detected);
      expect(await bookMeta(out)).toEqual({ title: TITLE, author: 'Unknown Author' });
    },
  );

  it('writes epub -> fb2: FictionBook XML holding the text, with its title', async () => {
    const ws = await workspace();
    const out = await convert(ws, 'epub', 'fb2');
    expect(await detectFile(out)).toBe('fb2');
    const xml = await readFile(out, 'utf8');
    expect(xml).toContain(SENTENCE);
    expect(xml).toContain('Привет мир');
    expect((await bookMeta(out)).title).toBe(TITLE);
  });

  it('writes mobi -> epub: a zip with its package document and the text', async () => {
    const ws = await workspace();
    const out = await convert(ws, 'mobi', 'epub');
    expect(await detectFile(out)).toBe('epub');
    const names = await zipNames(out);
    expect(names[0]).toBe('mimetype');
    expect(names.some((name) => name.endsWith('.opf'))).toBe(true);
    expect(names).not.toContain('cover_image.jpg'); // no generated cover
    const pages = [...(await readZip(out))].filter(([name]) => /\.x?html?$/.test(name));
    expect(pages.map(([, bytes]) => bytes.toString('utf8')).join('\n')).toContain(SENTENCE);
    expect(await bookMeta(out)).toEqual({ title: TITLE, author: 'Unknown Author' });
  });

  it('writes epub -> pdf on the paper asked for, its text (non-Latin too) readable by pdftotext', async () => {
    const ws = await workspace();
    const out = await convert(ws, 'epub', 'pdf', { paper: 'Letter' });
    const text = await pdfText(out);
    expect(text).toContain(SENTENCE);
    expect(text).toContain('Grüße, Привет мир, Γειά σου κόσμε');
    const { stdout } = await run('pdfinfo', [out]);
    expect(stdout).toMatch(/Page size:\s+612 x 792 pts/);
  });

  it('writes epub -> docx that mammoth reads back', async () => {
    const ws = await workspace();
    const out = await convert(ws, 'epub', 'docx');
    const { value } = await mammoth.extractRawText({ path: out });
    expect(value).toContain(SENTENCE);
    expect(value).toContain('2.5');
  });

  it('writes epub -> txt as UTF-8 without a byte-order mark, and -> md with Markdown emphasis', async () => {
    const ws = await workspace();
    const txt = await readFile(await convert(ws, 'epub', 'txt'));
    expect(txt[0]).not.toBe(0xef);
    expect(txt.toString('utf8')).toContain('Non-Latin text: Grüße, Привет мир');
    const md = await readFile(await convert(ws, 'epub', 'md'), 'utf8');
    expect(md).toContain(`**${TITLE}**`);
    expect(md).toContain(SENTENCE);
  });

  it('writes epub -> htmlzip: index.html with the text, at the zip root', async () => {
    const ws = await workspace();
    const out = await convert(ws, 'epub', 'htmlzip');
    expect(await zipNames(out)).toContain('index.html');
    expect((await run('bsdtar', ['-xOf', out, 'index.html'])).stdout).toContain(SENTENCE);
    expect(await detectFile(out)).toBe('htmlzip');
  });

  it('refuses an unknown option and a pair it has no edge for, leaving nothing', async () => {
    const ws = await workspace();
    expect(converter.optionsSchema?.('pdf').safeParse({ paper: 'B5' }).success).toBe(false);
    expect(converter.optionsSchema?.('epub').safeParse({ paper: 'A4' }).success).toBe(false);
    await expect(converter.convert(context(ws, 'epub', 'png'))).rejects.toMatchObject({
      code: 'UNSUPPORTED_CONVERSION',
    });
    await expectNoLeftovers(ws);
  });
});

// The contract every converter keeps (output only when complete, abort, damaged input...), on
// the two sources whose damage calibre itself would let through: a cut KF8 book and FictionBook.
testConverter('calibre', () => createCalibreConverter(), {
  otherConverters: ['sharp', 'ffmpeg', 'libreoffice', 'exceljs', 'mammoth', 'pdf', 'text', 'chromium'],
  samples: [
    { from: 'azw3', to: 'epub', input: fixturePath('azw3') },
    {
      from: 'fb2',
      to: 'txt',
      input: fixturePath('fb2'),
      check: async (out) => expect(await readFile(out, 'utf8')).toContain(SENTENCE),
    },
  ],
});
