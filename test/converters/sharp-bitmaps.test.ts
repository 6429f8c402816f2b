/**
 * BMP and ICO through the sharp converter: round trips, what the outputs hold (depth, icon
 * sizes), the `sizes` option, and broken inputs refused with their codes and nothing left behind.
 * Every edge is also converted from the real fixtures in sharp.test.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { writeIco } from '../../src/converters/sharp/ico.js';
import { imageOptionsSchema } from '../../src/converters/sharp/image-options.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import type { ErrorCode } from '../../src/core/errors.js';
import { truncated } from '../../src/testing/bad-inputs.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  context,
  describeOutput,
  expectCode,
  expectNoLeftovers,
  fixture,
  type Workspace,
  workspace,
} from './sharp-helpers.js';

const converter = withOptionsParsed(createSharpConverter());

async function convert(ws: Workspace, from: string, to: string, inputPath: string, options = {}) {
  const outputPath = join(ws.outputs, `${from}-to-${to}.${to}`);
  await converter.convert(context(ws, from, to, { inputPath, outputPath, options }));
  return outputPath;
}

async function rgba(path: string) {
  return sharp(path).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
}

describe('round trips', () => {
  it('png -> bmp -> png keeps every pixel, transparency included (32-bit BMP)', async () => {
    const ws = await workspace();
    const bmp = await convert(ws, 'png', 'bmp', fixture('fixture.png'));
    expect(await describeOutput(bmp)).toMatchObject({
      format: 'bmp',
      bitsPerPixel: 32,
      width: 64,
      height: 48,
    });
    const png = await convert(ws, 'bmp', 'png', bmp);
    const [before, after] = await Promise.all([rgba(fixture('fixture.png')), rgba(png)]);
    expect(after.info).toMatchObject({ width: 64, height: 48 });
    expect(after.data.equals(before.data)).toBe(true);
  });

  it('png -> ico -> png gives back the largest entry, padded square with transparency', async () => {
    const ws = await workspace();
    const ico = await convert(ws, 'png', 'ico', fixture('fixture.png'), { sizes: [16, 64] });
    expect((await describeOutput(ico)).entries).toEqual(['16x16 png', '64x64 png']);
    const png = await convert(ws, 'ico', 'png', ico);
    const [before, after] = await Promise.all([rgba(fixture('fixture.png')), rgba(png)]);
    expect(after.info).toMatchObject({ width: 64, height: 64 });
    // 64x48 centred in 64x64: 8 transparent rows above and below, the picture unchanged between.
    expect(after.data.subarray(0, 8 * 64 * 4).every((v) => v === 0)).toBe(true);
    expect(after.data.subarray(8 * 64 * 4, 56 * 64 * 4).equals(before.data)).toBe(true);
  });

  it('writes opaque images as 24-bit BMP, grey ones as RGB', async () => {
    const ws = await workspace();
    expect((await describeOutput(await convert(ws, 'jpg', 'bmp', fixture('fixture.jpg')))).bitsPerPixel).toBe(
      24,
    );
    const grey = join(ws.inputs, 'grey.png');
    await sharp({ create: { width: 5, height: 3, channels: 3, background: '#808080' } })
      .toColourspace('b-w')
      .png()
      .toFile(grey);
    const bmp = await convert(ws, 'png', 'bmp', grey);
    expect(await describeOutput(bmp)).toMatchObject({ bitsPerPixel: 24, width: 5, height: 3 });
    const back = await rgba(await convert(ws, 'bmp', 'png', bmp));
    expect([...back.data.subarray(0, 4)]).toEqual([128, 128, 128, 255]);
  });

  it('resizes BMP input with the common options', async () => {
    const ws = await workspace();
    const out = await convert(ws, 'bmp', 'webp', fixture('fixture.bmp'), { width: 32 });
    expect(await describeOutput(out)).toMatchObject({ format: 'webp', width: 32, height: 24 });
  });
});

describe('icon sizes', () => {
  it('caps the default sizes at the source size, and keeps the smallest for tiny sources', async () => {
    const ws = await workspace();
    const big = join(ws.inputs, 'big.png');
    await sharp({ create: { width: 300, height: 200, channels: 4, background: '#0f0' } })
      .png()
      .toFile(big);
    expect((await describeOutput(await convert(ws, 'png', 'ico', big))).entries).toEqual([
      '16x16 png',
      '32x32 png',
      '48x48 png',
      '256x256 png',
    ]);
    const tiny = join(ws.inputs, 'tiny.png');
    await sharp({ create: { width: 8, height: 8, channels: 4, background: '#0f0' } })
      .png()
      .toFile(tiny);
    expect((await describeOutput(await convert(ws, 'png', 'ico', tiny))).entries).toEqual(['16x16 png']);
  });

  it('writes exactly the sizes asked for, smallest first', async () => {
    const ws = await workspace();
    const out = await convert(ws, 'png', 'ico', fixture('fixture.png'), { sizes: [256, 24] });
    expect((await describeOutput(out)).entries).toEqual(['24x24 png', '256x256 png']);
  });

  it.each([[{ sizes: [20] }], [{ sizes: [] }], [{ sizes: [16, 16] }], [{ sizes: '16' }], [{ quality: 80 }]])(
    'refuses %j for ico',
    (options) => {
      expect(imageOptionsSchema('ico').safeParse(options).success).toBe(false);
    },
  );

  it('accepts the common options and no icon sizes for bmp', () => {
    expect(imageOptionsSchema('bmp').safeParse({ width: 10, fit: 'cover', background: '#fff' }).success).toBe(
      true,
    );
    expect(imageOptionsSchema('bmp').safeParse({ sizes: [16] }).success).toBe(false);
    expect(imageOptionsSchema('bmp').safeParse({ lossless: true }).success).toBe(false);
  });
});

describe('broken inputs', () => {
  async function expectRefused(bytes: Uint8Array, from: string, code: ErrorCode) {
    const ws = await workspace();
    const inputPath = join(ws.inputs, `input.${from}`);
    await writeFile(inputPath, bytes);
    const error = await expectCode(converter.convert(context(ws, from, 'png', { inputPath })), code);
    await expectNoLeftovers(ws);
    return error;
  }

  it('refuses a truncated BMP with CORRUPT_INPUT', async () => {
    await expectRefused(truncated(await readFile(fixture('fixture.bmp'))), 'bmp', 'CORRUPT_INPUT');
  });

  it('refuses a BMP header claiming 50000x50000 with INPUT_LIMIT_EXCEEDED, fast', async () => {
    const bomb = Buffer.from(await readFile(fixture('fixture.bmp')));
    bomb.writeInt32LE(50_000, 18);
    bomb.writeInt32LE(50_000, 22);
    const started = Date.now();
    const error = await expectRefused(bomb, 'bmp', 'INPUT_LIMIT_EXCEEDED');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.details).toMatchObject({ width: 50_000, height: 50_000 });
  });

  it('refuses an icon whose directory points outside the file with CORRUPT_INPUT', async () => {
    const ico = Buffer.from(await readFile(fixture('fixture.ico')));
    ico.writeUInt32LE(0x7fff_0000, 6 + 12);
    await expectRefused(ico, 'ico', 'CORRUPT_INPUT');
    const counted = Buffer.from(await readFile(fixture('fixture.ico')));
    counted.writeUInt16LE(65_535, 4);
    await expectRefused(counted, 'ico', 'CORRUPT_INPUT');
  });

  it('refuses an icon entry above the pixel limit', async () => {
    const ws = await workspace();
    const png = await sharp({ create: { width: 64, height: 64, channels: 4, background: '#000' } })
      .png()
      .toBuffer();
    const inputPath = join(ws.inputs, 'input.ico');
    await writeFile(inputPath, writeIco([{ size: 64, png }]));
    const limits = { maxPixels: 1000 };
    await expectCode(
      converter.convert(context(ws, 'ico', 'png', { inputPath, limits })),
      'INPUT_LIMIT_EXCEEDED',
    );
    await expectNoLeftovers(ws);
  });
});
