/**
 * The sharp image converter: every declared edge on the real fixtures, and the context contract
 * (progress, CPU time, abort, availability). Options are in sharp-options.test.ts, hostile
 * inputs in sharp-inputs.test.ts.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { FileconvError } from '../../src/core/errors.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  context,
  describeOutput,
  expectCode,
  expectNoLeftovers,
  fixture,
  workspace,
} from './sharp-helpers.js';

const converter = withOptionsParsed(createSharpConverter());

/** describeOutput()'s format for each target. */
const OUTPUT_FORMAT: Record<string, string> = {
  jpg: 'jpeg',
  png: 'png',
  webp: 'webp',
  avif: 'heif',
  gif: 'gif',
  tiff: 'tiff',
  bmp: 'bmp',
  ico: 'ico',
};
const TARGETS = ['jpg', 'png', 'webp', 'avif', 'gif', 'tiff', 'bmp', 'ico'];
const ANIMATED = new Set(['gif', 'webp']);

/** Source size per fixture: fixture.gif is the 3-frame 32x24 animation, fixture.ico's largest entry is 32x32. */
const SOURCE_SIZE: Record<string, [number, number]> = { gif: [32, 24], ico: [32, 32] };

/** The icon entries a default conversion writes: 16, 32, 48, 256, none above the longer side. */
const defaultIconEntries = ([width, height]: [number, number]) =>
  [16, 32, 48, 256].filter((size) => size <= Math.max(width, height)).map((size) => `${size}x${size} png`);

describe('edges', () => {
  it('covers every ordered pair of the eight raster formats, and svg, heic, heif as inputs', () => {
    const pairs = new Set(converter.edges.map((e) => `${e.from}->${e.to}`));
    expect(pairs.size).toBe(converter.edges.length);
    expect(converter.edges).toHaveLength(8 * 8 + 3 * 8);
    for (const from of [...TARGETS, 'svg', 'heic', 'heif']) {
      for (const to of TARGETS) expect(pairs).toContain(`${from}->${to}`);
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
    expect(lossy('png', 'bmp')).toBe(false);
    expect(lossy('bmp', 'png')).toBe(false);
    expect(lossy('ico', 'png')).toBe(false); // the largest entry, as it is
    expect(lossy('png', 'ico')).toBe(true); // resampled to the icon sizes
    expect(lossy('ico', 'ico')).toBe(true);
  });

  it('costs more for HEIC sources and AVIF targets', () => {
    const cost = (from: string, to: string) =>
      converter.edges.find((e) => e.from === from && e.to === to)?.cost;
    expect(cost('png', 'jpg')).toBe(1);
    expect(cost('heic', 'jpg')).toBeGreaterThan(1);
    expect(cost('png', 'avif')).toBeGreaterThan(1);
  });

  it('drops the HEIC/HEIF edges when heic is disabled', () => {
    const plain = withOptionsParsed(createSharpConverter({ heic: false }));
    expect(plain.edges.some((e) => e.from === 'heic' || e.from === 'heif')).toBe(false);
    expect(plain.edges).toHaveLength(8 * 8 + 8);
  });

  it.each(converter.edges.map((e) => [e.from, e.to] as const))('converts %s -> %s', async (from, to) => {
    const ws = await workspace();
    const progress: number[] = [];
    const ctx = context(ws, from, to, { progress });
    const result = await converter.convert(ctx);
    const out = await describeOutput(ctx.outputPath);
    expect(out.format).toBe(OUTPUT_FORMAT[to]);
    if (to === 'avif') expect(out.compression).toBe('av1');
    const size = SOURCE_SIZE[from] ?? [64, 48];
    if (to === 'ico') {
      expect(out.entries).toEqual(defaultIconEntries(size));
    } else {
      expect([out.width, out.height]).toEqual(size);
    }
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
    await expectCode(converter.convert(context(ws, 'png', 'pdf')), 'UNSUPPORTED_CONVERSION');
    await expectNoLeftovers(ws);
  });
});
