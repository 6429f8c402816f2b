import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createPdfConverter } from '../src/converters/pdf/index.js';
import { createSharpConverter } from '../src/converters/sharp/index.js';
import { createEngine, type FileconvError, isFileconvError } from '../src/index.js';
import { inputFileError, outputFileError, workDirError } from '../src/kit/local-files.js';
import { badImageInputs } from '../src/testing/bad-inputs.js';
import { copyConverter } from './helpers/fake-converters.js';
import { fixture, leftovers, tempDir } from './helpers/temp.js';

async function setup() {
  const work = await tempDir();
  const engineTemp = await tempDir();
  const engine = createEngine({ converters: [createSharpConverter()], tempDir: engineTemp });
  return { work, engineTemp, engine };
}

describe('direct API', () => {
  it('converts a HEIC photo to WebP with convertFile', async () => {
    const { work, engineTemp, engine } = await setup();
    const output = join(work, 'out.webp');
    const report = await engine.convertFile(fixture('fixture.heic'), output);
    expect(report.from).toBe('heic');
    expect(report.to).toBe('webp');
    expect(report.path[0]).toBe('heic');
    expect(report.path.at(-1)).toBe('webp');
    const meta = await sharp(output).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 64, 48]);
    expect(report.outputSize).toBe((await stat(output)).size);
    expect(await leftovers(engineTemp)).toEqual([]);
  });

  it('passes options through and reports progress', async () => {
    const { work, engine } = await setup();
    const output = join(work, 'small.jpg');
    const progress: number[] = [];
    await engine.convertFile(fixture('fixture.png'), output, {
      options: { width: 32, quality: 60, background: '#ff0000' },
      onProgress: (fraction) => progress.push(fraction),
    });
    const meta = await sharp(output).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 32, 24]);
    expect(progress.at(-1)).toBe(1);
  });

  it('converts a buffer and a stream', async () => {
    const { engineTemp, engine } = await setup();
    const png = await readFile(fixture('fixture.png'));
    const jpg = await engine.convertBuffer(png, { to: 'jpeg' });
    expect((await sharp(jpg).metadata()).format).toBe('jpeg');

    const converted = await engine.convertStream(Readable.from([png]), { to: 'avif' });
    const chunks: Buffer[] = [];
    for await (const chunk of converted.stream) chunks.push(chunk as Buffer);
    const meta = await sharp(Buffer.concat(chunks)).metadata();
    expect(meta.format).toBe('heif');
    expect(meta.compression).toBe('av1');
    expect(converted.outputSize).toBe(Buffer.concat(chunks).length);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the temp dir goes when the stream closes
    expect(await leftovers(engineTemp)).toEqual([]);
  });

  it('takes the target from --to even when the output has no extension', async () => {
    const { work, engine } = await setup();
    const output = join(work, 'result');
    await engine.convertFile(fixture('fixture.gif'), output, { to: 'png' });
    expect((await sharp(output).metadata()).format).toBe('png');
  });

  it('runs a multi-hop chain and removes intermediate files', async () => {
    const engineTemp = await tempDir();
    const work = await tempDir();
    const engine = createEngine({
      tempDir: engineTemp,
      converters: [
        copyConverter('first', [{ from: 'txt', to: 'md', cost: 1 }]),
        copyConverter('second', [{ from: 'md', to: 'html', cost: 1 }]),
      ],
    });
    await writeFile(join(work, 'a.txt'), 'hello\n');
    const report = await engine.convertFile(join(work, 'a.txt'), join(work, 'a.html'));
    expect(report.path).toEqual(['txt', 'md', 'html']);
    expect(await readFile(join(work, 'a.html'), 'utf8')).toBe('hello\n');
    expect(await leftovers(engineTemp)).toEqual([]);
  });

  it('a PDF of page images to docx: a 4xx saying the PDF holds no text, not "The file is empty"', async () => {
    // The survey's real file: pdf -> txt finds no text, and the next step was handed an empty file.
    const engineTemp = await tempDir();
    const work = await tempDir();
    const engine = createEngine({
      tempDir: engineTemp,
      converters: [createPdfConverter(), copyConverter('writer', [{ from: 'txt', to: 'docx', cost: 1 }])],
    });
    const scan = join(work, 'scan.pdf');
    const pdf = await PDFDocument.create();
    const picture = await pdf.embedPng(await readFile(fixture('fixture.png')));
    pdf.addPage([200, 200]).drawImage(picture, { x: 0, y: 0, width: 200, height: 200 });
    await writeFile(scan, await pdf.save());
    const error = (await engine.convertFile(scan, join(work, 'scan.docx')).catch((e) => e)) as FileconvError;
    expect(error).toMatchObject({
      code: 'CORRUPT_INPUT',
      details: { reason: 'nothing-to-convert', step: 'pdf->txt' },
    });
    expect(error.message).toMatch(/nothing to make a docx of.*run the ocr operation/);
    expect(await leftovers(engineTemp)).toEqual([]);
  });

  it('stops a conversion that runs past its timeout with CONVERSION_TIMEOUT', async () => {
    const engineTemp = await tempDir();
    const work = await tempDir();
    const engine = createEngine({
      tempDir: engineTemp,
      timeoutMs: 50,
      converters: [copyConverter('slow', [{ from: 'txt', to: 'md', cost: 1 }], 5_000)],
    });
    await writeFile(join(work, 'a.txt'), 'hello\n');
    await expect(engine.convertFile(join(work, 'a.txt'), join(work, 'a.md'))).rejects.toMatchObject({
      code: 'CONVERSION_TIMEOUT',
    });
    expect(await leftovers(engineTemp)).toEqual([]);
  });

  it('aborts on the caller signal with CANCELED', async () => {
    const engineTemp = await tempDir();
    const work = await tempDir();
    const engine = createEngine({
      tempDir: engineTemp,
      converters: [copyConverter('slow', [{ from: 'txt', to: 'md', cost: 1 }], 5_000)],
    });
    await writeFile(join(work, 'a.txt'), 'hello\n');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    await expect(
      engine.convertFile(join(work, 'a.txt'), join(work, 'a.md'), { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'CANCELED' });
    expect(await leftovers(engineTemp)).toEqual([]);
  });
});

