/**
 * The raster formats beyond the web ones, end to end through an engine holding sharp and the four
 * tool converters: every fixture to PNG and JPEG (the graph chains the tool's PNG into sharp), PNG
 * to every writable format, JPEG to JPEG XL losslessly, and the TIFF libvips refuses. Outputs are
 * checked with identify and compared with the source picture (compare's RMSE); files ImageMagick
 * wrote are decoded by ffmpeg, so no engine vouches for itself where another can look.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  createFfmpegImageConverter,
  createImageMagickConverter,
  createLibjxlConverter,
  createLibrawConverter,
} from '../../src/converters/raster/index.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { createEngine, type Engine } from '../../src/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { fixture } from './converter-harness.js';
import {
  ffmpegDecode,
  greyRose,
  identify,
  RASTER_ENGINES_AVAILABLE,
  RASTER_INSTALL,
  ROSE,
  rmse,
} from './raster-helpers.js';

/** Source format -> how far its PNG may stray from the rose (RMSE, 0..1), and what to compare with. */
const READ_TOLERANCE: Record<string, number> = {
  jxl: 0.001, // lossless fixture
  jp2: 0.001, // lossless fixture
  psd: 0.001, // the flattened composite, not the layers
  tga: 0.001,
  qoi: 0.001,
  pcx: 0.001,
  ppm: 0.001,
  pgm: 0.04, // against ImageMagick's grey rose; ffmpeg, which wrote the fixture, weighs the channels otherwise
  exr: 0.001, // linear light, brought back to sRGB
  hdr: 0.005, // RGBE: 8-bit mantissas with a shared exponent
  dds: 0.06, // DXT1 block compression
  dng: 0.12, // a Bayer mosaic demosaiced: edges soften
  sgi: 0.001,
  xpm: 0.02, // the fixture's palette of 256 colours
  pam: 0.001,
};

/** Formats written from PNG, and how far they may stray after the round trip (a decoder other than the writer reads them back where one exists). */
const WRITE_TOLERANCE: Record<string, number> = {
  jp2: 0.001,
  tga: 0.001,
  pcx: 0.001,
  ppm: 0.001,
  pgm: 0.005, // ImageMagick's grey against ImageMagick's grey, read back by ffmpeg
  jxl: 0.03, // cjxl's default: visually lossless
  qoi: 0.001,
  exr: 0.001,
  dds: 0.06,
  sgi: 0.001,
  xpm: 0.02, // a palette of at most 256 colours
  pam: 0.001,
};

/**
 * How ffmpeg reads each written format back (ImageMagick wrote most; ffmpeg 5.1 has no Radiance
 * decoder, so HDR is checked with identify only). EXR holds linear light: ffmpeg is told to apply
 * the sRGB curve on reading, as the converter does.
 */
const FFMPEG_INPUT: Record<string, string[]> = {
  pcx: ['-f', 'pcx_pipe'],
  ppm: ['-f', 'ppm_pipe'],
  pgm: ['-f', 'pgm_pipe'],
  jxl: ['-f', 'jpegxl_pipe'],
  qoi: ['-f', 'qoi_pipe'],
  exr: ['-apply_trc', 'iec61966_2_1', '-f', 'exr_pipe'],
  dds: ['-f', 'dds_pipe'],
  sgi: ['-f', 'sgi_pipe'],
  xpm: ['-f', 'xpm_pipe'],
  pam: ['-f', 'pam_pipe'],
};

