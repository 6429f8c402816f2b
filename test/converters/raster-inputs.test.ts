/**
 * Bad input for the raster tool converters: a header claiming 100,000 x 100,000 pixels (65,535 x
 * 65,535 where the format's fields stop there) refused from the header before any tool starts, a
 * truncated file, a file lying about its format, and ImageMagick's policy refusing every coder
 * but the two a run needs. Each gets a stable 4xx code and leaves nothing in tempDir.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  createFfmpegImageConverter,
  createImageMagickConverter,
  createLibjxlConverter,
  createLibrawConverter,
} from '../../src/converters/raster/index.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import type { Converter } from '../../src/core/ports/index.js';
import { createEngine } from '../../src/index.js';
import { magickPolicy } from '../../src/kit/raster/imagemagick.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';
import { CONVERT, RASTER_ENGINES_AVAILABLE, RASTER_INSTALL } from './raster-helpers.js';

const magick = withOptionsParsed(createImageMagickConverter());
const jxl = withOptionsParsed(createLibjxlConverter());
const ffmpeg = withOptionsParsed(createFfmpegImageConverter());
const raw = withOptionsParsed(createLibrawConverter());

/** Readable format -> its converter and the format it reads into. */
const READERS: Record<string, [Converter, string]> = {
  jxl: [jxl, 'png'],
  jp2: [magick, 'png'],
  psd: [magick, 'png'],
  tga: [magick, 'png'],
  qoi: [ffmpeg, 'png'],
  pcx: [magick, 'png'],
  ppm: [magick, 'png'],
  pgm: [magick, 'png'],
  pbm: [magick, 'png'],
  exr: [ffmpeg, 'png'],
  hdr: [magick, 'png'],
  dds: [magick, 'png'],
  dng: [raw, 'tiff'],
};

const CLAIM = 100_000;
const bytesOf = (name: string) => Buffer.from(readFileSync(fixture(name)));

/** The TIFF directory entry of `tag` in the first directory, rewritten as a LONG holding `value`. */
function patchTiffTag(bytes: Buffer, tag: number, value: number): void {
  const directory = bytes.readUInt32LE(4);
  for (let i = 0; i < bytes.readUInt16LE(directory); i++) {
    const entry = directory + 2 + i * 12;
    if (bytes.readUInt16LE(entry) !== tag) continue;
    bytes.writeUInt16LE(4, entry + 2);
    bytes.writeUInt32LE(1, entry + 4);
    bytes.writeUInt32LE(value, entry + 8);
  }
}

/** A JPEG XL codestream whose SizeHeader says 100,000 x 100,000 (1:1), then zeros. */
function jxlBomb(): Buffer {
  const bits: number[] = [0, 0, 1]; // not 'small'; height selector 2 (18 bits)
  for (let i = 0; i < 18; i++) bits.push(((CLAIM - 1) >> i) & 1);
  bits.push(1, 0, 0); // aspect ratio 1: width = height
  const bytes = Buffer.alloc(64);
  bytes[0] = 0xff;
  bytes[1] = 0x0a;
  bits.forEach((bit, i) => {
    bytes[2 + (i >> 3)] = (bytes[2 + (i >> 3)] ?? 0) | (bit << (i & 7));
  });
  return bytes;
}

/** Each format's fixture with its size fields claiming CLAIM x CLAIM (or the format's maximum). */
const BOMBS: Record<string, () => Buffer> = {
  psd: () => {
    const b = bytesOf('fixture.psd');
    b.writeUInt32BE(CLAIM, 14);
    b.writeUInt32BE(CLAIM, 18);
    return b;
  },
  tga: () => {
    const b = bytesOf('fixture.tga');
    b.writeUInt16LE(0xffff, 12);
    b.writeUInt16LE(0xffff, 14);
    return b;
  },
  pcx: () => {
    const b = bytesOf('fixture.pcx');
    b.writeUInt16LE(0xfffe, 8);
    b.writeUInt16LE(0xfffe, 10);
    return b;
  },
  ppm: () =>
    Buffer.from(bytesOf('fixture.ppm').toString('latin1').replace('70 46', `${CLAIM} ${CLAIM}`), 'latin1'),
  pgm: () =>
    Buffer.from(bytesOf('fixture.pgm').toString('latin1').replace('70 46', `${CLAIM} ${CLAIM}`), 'latin1'),
  pbm: () =>
    Buffer.from(bytesOf('fixture.pbm').toString('latin1').replace('70 46', `${CLAIM} ${CLAIM}`), 'latin1'),
  hdr: () =>
    Buffer.from(
      bytesOf('fixture.hdr').toString('latin1').replace('-Y 46 +X 70', `-Y ${CLAIM} +X ${CLAIM}`),
      'latin1',
    ),
  dds: () => {
    const b = bytesOf('fixture.dds');
    b.writeUInt32LE(CLAIM, 12);
    b.writeUInt32LE(CLAIM, 16);
    return b;
  },
  qoi: () => {
    const b = bytesOf('fixture.qoi');
    b.writeUInt32BE(CLAIM, 4);
    b.writeUInt32BE(CLAIM, 8);
    return b;
  },
  exr: () => {
    const b = bytesOf('fixture.exr');
    const window = b.indexOf('dataWindow\0box2i\0', 0, 'latin1') + 'dataWindow\0box2i\0'.length + 4;
    b.writeInt32LE(CLAIM - 1, window + 8);
    b.writeInt32LE(CLAIM - 1, window + 12);
    return b;
  },
  jp2: () => {
    const b = bytesOf('fixture.jp2');
    const box = b.indexOf('ihdr', 0, 'latin1');
    b.writeUInt32BE(CLAIM, box + 4);
    b.writeUInt32BE(CLAIM, box + 8);
    return b;
  },
  jxl: jxlBomb,
  dng: () => {
    const b = bytesOf('fixture.dng');
    patchTiffTag(b, 256, CLAIM);
    patchTiffTag(b, 257, CLAIM);
    return b;
  },
};

