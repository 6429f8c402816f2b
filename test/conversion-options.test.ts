/**
 * Options are parsed once, one way (core/options.ts): a conversion's by the schema its converter
 * declares, when the engine plans it, and the converter is handed the result typed by that
 * schema; an operation's, and a converter's own settings, by the same function. Every refusal is
 * INVALID_OPTIONS "Invalid options for <what>: <path>: <problem>." with the problems in
 * details.issues, whichever door the options came in by.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import type { z } from 'zod';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import { createFfmpegConverter, type mediaOptionsSchema } from '../src/converters/ffmpeg/index.js';
import { createPdfConverter, type pdfOptionsSchema } from '../src/converters/pdf/index.js';
import {
  createSharpConverter,
  imageOptionsSchema,
  SHARP_REGISTRATION,
} from '../src/converters/sharp/index.js';
import type { SHARP } from '../src/converters/sharp/registration.js';
import { createSubtitleConverter, subtitleOptionsSchema } from '../src/converters/subtitles/index.js';
import { createTextConverter } from '../src/converters/text/index.js';
import { textOptionsSchema } from '../src/converters/text/text-options.js';
import { FileconvError } from '../src/core/errors.js';
import type { ConvertContext, Converter, ConverterRegistration } from '../src/core/ports/index.js';
import { createConverter, createJobEngine } from '../src/index.js';
import { compressPdf, pdfOperations } from '../src/operations/pdf/index.js';
import { withOptionsParsed } from '../src/testing/parsed-options.js';
import { fixture, tempDir } from './helpers/temp.js';

/** The options type a converter's convert() reads. */
type OptionsOf<C> = C extends { convert(ctx: ConvertContext<infer O>): unknown } ? O : never;