describeWithEngine('raster tools', RASTER_ENGINES_AVAILABLE, RASTER_INSTALL, 'raster formats', () => {
  let engine: Engine;
  let work: string;
  let grey: string;
  let engineTemp: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'fileconv-raster-'));
    grey = greyRose(work);
    engineTemp = await mkdtemp(join(tmpdir(), 'fileconv-raster-engine-'));
    engine = createEngine({
      converters: [
        createSharpConverter(),
        createImageMagickConverter(),
        createLibjxlConverter(),
        createFfmpegImageConverter(),
        createLibrawConverter(),
      ],
      tempDir: engineTemp,
    });
  });
  afterEach(async () => {
    // Every conversion, chained or not, leaves the engine's temp parent empty.
    expect(await readdir(engineTemp)).toEqual([]);
  });
  afterAll(async () => {
    await engine.close();
    await Promise.all([work, engineTemp].map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it.each(Object.keys(READ_TOLERANCE))('%s -> png keeps the picture', async (from) => {
    const out = join(work, `${from}.png`);
    const report = await engine.convertFile(fixture(`fixture.${from}`), out);
    expect(report.from).toBe(from);
    expect(identify(out)).toMatchObject({ format: 'PNG', width: 70, height: 46 });
    const reference = from === 'pgm' ? grey : ROSE;
    expect(rmse(reference, out)).toBeLessThanOrEqual(READ_TOLERANCE[from] ?? 0);
  });

  it.each(Object.keys(READ_TOLERANCE))('%s -> jpg chains through sharp', async (from) => {
    const out = join(work, `${from}.jpg`);
    const report = await engine.convertFile(fixture(`fixture.${from}`), out);
    expect(report.path[0]).toBe(from);
    expect(report.path.at(-1)).toBe('jpg');
    expect(identify(out)).toMatchObject({ format: 'JPEG', width: 70, height: 46 });
    const reference = from === 'pgm' ? grey : ROSE;
    expect(rmse(reference, out)).toBeLessThanOrEqual((READ_TOLERANCE[from] ?? 0) + 0.05);
  });

  it('reads a PBM as one bit per pixel', async () => {
    const out = join(work, 'pbm.png');
    await engine.convertFile(fixture('fixture.pbm'), out);
    const colours = execFileSync('/usr/bin/identify', ['-format', '%k', out], { encoding: 'utf8' });
    expect(identify(out)).toMatchObject({ width: 70, height: 46 });
    expect(Number(colours)).toBe(2);
  });

  it('a grey PNG (a scan) -> exr keeps its picture (zscale alone found no path from grey)', async () => {
    const out = join(work, 'scan.exr');
    await engine.convertFile(fixture('ocr/sentence.png'), out);
    const decoded = ffmpegDecode(out, work, FFMPEG_INPUT.exr);
    expect(identify(decoded)).toMatchObject({ width: 1628, height: 214 });
  });

  it.each(Object.keys(WRITE_TOLERANCE))('png -> %s, read back by another decoder', async (to) => {
    const out = join(work, `rose.${to}`);
    const report = await engine.convertFile(ROSE, out);
    expect(report.path).toEqual(['png', to]);
    const decoded = ffmpegDecode(out, work, FFMPEG_INPUT[to]);
    expect(identify(decoded)).toMatchObject({ width: 70, height: 46 });
    const reference = to === 'pgm' ? grey : ROSE;
    expect(rmse(reference, decoded)).toBeLessThanOrEqual(WRITE_TOLERANCE[to] ?? 0);
  });

  it('png -> hdr and png -> pbm', async () => {
    const hdr = join(work, 'rose.hdr');
    await engine.convertFile(ROSE, hdr);
    expect(readFileSync(hdr).toString('latin1', 0, 10)).toBe('#?RADIANCE');
    expect(identify(hdr)).toMatchObject({ format: 'HDR', width: 70, height: 46 });
    expect(rmse(ROSE, hdr)).toBeLessThanOrEqual(0.005);
    const pbm = join(work, 'rose.pbm');
    await engine.convertFile(ROSE, pbm);
    expect(readFileSync(pbm).toString('latin1', 0, 2)).toBe('P4');
    expect(identify(ffmpegDecode(pbm, work, ['-f', 'pbm_pipe']))).toMatchObject({ width: 70, height: 46 });
  });

  it('a bottom-up TGA (Pillow, run-length encoded) comes out right side up', async () => {
    const out = join(work, 'bottom-up.png');
    await engine.convertFile(fixture('raster/bottom-up.tga'), out);
    expect(rmse(ROSE, out)).toBeLessThanOrEqual(0.001);
  });

  it('webp -> jp2 and jxl -> webp plan through png', async () => {
    const jp2 = join(work, 'from-webp.jp2');
    expect((await engine.convertFile(fixture('fixture.webp'), jp2)).path).toEqual(['webp', 'png', 'jp2']);
    expect(identify(ffmpegDecode(jp2, work)).format).toBe('PNG');
    const webp = join(work, 'from-jxl.webp');
    expect((await engine.convertFile(fixture('fixture.jxl'), webp)).path).toEqual(['jxl', 'png', 'webp']);
    expect(identify(webp)).toMatchObject({ format: 'WEBP', width: 70, height: 46 });
  });

  it('jpg -> jxl is lossless: djxl rebuilds the very JPEG', async () => {
    const jxl = join(work, 'photo.jxl');
    expect((await engine.convertFile(fixture('fixture.jpg'), jxl)).path).toEqual(['jpg', 'jxl']);
    expect(execFileSync('jxlinfo', [jxl], { encoding: 'utf8' })).toContain(
      'JPEG bitstream reconstruction data',
    );
    const rebuilt = join(work, 'rebuilt.jpg');
    execFileSync('djxl', [jxl, rebuilt], { stdio: 'ignore' });
    expect(readFileSync(rebuilt).equals(readFileSync(fixture('fixture.jpg')))).toBe(true);
  });

  it('quality options: jxl at 100 is lossless, jp2 below 100 is smaller, out of range is refused', async () => {
    const jxl = join(work, 'lossless.jxl');
    await engine.convertFile(ROSE, jxl, { options: { quality: 100, effort: 3 } });
    expect(rmse(ROSE, ffmpegDecode(jxl, work, ['-f', 'jpegxl_pipe']))).toBe(0);
    const small = join(work, 'small.jp2');
    const exact = join(work, 'exact.jp2');
    await engine.convertFile(ROSE, small, { options: { quality: 30 } });
    await engine.convertFile(ROSE, exact);
    expect(readFileSync(small).length).toBeLessThan(readFileSync(exact).length);
    expect(rmse(ROSE, ffmpegDecode(small, work))).toBeLessThan(0.1);
    await expect(
      engine.convertFile(ROSE, join(work, 'bad.jxl'), { options: { quality: 0 } }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    // A quality for a JPEG source re-encodes its pixels: nothing to rebuild the JPEG from.
    const reencoded = join(work, 'reencoded.jxl');
    await engine.convertFile(fixture('fixture.jpg'), reencoded, { options: { quality: 60 } });
    expect(execFileSync('jxlinfo', [reencoded], { encoding: 'utf8' })).not.toContain('reconstruction');
  });

  it('dng develops into a 16-bit TIFF', async () => {
    const out = join(work, 'raw.tiff');
    expect((await engine.convertFile(fixture('fixture.dng'), out)).path).toEqual(['dng', 'tiff']);
    expect(identify(out)).toMatchObject({ format: 'TIFF', width: 70, height: 46, depth: 16 });
  });

  it('a TIFF libvips refuses (64-bit samples) converts through ImageMagick', async () => {
    const out = join(work, 'float64.png');
    await engine.convertFile(fixture('raster/float64.tiff'), out);
    expect(identify(out)).toMatchObject({ format: 'PNG', width: 70, height: 46 });
    expect(rmse(ROSE, out)).toBeLessThanOrEqual(0.001);
    const webp = join(work, 'float64.webp');
    await engine.convertFile(fixture('raster/float64.tiff'), webp);
    expect(identify(webp)).toMatchObject({ format: 'WEBP', width: 70, height: 46 });
  });
});