describeWithEngine('raster tools', RASTER_ENGINES_AVAILABLE, RASTER_INSTALL, 'raster bad input', () => {
  it.each(Object.keys(BOMBS))('a %s claiming 100,000 x 100,000 is refused from its header', async (from) => {
    const ws = await workspace();
    const inputPath = join(ws.inputs, `bomb.${from}`);
    await writeFile(inputPath, BOMBS[from]?.() ?? Buffer.alloc(0));
    const [converter, to] = READERS[from] ?? [magick, 'png'];
    const error = await expectCode(
      converter.convert(context(ws, from, to, { inputPath })),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(error.message).toMatch(/pixels; the limit is/);
    await expectNoLeftovers(ws);
  });

  it.each(Object.keys(READERS))('a truncated %s is CORRUPT_INPUT', async (from) => {
    const ws = await workspace();
    const bytes = readFileSync(fixture(`fixture.${from}`));
    const inputPath = join(ws.inputs, `cut.${from}`);
    await writeFile(inputPath, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const [converter, to] = READERS[from] ?? [magick, 'png'];
    await expectCode(converter.convert(context(ws, from, to, { inputPath })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it.each(Object.keys(READERS))('PNG bytes declared as %s are CORRUPT_INPUT', async (from) => {
    const ws = await workspace();
    const [converter, to] = READERS[from] ?? [magick, 'png'];
    await expectCode(
      converter.convert(context(ws, from, to, { inputPath: fixture('fixture.png') })),
      'CORRUPT_INPUT',
    );
    await expectNoLeftovers(ws);
  });

  it('a PNG named .tga is CONTENT_MISMATCH before any converter runs', async () => {
    const ws = await workspace();
    const lying = join(ws.inputs, 'photo.tga');
    await writeFile(lying, readFileSync(fixture('fixture.png')));
    const engine = createEngine({ converters: [createSharpConverter(), magick], tempDir: ws.temp });
    try {
      await expectCode(engine.convertFile(lying, join(ws.outputs, 'out.png')), 'CONTENT_MISMATCH');
      // Said to be a TGA outright, it still is not one.
      await expectCode(
        engine.convertFile(lying, join(ws.outputs, 'out.png'), { from: 'tga' }),
        'CONTENT_MISMATCH',
      );
    } finally {
      await engine.close();
    }
    await expectNoLeftovers(ws);
  });

  it('a 64-bit TIFF claiming 100,000 x 100,000 is refused before ImageMagick reads it', async () => {
    const ws = await workspace();
    const bytes = bytesOf('raster/float64.tiff');
    patchTiffTag(bytes, 256, CLAIM);
    patchTiffTag(bytes, 257, CLAIM);
    const inputPath = join(ws.inputs, 'bomb.tiff');
    await writeFile(inputPath, bytes);
    await expectCode(
      withOptionsParsed(createSharpConverter()).convert(context(ws, 'tiff', 'png', { inputPath })),
      'INPUT_LIMIT_EXCEEDED',
    );
    await expectNoLeftovers(ws);
  });

  it('a truncated 64-bit TIFF neither engine reads stays CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const bytes = readFileSync(fixture('raster/float64.tiff'));
    const inputPath = join(ws.inputs, 'cut.tiff');
    await writeFile(inputPath, bytes.subarray(0, 600));
    await expectCode(
      withOptionsParsed(createSharpConverter()).convert(context(ws, 'tiff', 'png', { inputPath })),
      'CORRUPT_INPUT',
    );
    await expectNoLeftovers(ws);
  });

  it("ImageMagick's policy for a run refuses every coder but its two", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fileconv-policy-'));
    try {
      await writeFile(join(dir, 'policy.xml'), magickPolicy('PNM', 'PNG', 1_000_000));
      const env = { ...process.env, MAGICK_CONFIGURE_PATH: dir };
      await writeFile(join(dir, 'draw.mvg'), 'viewbox 0 0 10 10\nfill red\nrectangle 0 0 5 5\n');
      const mvg = spawnSync(CONVERT, [`mvg:${join(dir, 'draw.mvg')}`, `png:${join(dir, 'out.png')}`], {
        env,
        encoding: 'utf8',
      });
      expect(mvg.status).not.toBe(0);
      expect(mvg.stderr).toMatch(/not allowed by the security policy/);
      for (const coder of ['text', 'msl', 'url', 'ephemeral', 'jpeg']) {
        const refused = spawnSync(
          CONVERT,
          [`${coder}:${join(dir, 'draw.mvg')}`, `png:${join(dir, 'x.png')}`],
          {
            env,
            encoding: 'utf8',
          },
        );
        expect(refused.status, coder).not.toBe(0);
      }
      // The two it allows still work.
      execFileSync(CONVERT, [`pnm:${fixture('fixture.ppm')}`, `png:${join(dir, 'ok.png')}`], { env });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
