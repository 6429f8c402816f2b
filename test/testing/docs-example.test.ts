// A custom converter and its tests, as a host app writes them (docs/testing.md shows this file).
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Converter, createConverter, FileconvError } from 'fileconv';
import { createFakeConverter, fakeOutputHeader, fixturePath, testConverter } from 'fileconv/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

/** The converter under test: plain text to plain text in upper case. */
function createUppercaseConverter(): Converter {
  return {
    name: 'uppercase',
    edges: [{ from: 'txt', to: 'txt', cost: 1 }],
    available: async () => ({ ok: true }),
    // No options; a strict object still rejects unknown keys, as the contract asks.
    optionsSchema: () => z.strictObject({}),
    async convert(ctx) {
      if (ctx.signal.aborted) throw new FileconvError('CANCELED', 'The conversion was canceled.');
      if (ctx.from !== 'txt' || ctx.to !== 'txt') {
        throw new FileconvError(
          'UNSUPPORTED_CONVERSION',
          `uppercase cannot convert ${ctx.from} to ${ctx.to}`,
        );
      }
      const text = await readFile(ctx.inputPath, 'utf8');
      if (text.length === 0) throw new FileconvError('CORRUPT_INPUT', 'The input is empty.');
      ctx.onProgress(0.5);
      if (ctx.signal.aborted) throw new FileconvError('CANCELED', 'The conversion was canceled.');
      // Write in tempDir, then rename: outputPath must only ever hold a complete file.
      const scratch = join(ctx.tempDir, 'uppercase.txt');
      await writeFile(scratch, text.toUpperCase());
      await rename(scratch, ctx.outputPath);
      ctx.onProgress(1);
      return undefined;
    },
  };
}

// The contract every converter keeps, on the package's own sample text.
testConverter('uppercase', () => createUppercaseConverter(), {
  samples: [
    {
      from: 'txt',
      to: 'txt',
      input: fixturePath('txt'),
      // Half a text file is still a text file: converting it is fine.
      damagedInput: 'tolerated',
      check: async (output) => {
        const original = await readFile(fixturePath('txt'), 'utf8');
        expect(await readFile(output, 'utf8')).toBe(original.toUpperCase());
      },
    },
  ],
});

describe('the uppercase converter in an engine', () => {
  it('converts a buffer', async () => {
    const engine = createConverter({ converters: [createUppercaseConverter()] });
    const output = await engine.convertBuffer(Buffer.from('hello, world\n'), { from: 'txt', to: 'txt' });
    expect(output.toString()).toBe('HELLO, WORLD\n');
    await engine.close();
  });
});

// The fake converter stands in for a real engine when testing what a host does around conversions.
describe('a host around the engine, with a fake converter', () => {
  const notesToMarkdown = { from: 'txt', to: 'md' } as const;

  it('gets a deterministic output and progress', async () => {
    const engine = createConverter({ converters: [createFakeConverter({ progressSteps: 4 })] });
    const progress: number[] = [];
    const output = await engine.convertBuffer(Buffer.from('notes\n'), {
      ...notesToMarkdown,
      onProgress: (fraction) => progress.push(fraction),
    });
    expect(output.toString()).toBe(`${fakeOutputHeader('fake', 'txt', 'md')}notes\n`);
    expect(progress.at(-1)).toBe(1);
    await engine.close();
  });

  it('sees a failure with its stable code', async () => {
    const engine = createConverter({ converters: [createFakeConverter({ failWith: 'PASSWORD_PROTECTED' })] });
    await expect(engine.convertBuffer(Buffer.from('notes\n'), notesToMarkdown)).rejects.toMatchObject({
      code: 'PASSWORD_PROTECTED',
    });
    await engine.close();
  });

  it('cancels a slow conversion', async () => {
    const engine = createConverter({ converters: [createFakeConverter({ delayMs: 5_000 })] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    await expect(
      engine.convertBuffer(Buffer.from('notes\n'), { ...notesToMarkdown, signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'CANCELED' });
    expect(Date.now() - started).toBeLessThan(2_000);
    await engine.close();
  });
});
