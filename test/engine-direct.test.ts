import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createSharpConverter } from '../adapters/converters/sharp.js';
import { createEngine, isFileconvError } from '../src/index.js';
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
