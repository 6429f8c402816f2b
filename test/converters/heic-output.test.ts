/**
 * HEIC output on libheif's heif-enc (x265): png and jpg directly, every other picture through
 * sharp. Results are read back by file(1), by libheif's heif-info (the size it records) and
 * decoded by heic-decode (libde265, another HEVC implementation than the encoder), then compared
 * with the source picture (ImageMagick's compare).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createLibheifConverter } from '../../src/converters/raster/index.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { createEngine, type Engine, FileconvError } from '../../src/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { fixture } from './converter-harness.js';
import { identify, ROSE, rmse } from './raster-helpers.js';

const HEIF_AVAILABLE =
  spawnSync('heif-enc', ['--help'], { stdio: 'ignore' }).error === undefined &&
  spawnSync('heif-info', ['--help'], { stdio: 'ignore' }).error === undefined;

function mimeType(path: string): string {
  return execFileSync('file', ['--mime-type', '-b', path], { encoding: 'utf8' }).trim();
}

/** The primary image's size as heif-info reports it ('image: 70x46'). */
function heifSize(path: string): string | undefined {
  return /image: (\d+x\d+)/.exec(execFileSync('heif-info', [path], { encoding: 'utf8' }))?.[1];
}

describeWithEngine('libheif', HEIF_AVAILABLE, 'apt-get install libheif-examples', 'heic output', () => {
  let engine: Engine;
  let work: string;
  let engineTemp: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'fileconv-heic-out-'));
    engineTemp = await mkdtemp(join(tmpdir(), 'fileconv-heic-engine-'));
    engine = createEngine({
      converters: [createSharpConverter(), createLibheifConverter()],
      tempDir: engineTemp,
    });
  });
  afterEach(async () => {
    expect(await readdir(engineTemp)).toEqual([]);
  });
  afterAll(async () => {
    await engine.close();
    await Promise.all([work, engineTemp].map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** Converts `input` to heic, checks the container, decodes it back with heic-decode and returns the RMSE against `reference`. */
  async function roundTrip(
    input: string,
    name: string,
    options: Record<string, unknown> = {},
    reference = input,
  ) {
    const heic = join(work, `${name}.heic`);
    const report = await engine.convertFile(input, heic, { options });
    expect(report.to).toBe('heic');
    expect(mimeType(heic)).toBe('image/heic');
    const back = join(work, `${name}.back.png`);
    await engine.convertFile(heic, back);
    const size = identify(reference);
    expect(heifSize(heic)).toBe(`${size.width}x${size.height}`);
    expect(identify(back)).toMatchObject({ format: 'PNG', width: size.width, height: size.height });
    return { heic, error: rmse(reference, back), bytes: (await stat(heic)).size, report };
  }

  it('writes a PNG as HEIC that another HEVC decoder reads back as the same picture', async () => {
    const { error, report } = await roundTrip(ROSE, 'rose');
    expect(report.path).toEqual(['png', 'heic']);
    expect(error).toBeLessThan(0.06);
  });

  it('writes a JPEG directly, and a GIF or WebP through sharp', async () => {
    const jpg = await roundTrip(fixture('fixture.jpg'), 'jpg');
    expect(jpg.report.path).toEqual(['jpg', 'heic']);
    expect(jpg.error).toBeLessThan(0.06);
    const webp = await roundTrip(fixture('fixture.webp'), 'webp');
    expect(webp.report.path).toEqual(['webp', 'png', 'heic']);
    expect(webp.error).toBeLessThan(0.06);
  });

  it('keeps an odd-sized picture at its size', async () => {
    const odd = join(work, 'odd.png');
    execFileSync('/usr/bin/convert', [ROSE, '-crop', '69x45+0+0', '+repage', odd]);
    const { error } = await roundTrip(odd, 'odd');
    expect(error).toBeLessThan(0.06);
  });

  it('follows quality, and lossless gives the pixels back', async () => {
    const low = await roundTrip(fixture('fixture.jpg'), 'low', { quality: 10 });
    const high = await roundTrip(fixture('fixture.jpg'), 'high', { quality: 95 });
    expect(high.bytes).toBeGreaterThan(low.bytes);
    expect(high.error).toBeLessThan(low.error);
    const lossless = await roundTrip(ROSE, 'lossless', { lossless: true });
    expect(lossless.error).toBeLessThan(0.005);
  });

  it('refuses options out of range as INVALID_OPTIONS', async () => {
    for (const options of [{ quality: 0 }, { quality: 101 }, { effort: 3 }, { lossless: 'yes' }]) {
      const error = await engine.convertFile(ROSE, join(work, 'bad.heic'), { options }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(FileconvError);
      expect((error as FileconvError).code).toBe('INVALID_OPTIONS');
    }
  });

  it('refuses a truncated PNG or JPEG as CORRUPT_INPUT, and a PNG named .jpg as CONTENT_MISMATCH', async () => {
    // A JPEG cut in its scan data decodes to the end with a warning; one cut earlier fails.
    const cuts: [string, number][] = [
      [ROSE, 0.5],
      [fixture('fixture.jpg'), 0.5],
      [fixture('fixture.jpg'), 0.9],
    ];
    for (const [index, [source, kept]] of cuts.entries()) {
      const bytes = readFileSync(source);
      const cut = join(work, `cut-${index}.${source.endsWith('.png') ? 'png' : 'jpg'}`);
      await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length * kept)));
      const error = await engine.convertFile(cut, join(work, 'cut.heic')).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect((error as FileconvError).code).toBe('CORRUPT_INPUT');
      expect((error as FileconvError).status).toBe(422);
    }
    const lying = join(work, 'lying.jpg');
    await writeFile(lying, readFileSync(ROSE));
    const error = await engine.convertFile(lying, join(work, 'lying.heic'), { from: 'jpg' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as FileconvError).code).toBe('CONTENT_MISMATCH');
  });
});
