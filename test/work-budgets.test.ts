/**
 * Work budgets (WorkLimits, a plan's) on real engines through engine.convertFile: each converter
 * refuses an input past a budget from its header, before the work, with INPUT_LIMIT_EXCEEDED
 * naming the budget; the same input at the budget converts, and the result is checked.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createFfmpegConverter } from '../src/converters/ffmpeg/index.js';
import { createPdfConverter } from '../src/converters/pdf/index.js';
import { createSharpConverter } from '../src/converters/sharp/index.js';
import { createEngine, type FileconvError, type WorkLimits } from '../src/index.js';
import { FFMPEG_AVAILABLE, FFMPEG_INSTALL } from './converters/ffmpeg-helpers.js';
import { describeWithEngine } from './helpers/engines.js';
import { fixture, tempDir } from './helpers/temp.js';

const run = promisify(execFile);

async function setup(converters: Parameters<typeof createEngine>[0]['converters']) {
  const work = await tempDir();
  const engine = createEngine({ converters, tempDir: await tempDir() });
  return { work, engine };
}

async function refusal(promise: Promise<unknown>): Promise<FileconvError> {
  const error = (await promise.then(
    () => {
      throw new Error('converted past its budget');
    },
    (caught: unknown) => caught,
  )) as FileconvError;
  expect(error.code, error.message).toBe('INPUT_LIMIT_EXCEEDED');
  return error;
}

/** A PDF of `pages` pages, each saying "page N". */
async function textPdf(path: string, pages: number): Promise<void> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let index = 1; index <= pages; index++) {
    doc.addPage([200, 100]).drawText(`page ${index}`, { x: 20, y: 50, size: 12, font });
  }
  await writeFile(path, await doc.save());
}

describe('work budgets', () => {
  it('sharp: an animation past maxWorkPixels (frames x size) is refused; at the budget it converts', async () => {
    const { work, engine } = await setup([createSharpConverter()]);
    const output = join(work, 'anim.webp');
    // fixture.gif: 3 frames of 32x24 = 2,304 pixels.
    const error = await refusal(
      engine.convertFile(fixture('fixture.gif'), output, { limits: { maxWorkPixels: 2_303 } }),
    );
    expect(error.details).toEqual({ budget: 'maxWorkPixels', limit: 2_303, amount: 2_304 });
    await engine.convertFile(fixture('fixture.gif'), output, { limits: { maxWorkPixels: 2_304 } });
    const meta = await sharp(output).metadata();
    expect([meta.format, meta.pages]).toEqual(['webp', 3]);
  });

  it('pdf: more pages than maxDocumentPages are refused for text and images; rendered pixels are budgeted', async () => {
    const { work, engine } = await setup([createPdfConverter()]);
    const input = join(work, 'three.pdf');
    await textPdf(input, 3);
    const text = join(work, 'three.txt');
    const error = await refusal(engine.convertFile(input, text, { limits: { maxDocumentPages: 2 } }));
    expect(error.details).toEqual({ budget: 'maxDocumentPages', limit: 2, amount: 3 });
    await engine.convertFile(input, text, { limits: { maxDocumentPages: 3 } });
    expect((await readFile(text, 'utf8')).match(/page \d/g)).toEqual(['page 1', 'page 2', 'page 3']);

    // Every page at 72 dpi is 200x100: the three pages are 60,000 pixels.
    const zip = join(work, 'pages.png');
    const all = { to: 'png', options: { pages: 'all', dpi: 72 } };
    const pixels = await refusal(
      engine.convertFile(input, zip, { ...all, limits: { maxWorkPixels: 59_999 } }),
    );
    expect(pixels.details).toEqual({ budget: 'maxWorkPixels', limit: 59_999, amount: 60_000 });
    const report = await engine.convertFile(input, zip, { ...all, limits: { maxWorkPixels: 60_000 } });
    expect(report.packaging).toBe('zip');
  });

  it('refuses limits that are not positive integers', async () => {
    const { work, engine } = await setup([createSharpConverter()]);
    const bad: WorkLimits = { maxWorkPixels: 0 };
    await expect(
      engine.convertFile(fixture('fixture.gif'), join(work, 'x.webp'), { limits: bad }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
  });
});

describeWithEngine('ffmpeg', FFMPEG_AVAILABLE, FFMPEG_INSTALL, 'work budgets on ffmpeg', () => {
  it('refuses audio longer than maxMediaSeconds from its header; within it, converts', async () => {
    const { work, engine } = await setup([createFfmpegConverter({ engine: 'native' })]);
    const output = join(work, 'out.wav');
    // fixture.mp3 lasts 2.16 s.
    const error = await refusal(
      engine.convertFile(fixture('fixture.mp3'), output, { limits: { maxMediaSeconds: 2 } }),
    );
    expect(error.details).toEqual({ budget: 'maxMediaSeconds', limit: 2, amount: 3 });
    await engine.convertFile(fixture('fixture.mp3'), output, { limits: { maxMediaSeconds: 3 } });
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'csv=p=0',
      output,
    ]);
    expect(Number(stdout)).toBeGreaterThan(2);
  });

  it('refuses a video whose frames x frame size pass maxWorkPixels', async () => {
    const { work, engine } = await setup([createFfmpegConverter({ engine: 'native' })]);
    // fixture.mp4: 20 frames of 64x48 = 61,440 pixels.
    const error = await refusal(
      engine.convertFile(fixture('fixture.mp4'), join(work, 'out.webm'), {
        limits: { maxWorkPixels: 61_439 },
      }),
    );
    expect(error.details).toEqual({ budget: 'maxWorkPixels', limit: 61_439, amount: 61_440 });
  });
});