/** What `promise` rejected with (it must reject). */
async function refusal(promise: Promise<unknown>): Promise<FileconvError> {
  const error = await promise.then(
    () => expect.unreachable('it was accepted'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileconvError);
  return error as FileconvError;
}

/** The one shape: code, "Invalid options for <what>: <path>: ..." and each problem in details.issues. */
function expectOptionsRefusal(error: FileconvError, what: string, path: string): void {
  expect(error.code).toBe('INVALID_OPTIONS');
  expect(error.message).toMatch(new RegExp(`^Invalid options for ${what}: ${path}: .+\\.$`));
  expect(error.details?.issues).toEqual([{ path, message: expect.any(String) }]);
}

describe('one parse, one refusal shape', () => {
  it('refuses a bad conversion option the same way at planning and in a direct converter call', async () => {
    const files = createConverter({ converters: [createSharpConverter()] });
    const planned = await refusal(files.plan('png', 'jpg', { quality: 0 }));
    expectOptionsRefusal(planned, 'jpg', 'quality');
    const ws = await tempDir();
    const direct = await refusal(
      withOptionsParsed(createSharpConverter()).convert({
        inputPath: fixture('fixture.png'),
        outputPath: join(ws, 'out.jpg'),
        from: 'png',
        to: 'jpg',
        options: { quality: 0 },
        tempDir: ws,
        signal: new AbortController().signal,
        onProgress: () => {},
        limits: { maxPixels: 1e8 },
      }),
    );
    expect(direct.message).toBe(planned.message);
    expect(direct.details).toEqual(planned.details);
  });

  it("refuses a converter's own bad setting in that shape, naming its factory", () => {
    const settings = [
      () => createSharpConverter({ timeoutSeconds: -1 }),
      () => createTextConverter({ maxInputBytes: 0 }),
      () => createPdfConverter({ maxPages: 0 }),
      () => createFfmpegConverter({ maxWidth: 1 }),
      () => createSubtitleConverter({ maxInputBytes: -1 }),
    ];
    const expected = [
      ['createSharpConverter', 'timeoutSeconds'],
      ['createTextConverter', 'maxInputBytes'],
      ['createPdfConverter', 'maxPages'],
      ['createFfmpegConverter', 'maxWidth'],
      ['createSubtitleConverter', 'maxInputBytes'],
    ] as const;
    for (const [index, make] of settings.entries()) {
      let thrown: unknown;
      try {
        make();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(FileconvError);
      const [what, path] = expected[index]!;
      expectOptionsRefusal(thrown as FileconvError, what, path);
    }
  });

  it("refuses an operation's bad option in that shape, from a job and from the library function", async () => {
    const engine = createJobEngine({
      converter: createConverter({ converters: [createSharpConverter()], operations: pdfOperations() }),
      storage: createMemoryStorage(),
      jobs: createMemoryJobStore(),
      queue: createMemoryQueue(),
      worker: false,
      sweepIntervalMs: 0,
    });
    const file = await engine.uploadFile({
      owner: 'a',
      fileName: 'a.pdf',
      body: await readFile(fixture('fixture.pdf')),
    });
    const job = await refusal(
      engine.createJob({ owner: 'a', operation: 'compress', fileIds: [file.id], options: { quality: 0 } }),
    );
    expectOptionsRefusal(job, 'the compress operation', 'quality');
    await engine.close();
    const ws = await tempDir();
    const library = await refusal(compressPdf(fixture('fixture.pdf'), join(ws, 'out.pdf'), { quality: 0 }));
    expect(library.message).toBe(job.message);
  });
});

describe('converters read the options the engine parsed', () => {
  it('parses a conversion’s options once: the converter does not parse them again', async () => {
    const ws = await tempDir();
    const cases = [
      {
        converter: createSharpConverter(),
        schema: imageOptionsSchema('jpg'),
        input: 'fixture.png',
        to: 'jpg',
      },
      { converter: createTextConverter(), schema: textOptionsSchema('pdf'), input: 'fixture.md', to: 'pdf' },
      {
        converter: createSubtitleConverter(),
        schema: subtitleOptionsSchema('vtt'),
        input: 'fixture.srt',
        to: 'vtt',
      },
    ];
    for (const { converter, schema, input, to } of cases) {
      const parses = vi.spyOn(schema, 'safeParse');
      const files = createConverter({ converters: [converter as Converter] });
      await files.convertFile(fixture(input), join(ws, `out-${converter.name}.${to}`));
      expect(parses, `${converter.name}: ${input} -> ${to}`).toHaveBeenCalledTimes(1);
      parses.mockRestore();
      await files.close();
    }
  });

  it("types ctx.options as the converter's schema output (checked by tsc --noEmit)", () => {
    expectTypeOf<OptionsOf<ReturnType<typeof createSharpConverter>>>().toEqualTypeOf<
      z.output<ReturnType<typeof imageOptionsSchema>>
    >();
    expectTypeOf<OptionsOf<ReturnType<typeof createPdfConverter>>>().toEqualTypeOf<
      z.output<ReturnType<typeof pdfOptionsSchema>>
    >();
    expectTypeOf<OptionsOf<ReturnType<typeof createFfmpegConverter>>>().toEqualTypeOf<
      z.output<ReturnType<typeof mediaOptionsSchema>>
    >();
    expectTypeOf<OptionsOf<ReturnType<typeof createSubtitleConverter>>>().toEqualTypeOf<
      z.output<ReturnType<typeof subtitleOptionsSchema>>
    >();
    // The registration declares the schema the converter it loads reads by.
    type Declared = typeof SHARP extends { optionsSchema?(to: string): z.ZodType<infer O> } ? O : never;
    expectTypeOf<Declared>().toEqualTypeOf<OptionsOf<ReturnType<typeof createSharpConverter>>>();
    expectTypeOf(SHARP_REGISTRATION).toExtend<ConverterRegistration<Declared>>();
    // A host's converter that names no options type takes any object, as before.
    expectTypeOf<OptionsOf<Converter>>().toEqualTypeOf<Record<string, unknown>>();
  });
});
