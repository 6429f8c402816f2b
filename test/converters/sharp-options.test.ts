/** Conversion options of the sharp image converter: resizing, quality, background, metadata, validation. */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createSharpConverter, imageOptionsSchema } from '../../src/converters/sharp/index.js';
import { COLOUR_NAMES } from '../../src/kit/image/colour.js';
import { withOptionsParsed } from './converter-harness.js';
import { context, expectCode, expectNoLeftovers, fixture, workspace } from './sharp-helpers.js';

const converter = withOptionsParsed(createSharpConverter());

describe('options', () => {
  const convert = async (from: string, to: string, options: Record<string, unknown>, inputPath?: string) => {
    const ws = await workspace();
    const ctx = context(ws, from, to, { options, ...(inputPath ? { inputPath } : {}) });
    await converter.convert(ctx);
    return ctx.outputPath;
  };
  const size = async (path: string) => {
    const meta = await sharp(path).metadata();
    return [meta.width, meta.height];
  };

  it('keeps the aspect ratio when only width or only height is given', async () => {
    expect(await size(await convert('png', 'jpg', { width: 32 }))).toEqual([32, 24]);
    expect(await size(await convert('png', 'webp', { height: 96 }))).toEqual([128, 96]);
  });

  it("fits inside width x height by default, and honours fit 'cover' and 'fill'", async () => {
    expect(await size(await convert('png', 'png', { width: 100, height: 100 }))).toEqual([100, 75]);
    expect(await size(await convert('png', 'png', { width: 100, height: 100, fit: 'cover' }))).toEqual([
      100, 100,
    ]);
    expect(await size(await convert('png', 'png', { width: 30, height: 40, fit: 'fill' }))).toEqual([30, 40]);
  });

  it("pads fit 'contain' with the background colour", async () => {
    const out = await convert('jpg', 'png', { width: 64, height: 64, fit: 'contain', background: '#00ff00' });
    const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([64, 64]);
    expect([...data.subarray(0, 3)]).toEqual([0, 255, 0]); // top-left is padding
  });

  it('resizes every frame of an animation', async () => {
    const out = await convert('gif', 'gif', { width: 16 });
    const meta = await sharp(out, { animated: true }).metadata();
    expect([meta.width, meta.pageHeight, meta.pages]).toEqual([16, 12, 3]);
  });

  it('makes smaller files at lower quality', async () => {
    const low = await stat(await convert('png', 'jpg', { quality: 10 }));
    const high = await stat(await convert('png', 'jpg', { quality: 95 }));
    expect(low.size).toBeLessThan(high.size);
  });

  it('flattens transparency into the background colour for jpg (white by default)', async () => {
    // fixture.png has a transparent 8x8 top-left corner.
    const pixel = async (path: string) => [
      ...(await sharp(path).extract({ left: 2, top: 2, width: 1, height: 1 }).raw().toBuffer()),
    ];
    const red = await pixel(await convert('png', 'jpg', { background: '#ff0000' }));
    expect(red[0]).toBeGreaterThan(240);
    expect(red[1]).toBeLessThan(20);
    expect(red[2]).toBeLessThan(20);
    const white = await pixel(await convert('png', 'jpg', {}));
    for (const channel of white) expect(channel).toBeGreaterThan(240);
  });

  it('strips metadata by default and keeps EXIF with stripMetadata: false', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'exif.jpg');
    await sharp(fixture('fixture.png'))
      .jpeg()
      .withMetadata({ exif: { IFD0: { Copyright: 'fileconv test' } } })
      .toFile(input);
    expect((await sharp(input).metadata()).exif).toBeDefined();
    const stripped = await sharp(await convert('jpg', 'webp', {}, input)).metadata();
    expect(stripped.exif).toBeUndefined();
    const kept = await sharp(await convert('jpg', 'webp', { stripMetadata: false }, input)).metadata();
    expect(kept.exif?.toString('latin1')).toContain('fileconv test');
  });

  it('applies the EXIF orientation', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'rotated.jpg');
    await sharp(fixture('fixture.png')).jpeg().withMetadata({ orientation: 6 }).toFile(input);
    expect(await size(await convert('jpg', 'png', {}, input))).toEqual([48, 64]);
    expect(await size(await convert('jpg', 'png', { width: 24 }, input))).toEqual([24, 32]);
  });

  it('rasterises an enlarged SVG at the output size instead of upscaling pixels', async () => {
    const crisp = await convert('svg', 'png', { width: 640 });
    expect(await size(crisp)).toEqual([640, 480]);
    const pixels = await sharp(fixture('fixture.svg')).png().toBuffer();
    const blurred = await sharp(pixels).resize({ width: 640 }).png().toBuffer();
    expect((await sharp(crisp).stats()).sharpness).toBeGreaterThan(
      (await sharp(blurred).stats()).sharpness * 2,
    );
  });

  it('refuses an output larger than the pixel limit before doing the work', async () => {
    const ws = await workspace();
    const options = { width: 16_384, height: 16_384, fit: 'fill' };
    const error = await expectCode(
      converter.convert(context(ws, 'png', 'png', { options })),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(error.message).toContain('output');
    await expectNoLeftovers(ws);
  });

  it.each([
    [{ quality: 0 }],
    [{ quality: 101 }],
    [{ quality: 'high' }],
    [{ quality: 50.5 }],
    [{ width: -5 }],
    [{ width: 20_000 }],
    [{ fit: 'stretch' }],
    [{ background: 'not-a-colour' }],
    [{ background: 'rgb(300, 0, 0)' }],
    [{ colour: 'red' }],
    [{ lossless: true }], // jpg has no lossless mode: an unknown key for it
  ])('rejects %j for jpg with INVALID_OPTIONS', async (options) => {
    expect(imageOptionsSchema('jpg').safeParse(options).success).toBe(false);
    const ws = await workspace();
    await expectCode(converter.convert(context(ws, 'png', 'jpg', { options })), 'INVALID_OPTIONS');
    await expectNoLeftovers(ws);
  });

  it('has per-target schemas with documented defaults', () => {
    const avif = converter.optionsSchema?.('avif').parse({});
    expect(avif).toMatchObject({
      quality: 50,
      effort: 1,
      lossless: false,
      fit: 'inside',
      stripMetadata: true,
    });
    expect(converter.optionsSchema?.('webp').parse({})).toMatchObject({
      quality: 80,
      effort: 4,
      animated: true,
    });
    expect(converter.optionsSchema?.('png').safeParse({ quality: 80 }).success).toBe(false);
    expect(converter.optionsSchema?.('gif').safeParse({ effort: 0 }).success).toBe(false);
    expect(converter.optionsSchema?.('webp').safeParse({ width: 16_384 }).success).toBe(false);
    expect(converter.optionsSchema?.('png').safeParse({ width: 16_384 }).success).toBe(true);
  });

  it('accepts every colour form its schema allows, and sharp agrees', async () => {
    const forms = [
      ...COLOUR_NAMES,
      'White',
      '#fff',
      '#ffff',
      '#00ff00',
      '#00ff0080',
      'rgb(1, 2, 3)',
      'rgba(1,2,3,0.5)',
      'rgb(10%, 20%, 100%)',
    ];
    for (const background of forms) {
      expect(imageOptionsSchema('jpg').safeParse({ background }).success, background).toBe(true);
      expect(
        () => sharp({ create: { width: 1, height: 1, channels: 4, background } }),
        background,
      ).not.toThrow();
    }
  });
});
