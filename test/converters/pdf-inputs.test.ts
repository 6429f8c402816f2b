/**
 * Broken and hostile PDFs: each fails with a stable code and leaves neither scratch files nor a
 * partial output behind. fixtures/bad/encrypted.pdf is fixture.pdf encrypted by qpdf (AES-256,
 * user and owner password 'secret'), committed so the tests do not need qpdf.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { createPdfConverter } from '../../src/converters/pdf/index.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const converter = withOptionsParsed(createPdfConverter());

async function inputFile(dir: string, name: string, bytes: Uint8Array | string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

describe.each(['txt', 'png', 'jpg'])('pdf -> %s refuses', (to) => {
  it('a password-protected PDF with PASSWORD_PROTECTED', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'pdf', to, { inputPath: fixture('bad/encrypted.pdf') });
    await expectCode(converter.convert(ctx), 'PASSWORD_PROTECTED');
    await expectNoLeftovers(ws);
  });

  it('a truncated PDF with CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const whole = await readFile(fixture('fixture.pdf'));
    for (const fraction of [0.1, 0.5, 0.95]) {
      const input = await inputFile(
        ws.inputs,
        `cut-${fraction}.pdf`,
        whole.subarray(0, Math.floor(whole.length * fraction)),
      );
      await expectCode(converter.convert(context(ws, 'pdf', to, { inputPath: input })), 'CORRUPT_INPUT');
    }
    await expectNoLeftovers(ws);
  });

  it('a text file named .pdf, and an empty file, with CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const textFile = await inputFile(ws.inputs, 'notes.pdf', 'These are notes, not a PDF.\n');
    await expectCode(converter.convert(context(ws, 'pdf', to, { inputPath: textFile })), 'CORRUPT_INPUT');
    const empty = await inputFile(ws.inputs, 'empty.pdf', '');
    await expectCode(converter.convert(context(ws, 'pdf', to, { inputPath: empty })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });
});

describe('a PDF without pages', () => {
  const noPages = async (dir: string) => {
    const pdf = await PDFDocument.create();
    // pdf-lib adds a blank page to an empty document unless told not to.
    return inputFile(dir, 'no-pages.pdf', await pdf.save({ addDefaultPage: false }));
  };

  it('cannot be rendered: CORRUPT_INPUT with reason no-pages', async () => {
    const ws = await workspace();
    const input = await noPages(ws.inputs);
    for (const options of [{}, { pages: 'all' }]) {
      const error = await expectCode(
        converter.convert(context(ws, 'pdf', 'png', { inputPath: input, options })),
        'CORRUPT_INPUT',
      );
      expect(error.details).toMatchObject({ reason: 'no-pages', pageCount: 0 });
    }
    await expectNoLeftovers(ws);
  });

  it('has empty text', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'pdf', 'txt', { inputPath: await noPages(ws.inputs) });
    await converter.convert(ctx);
    expect(await readFile(ctx.outputPath, 'utf8')).toBe('');
  });
});

describe('misuse', () => {
  it('refuses invalid options with INVALID_OPTIONS before reading the input', async () => {
    const ws = await workspace();
    const bad = [{ dpi: 10_000 }, { page: 0 }, { pages: 'some' }, { quality: 90 }, { unknown: 1 }];
    for (const options of bad) {
      await expectCode(converter.convert(context(ws, 'pdf', 'png', { options })), 'INVALID_OPTIONS');
    }
    await expectCode(
      converter.convert(context(ws, 'pdf', 'txt', { options: { dpi: 72 } })),
      'INVALID_OPTIONS',
    );
    await expectNoLeftovers(ws);
  });

  it('refuses an edge it does not have with UNSUPPORTED_CONVERSION', async () => {
    const ws = await workspace();
    await expectCode(converter.convert(context(ws, 'pdf', 'webp')), 'UNSUPPORTED_CONVERSION');
    await expectCode(converter.convert(context(ws, 'bmp', 'pdf')), 'UNSUPPORTED_CONVERSION');
    await expectNoLeftovers(ws);
  });

  it('opens a PDF without ever fetching: no network access is attempted', async () => {
    const ws = await workspace();
    const realFetch = globalThis.fetch;
    let fetched = 0;
    globalThis.fetch = (async () => {
      fetched++;
      throw new Error('no network in tests');
    }) as typeof fetch;
    try {
      await converter.convert(context(ws, 'pdf', 'png', { options: { dpi: 36 } }));
      await converter.convert(context(ws, 'pdf', 'txt'));
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(fetched).toBe(0);
  });
});
