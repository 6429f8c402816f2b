/**
 * The OCR converter (png -> txt on Debian's tesseract) and images reaching it through the graph:
 * the sentence rendered into fixtures/ocr/sentence.png comes back with at most one wrong word,
 * from the PNG and from a JPEG of it; the German pangram with umlauts and
 * eszett needs `languages: ['deu']`. Bad input: a truncated PNG, a text file or a JPEG named
 * .png, a header claiming 100,000 x 100,000 pixels, a language that is not installed. Nothing
 * is left in the temp dir, whatever happens.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { createOcrConverter } from '../../src/converters/ocr/index.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { createEngine } from '../../src/index.js';
import { pngClaiming } from '../../src/testing/bad-inputs.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  expectProgressRun,
  fixture,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';
import { GERMAN_SENTENCE, OCR_TOOLS, SENTENCE, TESSERACT_INSTALL, wrongWords } from './ocr-helpers.js';

const SENTENCE_PNG = fixture('ocr/sentence.png');
const GERMAN_PNG = fixture('ocr/satz-deu.png');

// A page of OCR is seconds of CPU; on a busy machine a test of several pages needs room.
vi.setConfig({ testTimeout: 180_000 });

describeWithEngine('tesseract', OCR_TOOLS, TESSERACT_INSTALL, 'the OCR converter', () => {
  const converter = withOptionsParsed(createOcrConverter());

  it('is available, with tesseract version', async () => {
    expect(await converter.available()).toMatchObject({
      ok: true,
      version: expect.stringMatching(/tesseract/i),
    });
  });

  it('reads the sentence from a scanned PNG with at most one wrong word', async () => {
    const ws = await workspace();
    const progress: number[] = [];
    const ctx = context(ws, 'png', 'txt', { inputPath: SENTENCE_PNG, progress });
    await converter.convert(ctx);
    const text = await readFile(ctx.outputPath, 'utf8');
    expect(wrongWords(SENTENCE, text), text).toBeLessThanOrEqual(1);
    expect(text.endsWith('\n')).toBe(true);
    expectProgressRun(progress);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it("reads German umlauts and eszett with languages ['deu'], which English alone misreads", async () => {
    const ws = await workspace();
    const read = async (languages: string[]) => {
      const ctx = context(ws, 'png', 'txt', {
        inputPath: GERMAN_PNG,
        outputPath: join(ws.outputs, `${languages.join('+')}.txt`),
        options: { languages },
      });
      await converter.convert(ctx);
      return readFile(ctx.outputPath, 'utf8');
    };
    const german = await read(['deu']);
    expect(wrongWords(GERMAN_SENTENCE, german), german).toBeLessThanOrEqual(1);
    expect(german).toMatch(/über|großen|Zwölf/);
    const english = await read(['eng']);
    expect(wrongWords(GERMAN_SENTENCE, english)).toBeGreaterThan(wrongWords(GERMAN_SENTENCE, german));
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('refuses a language that is not installed (INVALID_OPTIONS naming the installed ones and the package)', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'png', 'txt', {
      inputPath: SENTENCE_PNG,
      options: { languages: ['eng', 'xyz'] },
    });
    const error = await expectCode(converter.convert(ctx), 'INVALID_OPTIONS');
    expect(error.message).toMatch(/xyz/);
    expect(error.message).toMatch(/Installed: .*eng/);
    expect(error.message).toMatch(/tesseract-ocr-xyz/);
    expect(error.status).toBe(400);
    await expectNoLeftovers(ws);
  });

  it("takes languages as tesseract writes them ('eng+deu'), as the CLI's -o gives text", () => {
    expect(converter.optionsSchema?.('txt').parse({ languages: 'eng+deu' })).toMatchObject({
      languages: ['eng', 'deu'],
    });
  });

  it('refuses options the schema does not know or a language code that is no code', async () => {
    const ws = await workspace();
    for (const options of [
      { language: 'eng' },
      { languages: ['../../etc/x'] },
      { languages: [] },
      { psm: 2 },
    ]) {
      await expectCode(
        converter.convert(context(ws, 'png', 'txt', { inputPath: SENTENCE_PNG, options })),
        'INVALID_OPTIONS',
      );
    }
    await expectNoLeftovers(ws);
  });

  it('refuses a truncated PNG as CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const bytes = await readFile(SENTENCE_PNG);
    const truncated = join(ws.inputs, 'truncated.png');
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 3)));
    await expectCode(converter.convert(context(ws, 'png', 'txt', { inputPath: truncated })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it('never hands tesseract a file that is not a PNG (a text file naming a path, a JPEG named .png)', async () => {
    const ws = await workspace();
    // Tesseract reads a text file as a list of images to open: this one would OCR the fixture.
    const list = join(ws.inputs, 'list.png');
    await writeFile(list, `${SENTENCE_PNG}\n`);
    await expectCode(converter.convert(context(ws, 'png', 'txt', { inputPath: list })), 'CORRUPT_INPUT');
    const jpeg = join(ws.inputs, 'photo.png');
    await copyFile(fixture('fixture.jpg'), jpeg);
    await expectCode(converter.convert(context(ws, 'png', 'txt', { inputPath: jpeg })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it('refuses a PNG claiming 100,000 x 100,000 pixels before decoding it (INPUT_LIMIT_EXCEEDED)', async () => {
    const ws = await workspace();
    const bomb = join(ws.inputs, 'bomb.png');
    await writeFile(bomb, pngClaiming(100_000, 100_000));
    const error = await expectCode(
      converter.convert(context(ws, 'png', 'txt', { inputPath: bomb })),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(error.message).toMatch(/100000x100000/);
    await expectNoLeftovers(ws);
  });

  it('asks its engine to decode any other image: outside one, a JPEG is ENGINE_UNAVAILABLE', async () => {
    const ws = await workspace();
    const error = await expectCode(
      converter.convert(context(ws, 'jpg', 'txt', { inputPath: fixture('fixture.jpg') })),
      'ENGINE_UNAVAILABLE',
    );
    expect(error.message).toMatch(/decoded to PNG first/);
    await expectNoLeftovers(ws);
  });

  it('stops tesseract on abort (CANCELED) and leaves nothing', async () => {
    const ws = await workspace();
    const controller = new AbortController();
    const running = converter.convert(
      context(ws, 'png', 'txt', { inputPath: GERMAN_PNG, signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 50);
    await expectCode(running, 'CANCELED');
    await expectNoLeftovers(ws);
  });
});

describeWithEngine('tesseract', OCR_TOOLS, TESSERACT_INSTALL, 'images to text through the graph', () => {
  it('reads a HEIC through png (heic -> png -> txt); a photo without text gives an empty file', async () => {
    const ws = await workspace();
    const output = join(ws.outputs, 'photo.txt');
    const report = await engine.convertFile(fixture('fixture.heic'), output);
    expect(report.path).toEqual(['heic', 'png', 'txt']);
    // A photo of no text: an empty text file, not a failure.
    expect((await readFile(output, 'utf8')).trim()).toBe('');
  });

  const engine = createEngine({ converters: [createSharpConverter(), createOcrConverter()] });
  afterAll(() => engine.close());

  it('reads a JPEG scan (decoded to PNG inside the step), options reaching it', async () => {
    const ws = await workspace();
    const jpeg = join(ws.inputs, 'scan.jpg');
    execFileSync('convert', [SENTENCE_PNG, '-quality', '70', jpeg]); // ImageMagick, not fileconv
    const output = join(ws.outputs, 'scan.txt');
    const report = await engine.convertFile(jpeg, output, { options: { languages: ['eng'], psm: 6 } });
    expect(report.path).toEqual(['jpg', 'txt']);
    const text = await readFile(output, 'utf8');
    expect(wrongWords(SENTENCE, text), text).toBeLessThanOrEqual(1);
  });

  it('refuses a JPEG named .png (CONTENT_MISMATCH): the name is a claim the bytes are checked against', async () => {
    const ws = await workspace();
    const lying = join(ws.inputs, 'scan.png');
    execFileSync('convert', [SENTENCE_PNG, '-quality', '70', `jpg:${lying}`]);
    await expectCode(engine.convertFile(lying, join(ws.outputs, 'scan.txt')), 'CONTENT_MISMATCH');
  });
});
