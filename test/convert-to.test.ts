/**
 * ConvertContext.convertTo and OperationContext.convertTo: a converter (or an operation) that
 * needs a step first asks its engine, which makes it with its own converters in a folder of the
 * caller's work dir; converters never import each other. Outside an engine there is none.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import { SHARP_REGISTRATION } from '../src/converters/sharp/registration.js';
import {
  type Converter,
  createConverter,
  createJobEngine,
  type DocumentOperation,
  FileconvError,
} from '../src/index.js';
import { fixture, tempDir } from './helpers/temp.js';

/** Writes the size of the image it is given, read from the PNG its engine decodes it to. */
const measure: Converter = {
  name: 'measure',
  edges: [{ from: 'gif', to: 'txt', cost: 1, finalOnly: true }],
  available: async () => ({ ok: true }),
  async convert(ctx) {
    if (!ctx.convertTo) throw new FileconvError('ENGINE_UNAVAILABLE', 'measure needs an engine to decode.');
    const png = await ctx.convertTo(ctx.inputPath, ctx.from, 'png');
    expect(png.startsWith(ctx.tempDir)).toBe(true);
    const { format, width, height } = await sharp(png).metadata();
    await writeFile(ctx.outputPath, `${format} ${width}x${height}\n`);
    return undefined;
  },
};

describe('convertTo', () => {
  it("gives a converter a step made by its engine's converters, in its work dir", async () => {
    const dir = await tempDir();
    const engine = createConverter({ converters: [SHARP_REGISTRATION, measure], tempDir: dir });
    const output = join(await tempDir(), 'size.txt');
    const report = await engine.convertFile(fixture('fixture.gif'), output);
    // The decode is the converter's business, not a step of the plan.
    expect(report.path).toEqual(['gif', 'txt']);
    const { width, height } = await sharp(fixture('fixture.gif')).metadata();
    expect(await readFile(output, 'utf8')).toBe(`png ${width}x${height}\n`);
    expect(await readdir(dir)).toEqual([]);
    await engine.close();
  });

  it('is ENGINE_UNAVAILABLE for a step no converter of the engine makes', async () => {
    const engine = createConverter({ converters: [measure], tempDir: await tempDir() });
    await expect(
      engine.convertFile(fixture('fixture.gif'), join(await tempDir(), 'size.txt')),
    ).rejects.toMatchObject({
      code: 'ENGINE_UNAVAILABLE',
      message: 'The conversion needs gif turned into png first, which no converter here makes.',
    });
    await engine.close();
  });

  it('is there for an operation a job runs, and absent outside an engine', async () => {
    const measured: string[] = [];
    const operation: DocumentOperation = {
      name: 'measure',
      description: 'The size of an image.',
      input: 'gif',
      minInputs: 1,
      maxInputs: 1,
      available: async () => ({ ok: true }),
      optionsSchema: (await import('zod')).z.strictObject({}),
      output: () => ({ format: 'txt' }),
      async run(ctx) {
        if (!ctx.convertTo) throw new FileconvError('ENGINE_UNAVAILABLE', 'no engine');
        const png = await ctx.convertTo(ctx.inputPaths[0]!, 'gif', 'png');
        const { width, height } = await sharp(png).metadata();
        measured.push(`${width}x${height}`);
        await writeFile(ctx.outputPath, `${width}x${height}\n`);
        return undefined;
      },
    };
    const dir = await tempDir();
    const jobs = createJobEngine({
      converter: createConverter({ converters: [SHARP_REGISTRATION], operations: [operation], tempDir: dir }),
      storage: createMemoryStorage(),
      jobs: createMemoryJobStore(),
      queue: createMemoryQueue(),
      sweepIntervalMs: 0,
    });
    await jobs.start();
    const file = await jobs.uploadFile({
      owner: 'a',
      fileName: 'a.gif',
      body: await readFile(fixture('fixture.gif')),
    });
    const job = await jobs.createJob({ owner: 'a', operation: 'measure', fileIds: [file.id] });
    expect(await jobs.waitForJob(job.id)).toMatchObject({ status: 'completed' });
    const gif = await sharp(fixture('fixture.gif')).metadata();
    expect(measured).toEqual([`${gif.width}x${gif.height}`]);
    await jobs.close();
    // Run by hand, outside an engine.
    const outside = await operation
      .run({
        inputPaths: [fixture('fixture.gif')],
        outputPath: join(dir, 'x.txt'),
        options: {},
        tempDir: dir,
        signal: new AbortController().signal,
        limits: { maxPixels: 1e8 },
      })
      .catch((error: unknown) => error);
    expect(outside).toMatchObject({ code: 'ENGINE_UNAVAILABLE' });
  });
});