describe('bad input through the engine', async () => {
  const jpeg = await readFile(fixture('fixture.jpg'));
  for (const bad of badImageInputs(jpeg)) {
    it(`${bad.name}: ${bad.code}, no output, no temp file`, async () => {
      const { work, engineTemp, engine } = await setup();
      const input = join(work, bad.fileName);
      const output = join(work, `out.${bad.target}`);
      await writeFile(input, bad.bytes);
      const error = await engine.convertFile(input, output).catch((e: unknown) => e);
      expect(isFileconvError(error), String(error)).toBe(true);
      expect(error).toMatchObject({ code: bad.code });
      await expect(stat(output)).rejects.toThrow();
      expect(await leftovers(engineTemp)).toEqual([]);
    });
  }

  it('an unknown format name: UNSUPPORTED_FORMAT', async () => {
    const { work, engine } = await setup();
    await expect(engine.convertFile(fixture('fixture.png'), join(work, 'out.xyz'))).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
    });
    await expect(
      engine.convertFile(fixture('fixture.png'), join(work, 'out'), { to: 'nope' }),
    ).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
    });
  });

  it('an impossible pair: UNSUPPORTED_CONVERSION', async () => {
    const { work, engineTemp, engine } = await setup();
    await expect(engine.convertFile(fixture('fixture.png'), join(work, 'out.mp3'))).rejects.toMatchObject({
      code: 'UNSUPPORTED_CONVERSION',
    });
    expect(await leftovers(engineTemp)).toEqual([]);
  });

  it('options of the wrong type or out of range: INVALID_OPTIONS', async () => {
    const { work, engineTemp, engine } = await setup();
    for (const options of [
      { quality: 'high' },
      { quality: 0 },
      { quality: 101 },
      { width: -5 },
      { nonsense: true },
    ]) {
      await expect(
        engine.convertFile(fixture('fixture.png'), join(work, 'out.jpg'), { options }),
        JSON.stringify(options),
      ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    }
    expect(await leftovers(engineTemp)).toEqual([]);
  });

  it('a missing input file: NOT_FOUND', async () => {
    const { work, engine } = await setup();
    await expect(engine.convertFile(join(work, 'missing.png'), join(work, 'out.jpg'))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('direct API: every file-system error a caller can cause is a FileconvError naming the path', () => {
  /** What convertFile rejects with: the FileconvError's code, message and path. */
  async function failure(run: Promise<unknown>) {
    const error = await run.then(
      () => {
        throw new Error('converted without an error');
      },
      (caught: unknown) => caught,
    );
    expect(isFileconvError(error), String(error)).toBe(true);
    const { code, message, details } = error as FileconvError;
    return { code, message, path: details?.path };
  }

  it('an input that is missing (NOT_FOUND) or a folder (INPUT_NOT_READABLE)', async () => {
    const { work, engine } = await setup();
    const missing = join(work, 'missing.png');
    expect(await failure(engine.convertFile(missing, join(work, 'out.jpg')))).toEqual({
      code: 'NOT_FOUND',
      message: `No such file: ${missing}.`,
      path: missing,
    });
    const folder = join(work, 'folder.png');
    await mkdir(folder);
    expect(await failure(engine.convertFile(folder, join(work, 'out.jpg')))).toEqual({
      code: 'INPUT_NOT_READABLE',
      message: `Cannot read ${folder}: it is a folder, not a file.`,
      path: folder,
    });
  });

  it('an output whose folder is missing, is a file, or that is a folder: OUTPUT_NOT_WRITABLE before converting', async () => {
    const work = await tempDir();
    const engineTemp = await tempDir();
    let conversions = 0;
    const counted = copyConverter('copy', [{ from: 'png', to: 'webp', cost: 1 }]);
    const engine = createEngine({
      converters: [
        {
          ...counted,
          convert: (ctx) => {
            conversions++;
            return counted.convert(ctx);
          },
        },
      ],
      tempDir: engineTemp,
    });
    const input = fixture('fixture.png');

    const noFolder = join(work, 'no-such-folder', 'out.webp');
    expect(await failure(engine.convertFile(input, noFolder))).toEqual({
      code: 'OUTPUT_NOT_WRITABLE',
      message: `Cannot write ${noFolder}: the folder ${join(work, 'no-such-folder')} does not exist.`,
      path: noFolder,
    });

    const aFile = join(work, 'a-file.txt');
    await writeFile(aFile, 'not a folder');
    const underFile = join(aFile, 'out.webp');
    expect(await failure(engine.convertFile(input, underFile))).toEqual({
      code: 'OUTPUT_NOT_WRITABLE',
      message: `Cannot write ${underFile}: ${aFile} is not a folder.`,
      path: underFile,
    });

    const isFolder = join(work, 'out.webp');
    await mkdir(isFolder);
    expect(await failure(engine.convertFile(input, isFolder))).toEqual({
      code: 'OUTPUT_NOT_WRITABLE',
      message: `Cannot write ${isFolder}: it is a folder; name a file.`,
      path: isFolder,
    });
    expect(conversions).toBe(0);
    expect(await leftovers(engineTemp)).toEqual([]);

    // A relative output is named as the absolute path it resolves to.
    expect((await failure(engine.convertFile(input, join('no-such-folder-here', 'out.webp')))).path).toBe(
      resolve('no-such-folder-here', 'out.webp'),
    );
  });

  // Root writes anywhere whatever the mode says: this case can only fail for another user.
  it.skipIf(process.getuid?.() === 0)(
    'an output folder without write permission: OUTPUT_NOT_WRITABLE',
    async () => {
      const { work, engine } = await setup();
      const locked = join(work, 'locked');
      await mkdir(locked, { mode: 0o555 });
      const output = join(locked, 'out.webp');
      expect(await failure(engine.convertFile(fixture('fixture.png'), output))).toEqual({
        code: 'OUTPUT_NOT_WRITABLE',
        message: `Cannot write ${output}: permission denied (the folder ${locked} is not writable).`,
        path: output,
      });
    },
  );

  it('what each errno means (ENOSPC and EROFS cannot be caused here)', () => {
    const errno = (code: string) => Object.assign(new Error(`${code}: something`), { code });
    expect(outputFileError('/data/out.webp', errno('ENOSPC'))).toMatchObject({
      code: 'NO_SPACE',
      status: 507,
      message: 'Cannot write /data/out.webp: no space left on the device.',
      details: { path: '/data/out.webp', errno: 'ENOSPC' },
    });
    expect(outputFileError('/data/out.webp', errno('EDQUOT')).code).toBe('NO_SPACE');
    expect(outputFileError('/data/out.webp', errno('EROFS'))).toMatchObject({
      code: 'OUTPUT_NOT_WRITABLE',
      message: 'Cannot write /data/out.webp: the file system is read-only.',
    });
    expect(outputFileError('/data/out.webp', errno('EACCES')).message).toBe(
      'Cannot write /data/out.webp: permission denied (the folder /data is not writable).',
    );
    expect(inputFileError('/data/in.png', errno('EACCES'))).toMatchObject({
      code: 'INPUT_NOT_READABLE',
      message: 'Cannot read /data/in.png: permission denied.',
    });
    expect(workDirError('/tmp/full', errno('ENOSPC'))).toMatchObject({
      code: 'NO_SPACE',
      message: 'Cannot make a work folder in /tmp/full: no space left on the device.',
    });
    expect(workDirError('/no/such/dir', errno('ENOENT'))).toMatchObject({ code: 'CONFIG' });
  });

  it('an engine tempDir that does not exist: CONFIG naming it, not a raw ENOENT', async () => {
    const work = await tempDir();
    const missingTemp = join(work, 'no-temp');
    const engine = createEngine({ converters: [createSharpConverter()], tempDir: missingTemp });
    const png = await readFile(fixture('fixture.png'));
    await expect(engine.convertBuffer(png, { to: 'webp' })).rejects.toMatchObject({
      code: 'CONFIG',
      message: expect.stringContaining(`Cannot make a work folder in ${missingTemp} (the engine's tempDir)`),
    });
  });
});

describe('planning checks only the engines a conversion needs', () => {
  /** A converter along `edges` that counts how often its availability is asked, and may be missing. */
  function watched(name: string, edges: Parameters<typeof copyConverter>[1], ok: boolean) {
    const converter = copyConverter(name, edges);
    const calls = { available: 0 };
    return {
      calls,
      converter: {
        ...converter,
        available: async () => {
          calls.available++;
          return ok ? { ok: true } : { ok: false, reason: `${name} is not installed` };
        },
      },
    };
  }

  it('never asks an unrelated engine whether it is there', async () => {
    const images = watched('images', [{ from: 'png', to: 'jpg', cost: 1 }], true);
    const documents = watched('documents', [{ from: 'docx', to: 'pdf', cost: 1 }], true);
    const engine = createEngine({ converters: [images.converter, documents.converter] });
    const plan = await engine.plan('png', 'jpg');
    expect(plan.steps.map((step) => step.converter)).toEqual(['images']);
    expect(images.calls.available).toBe(1);
    expect(documents.calls.available).toBe(0);
    // The full list (GET /api/formats, doctor) still asks every engine, once.
    await engine.converters();
    await engine.plan('png', 'jpg');
    expect([images.calls.available, documents.calls.available]).toEqual([1, 1]);
  });

  it('routes around a missing engine on the best path, as a fully checked graph would', async () => {
    const direct = watched('direct', [{ from: 'png', to: 'webp', cost: 1 }], false);
    const viaJpg = watched(
      'via-jpg',
      [
        { from: 'png', to: 'jpg', cost: 1 },
        { from: 'jpg', to: 'webp', cost: 1 },
      ],
      true,
    );
    const engine = createEngine({ converters: [direct.converter, viaJpg.converter] });
    const plan = await engine.plan('png', 'webp');
    expect(plan.steps.map((step) => `${step.from}>${step.to}:${step.converter}`)).toEqual([
      'png>jpg:via-jpg',
      'jpg>webp:via-jpg',
    ]);
    expect(direct.calls.available).toBe(1);
    const formats = await engine.formats();
    expect(formats.find((format) => format.name === 'png')?.targets).toEqual(['jpg', 'webp']);
  });

  it('says UNSUPPORTED_CONVERSION when the only engine for a step is missing', async () => {
    const missing = watched('missing', [{ from: 'docx', to: 'pdf', cost: 1 }], false);
    const engine = createEngine({ converters: [missing.converter] });
    await expect(engine.plan('docx', 'pdf')).rejects.toMatchObject({ code: 'UNSUPPORTED_CONVERSION' });
  });
});
