/**
 * The sharp image converter: every declared edge on the real fixtures, and the context contract
 * (progress, CPU time, abort, availability). Options are in sharp-options.test.ts, hostile
 * inputs in sharp-inputs.test.ts.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createSharpConverter } from '../../adapters/converters/sharp.js';
import { FileconvError } from '../../src/errors.js';
import { context, expectCode, expectNoLeftovers, fixture, workspace } from './sharp-helpers.js';

const converter = createSharpConverter();

/** sharp's metadata().format for each target. */
const SHARP_FORMAT: Record<string, string> = {
  jpg: 'jpeg',
  png: 'png',
  webp: 'webp',
  avif: 'heif',
  gif: 'gif',
  tiff: 'tiff',
};
const ANIMATED = new Set(['gif', 'webp']);

async function describeOutput(path: string) {
  const meta = await sharp(path, { animated: true }).metadata();
  return {
    format: meta.format,
    compression: meta.compression,
    width: meta.width,
    height: meta.pageHeight ?? meta.height,
    pages: meta.pages ?? 1,
  };
}

describe('edges', () => {
  it('covers every ordered pair of the six raster formats, and svg, heic, heif as inputs', () => {
    const pairs = new Set(converter.edges.map((e) => `${e.from}->${e.to}`));
    expect(pairs.size).toBe(converter.edges.length);
    expect(converter.edges).toHaveLength(6 * 6 + 3 * 6);
    for (const from of ['jpg', 'png', 'webp', 'avif', 'gif', 'tiff', 'svg', 'heic', 'heif']) {
      for (const to of ['jpg', 'png', 'webp', 'avif', 'gif', 'tiff'])
        expect(pairs).toContain(`${from}->${to}`);
    }
  });

  it('marks lossy targets and frame-dropping edges lossy, and the rest lossless', () => {
    const lossy = (from: string, to: string) =>
      converter.edges.find((e) => e.from === from && e.to === to)?.lossy;
    expect(lossy('png', 'jpg')).toBe(true);
    expect(lossy('png', 'avif')).toBe(true);
    expect(lossy('jpg', 'png')).toBe(false);
    expect(lossy('webp', 'tiff')).toBe(true); // an animated WebP loses its frames
    expect(lossy('gif', 'png')).toBe(true);
    expect(lossy('svg', 'png')).toBe(false);
    expect(lossy('heic', 'png')).toBe(false);
  });

  it('costs more for HEIC sources and AVIF targets', () => {
    const cost = (from: string, to: string) =>
      converter.edges.find((e) => e.from === from && e.to === to)?.cost;
    expect(cost('png', 'jpg')).toBe(1);
    expect(cost('heic', 'jpg')).toBeGreaterThan(1);
    expect(cost('png', 'avif')).toBeGreaterThan(1);
  });

  it('drops the HEIC/HEIF edges when heic is disabled', () => {
    const plain = createSharpConverter({ heic: false });
    expect(plain.edges.some((e) => e.from === 'heic' || e.from === 'heif')).toBe(false);
    expect(plain.edges).toHaveLength(6 * 6 + 6);
  });

  it.each(converter.edges.map((e) => [e.from, e.to] as const))('converts %s -> %s', async (from, to) => {
    const ws = await workspace();
    const progress: number[] = [];
    const ctx = context(ws, from, to, { progress });
    const result = await converter.convert(ctx);
    const out = await describeOutput(ctx.outputPath);
    expect(out.format).toBe(SHARP_FORMAT[to]);
    if (to === 'avif') expect(out.compression).toBe('av1');
    // fixture.gif is the 3-frame 32x24 animation; every other fixture is 64x48.
    expect([out.width, out.height]).toEqual(from === 'gif' ? [32, 24] : [64, 48]);
    expect(out.pages).toBe(from === 'gif' && ANIMATED.has(to) ? 3 : 1);
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(1);
    expect(result?.cpuMs).toBeGreaterThanOrEqual(0);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it.each([
    ['gif', 3],
    ['png', 1],
  ] as const)('converts an animated webp to %s keeping %i frame(s)', async (to, frames) => {
    const ws = await workspace();
    const ctx = context(ws, 'webp', to, { inputPath: fixture('fixture-animated.webp') });
    await converter.convert(ctx);
    expect(await describeOutput(ctx.outputPath)).toMatchObject({ width: 32, height: 24, pages: frames });
  });

  it('keeps only the first frame with animated: false', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'gif', 'webp', { options: { animated: false } });
    await converter.convert(ctx);
    expect((await describeOutput(ctx.outputPath)).pages).toBe(1);
  });
});

describe('context contract', () => {
  it('throws CANCELED without doing anything when the signal is already aborted', async () => {
    const ws = await workspace();
    const controller = new AbortController();
    controller.abort();
    const progress: number[] = [];
    await expectCode(
      converter.convert(context(ws, 'png', 'jpg', { signal: controller.signal, progress })),
      'CANCELED',
    );
    expect(progress).toEqual([]);
    await expectNoLeftovers(ws);
  });

  it('uses the FileconvError an engine aborts with, and maps a timeout signal to CONVERSION_TIMEOUT', async () => {
    const ws = await workspace();
    const controller = new AbortController();
    controller.abort(new FileconvError('OVERLOADED', 'shutting down'));
    await expectCode(
      converter.convert(context(ws, 'png', 'jpg', { signal: controller.signal })),
      'OVERLOADED',
    );
    const timedOut = AbortSignal.timeout(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expectCode(
      converter.convert(context(ws, 'png', 'jpg', { signal: timedOut })),
      'CONVERSION_TIMEOUT',
    );
  });

  it('rejects promptly when aborted mid-conversion and leaves no file behind', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'big.png');
    const noise = { type: 'gaussian', mean: 128, sigma: 40 } as const;
    await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#888', noise } })
      .png()
      .toFile(input);
    const controller = new AbortController();
    const ctx = context(ws, 'png', 'avif', {
      inputPath: input,
      signal: controller.signal,
      options: { effort: 3 },
    });
    const running = converter.convert(ctx);
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await expectCode(running, 'CANCELED');
    expect(Date.now() - started).toBeLessThan(1000);
    // libvips finishes in the background (sharp's counters show it); its scratch file is then removed.
    const busy = () => sharp.counters().process + sharp.counters().queue > 0;
    expect(busy()).toBe(true);
    for (let i = 0; i < 300 && busy(); i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expectNoLeftovers(ws);
  });

  it('reports availability with the engine versions', async () => {
    const availability = await converter.available();
    expect(availability.ok).toBe(true);
    expect(availability.version).toMatch(/sharp \d+\.\d+.*libvips \d+\.\d+/);
  });

  it('validates its own options', async () => {
    expect(() => createSharpConverter({ timeoutSeconds: -1 })).toThrow(FileconvError);
    expect(() => createSharpConverter({ failOn: 'sometimes' } as never)).toThrow(/failOn/);
    expect(() => createSharpConverter({ heics: false } as never)).toThrow(FileconvError);
  });

  it('refuses a target it does not write with UNSUPPORTED_CONVERSION', async () => {
    const ws = await workspace();
    await expectCode(converter.convert(context(ws, 'png', 'bmp')), 'UNSUPPORTED_CONVERSION');
    await expectNoLeftovers(ws);
  });
});
