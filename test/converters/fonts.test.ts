/**
 * The font converter (fontTools): every declared pair converted from the fixtures and read back
 * with fc-scan and an independent fontTools program; then broken, lying and bomb inputs, each
 * refused with its stable code and nothing left behind.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { constants, createBrotliCompress } from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import { createFontConverter, FONT_EDGES } from '../../src/converters/font/index.js';
import { woff2Layout } from '../../src/converters/font/woff2-stream.js';
import type { ErrorCode } from '../../src/core/errors.js';
import { DETECTION_BYTES, detectFormat } from '../../src/core/formats/detect.js';
import { createEngine } from '../../src/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';
import {
  FONTTOOLS_AVAILABLE,
  FONTTOOLS_INSTALL,
  type FontFacts,
  fcScan,
  fontFacts,
  WOFF2_DECOMPRESS_AVAILABLE,
} from './font-helpers.js';

const converter = withOptionsParsed(createFontConverter());
const SOURCES = ['ttf', 'otf', 'woff', 'woff2'] as const;

/** The outline kind a conversion to `to` must give: ttf and otf force theirs, web fonts keep the source's. */
function outlinesFor(to: string, source: FontFacts): FontFacts['outlines'] {
  if (to === 'ttf') return 'truetype';
  if (to === 'otf') return 'cff';
  return source.outlines;
}

async function convertFixture(ws: Workspace, from: string, to: string): Promise<string> {
  const ctx = context(ws, from, to);
  await converter.convert(ctx);
  expect(await readdir(ws.temp)).toEqual([]);
  return ctx.outputPath;
}

async function refuse(ws: Workspace, bytes: Uint8Array, from: string, to: string, code: ErrorCode) {
  const inputPath = join(ws.inputs, `input.${from}`);
  await writeFile(inputPath, bytes);
  const error = await expectCode(converter.convert(context(ws, from, to, { inputPath })), code);
  await expectNoLeftovers(ws);
  return error;
}

/** Offset of `tag`'s entry in an sfnt's table directory (tag, checksum, offset, length). */
function tableEntry(font: Buffer, tag: string): number {
  for (let index = 0; index < font.readUInt16BE(4); index++) {
    const at = 12 + 16 * index;
    if (font.toString('latin1', at, at + 4) === tag) return at;
  }
  throw new Error(`no ${tag} table`);
}

/** A copy of `font` with `patch` applied to the table `tag` (given the table's offset). */
function patchTable(font: Buffer, tag: string, patch: (copy: Buffer, offset: number, entry: number) => void) {
  const copy = Buffer.from(font);
  const entry = tableEntry(copy, tag);
  patch(copy, copy.readUInt32BE(entry + 8), entry);
  return copy;
}

/** A Brotli stream of `mebibytes` MiB of zeros (a few hundred KB), compressed chunk by chunk. */
function brotliOfZeros(mebibytes: number): Promise<Buffer> {
  const zeros = Buffer.alloc(1 << 20);
  const chunks = (function* () {
    for (let i = 0; i < mebibytes; i++) yield zeros;
  })();
  const compressor = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
  return buffer(Readable.from(chunks).pipe(compressor));
}

describeWithEngine('fontTools', FONTTOOLS_AVAILABLE, FONTTOOLS_INSTALL, 'font converter', () => {
  const sources = new Map<string, FontFacts>();
  let ttf: Buffer;

  beforeAll(async () => {
    for (const from of SOURCES) sources.set(from, fontFacts(fixture(`fixture.${from}`)));
    ttf = await readFile(fixture('fixture.ttf'));
  });

  it('is available and names fontTools', async () => {
    const availability = await converter.available();
    expect(availability.ok, availability.reason).toBe(true);
    expect(availability.version).toMatch(/^fontTools \d/);
  });

  it('declares every pair of the four formats, wrapping lossless and outline changes lossy', () => {
    expect(FONT_EDGES).toHaveLength(12);
    const lossless = FONT_EDGES.filter((edge) => !edge.lossy).map((edge) => `${edge.from}>${edge.to}`);
    expect(lossless.sort()).toEqual(
      ['otf>woff', 'otf>woff2', 'ttf>woff', 'ttf>woff2', 'woff>woff2', 'woff2>woff'].sort(),
    );
  });

  it.each(FONT_EDGES.map((edge) => [edge.from, edge.to] as const))(
    '%s -> %s keeps family, characters, glyphs, advances and outlines',
    async (from, to) => {
      const ws = await workspace();
      const output = await convertFixture(ws, from, to);
      const source = sources.get(from) as FontFacts;
      const result = fontFacts(output);

      expect(await detectFormat((await readFile(output)).subarray(0, DETECTION_BYTES))).toBe(to);
      expect(result.flavor).toBe(to === 'woff' || to === 'woff2' ? to : null);
      expect(result.outlines).toBe(outlinesFor(to, source));
      expect(result.family).toBe(source.family);
      expect(result.glyphCount).toBe(source.glyphCount);
      expect(result.advance).toBe(source.advance);

      // fontconfig, another reader altogether, sees the same face.
      const scanned = fcScan(output);
      const scannedSource = fcScan(fixture(`fixture.${from}`));
      expect(scanned.family).toBe(scannedSource.family);
      expect(scanned.charset).toBe(scannedSource.charset);
      expect(scanned.fontformat).toBe(result.outlines === 'cff' ? 'CFF' : 'TrueType');

      if (result.outlines === source.outlines) {
        // Only the wrapping changed: the glyph is drawn with the very same commands, and every
        // table but those WOFF2 rebuilds (glyf, loca) or the writer stamps (head's checksum
        // adjustment and WOFF2 flag) is the same bytes.
        expect(result.commands).toEqual(source.commands);
        const rebuilt = new Set(['glyf', 'loca', 'head']);
        const kept = (digests: Record<string, string>) =>
          Object.entries(digests)
            .filter(([tag]) => !rebuilt.has(tag))
            .sort();
        expect(kept(result.digests)).toEqual(kept(source.digests));
      } else {
        // Outlines converted: quadratic -> cubic is exact up to rounding, cubic -> quadratic within
        // 1 unit per curve (cu2qu); the shape's box and area stay put, and the contours turn to
        // the target's winding (TrueType clockwise, PostScript counter-clockwise): the signed
        // area changes sign.
        result.bounds.forEach((value, i) => {
          expect(Math.abs(value - (source.bounds[i] as number))).toBeLessThanOrEqual(2);
        });
        expect(Math.abs(result.area + source.area) / Math.abs(source.area)).toBeLessThan(0.01);
      }
    },
  );

  it('keeps the CFF table when wrapping an otf, and drops TrueType hinting when converting to otf', async () => {
    const ws = await workspace();
    expect(fontFacts(await convertFixture(ws, 'otf', 'woff2')).tables).toContain('CFF ');
    const otf = fontFacts(await convertFixture(ws, 'ttf', 'otf'));
    expect(otf.tables).toContain('CFF ');
    for (const tag of ['glyf', 'loca', 'fpgm', 'prep', 'cvt ']) expect(otf.tables).not.toContain(tag);
    const ttfOut = fontFacts(await convertFixture(ws, 'otf', 'ttf'));
    expect(ttfOut.tables).toEqual(expect.arrayContaining(['glyf', 'loca']));
    expect(ttfOut.tables).not.toContain('CFF ');
  });

  it.runIf(WOFF2_DECOMPRESS_AVAILABLE)(
    "writes WOFF2 that Google's reference decoder unpacks to the same face",
    async () => {
      const ws = await workspace();
      const output = await convertFixture(ws, 'ttf', 'woff2');
      execFileSync('woff2_decompress', [output], { stdio: 'ignore' });
      const unpacked = output.replace(/\.woff2$/, '.ttf');
      expect(fcScan(unpacked)).toEqual(fcScan(fixture('fixture.ttf')));
      expect(fontFacts(unpacked).commands).toEqual(sources.get('ttf')?.commands);
    },
  );

  it('reads an input given by a path relative to the working directory', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'ttf', 'woff', { inputPath: relative(process.cwd(), fixture('fixture.ttf')) });
    await converter.convert(ctx);
    expect(fcScan(ctx.outputPath).family).toBe('DejaVu Sans');
  });

  it('plans every pair as one step: no lossless-looking detour through a web font', async () => {
    const engine = createEngine({ converters: [converter], tempDir: await tempDir() });
    for (const { from, to } of FONT_EDGES) {
      const plan = await engine.plan(from, to);
      expect(plan.steps.map((step) => `${step.from}>${step.to}`)).toEqual([`${from}>${to}`]);
    }
  });

  it('converts through the engine, which detects the font from its bytes', async () => {
    const engineTemp = await tempDir();
    const work = await tempDir();
    const engine = createEngine({ converters: [converter], tempDir: engineTemp });
    await engine.convertFile(fixture('fixture.ttf'), join(work, 'web.woff2'));
    expect(fcScan(join(work, 'web.woff2')).family).toBe('DejaVu Sans');
    expect(await readdir(engineTemp)).toEqual([]);
  });

  it('refuses a PNG named .ttf: CONTENT_MISMATCH from the engine, nothing left behind', async () => {
    const engineTemp = await tempDir();
    const work = await tempDir();
    const lying = join(work, 'font.ttf');
    await writeFile(lying, await readFile(fixture('fixture.png')));
    const engine = createEngine({ converters: [converter], tempDir: engineTemp });
    await expectCode(engine.convertFile(lying, join(work, 'out.woff2')), 'CONTENT_MISMATCH');
    expect(await readdir(work)).toEqual(['font.ttf']);
    expect(await readdir(engineTemp)).toEqual([]);
  });

  it('refuses truncated fonts as CORRUPT_INPUT', async () => {
    const ws = await workspace();
    await refuse(ws, ttf.subarray(0, ttf.length >> 1), 'ttf', 'woff2', 'CORRUPT_INPUT');
    const woff2 = await readFile(fixture('fixture.woff2'));
    const error = await refuse(ws, woff2.subarray(0, woff2.length - 100), 'woff2', 'ttf', 'CORRUPT_INPUT');
    expect(error.message).toMatch(/truncated/);
    const woff = await readFile(fixture('fixture.woff'));
    await refuse(ws, woff.subarray(0, 30), 'woff', 'ttf', 'CORRUPT_INPUT');
  });

  it.each([
    [
      "a 'head' table with a wrong magic number",
      (f: Buffer) => patchTable(f, 'head', (c, at) => c.writeUInt32BE(0xdeadbeef, at + 12)),
    ],
    [
      "a 'head' table cut to 20 bytes",
      (f: Buffer) => patchTable(f, 'head', (c, _, entry) => c.writeUInt32BE(20, entry + 12)),
    ],
    [
      "a 'maxp' claiming 65535 glyphs",
      (f: Buffer) => patchTable(f, 'maxp', (c, at) => c.writeUInt16BE(0xffff, at + 4)),
    ],
    [
      "a 'loca' pointing outside 'glyf'",
      (f: Buffer) =>
        patchTable(f, 'loca', (c, at, entry) => c.fill(0xff, at, at + c.readUInt32BE(entry + 12))),
    ],
    [
      "a 'glyf' table of garbage",
      (f: Buffer) =>
        patchTable(f, 'glyf', (c, at, entry) => c.fill(0xff, at, at + c.readUInt32BE(entry + 12))),
    ],
    [
      'a table directory pointing past the end',
      (f: Buffer) => patchTable(f, 'glyf', (c, _, entry) => c.writeUInt32BE(f.length + 100, entry + 8)),
    ],
    [
      'no cmap table',
      (f: Buffer) => patchTable(f, 'cmap', (c, _, entry) => c.write('xxxx', entry, 'latin1')),
    ],
  ])('refuses a font with %s as CORRUPT_INPUT', async (_, damage) => {
    const ws = await workspace();
    await refuse(ws, damage(ttf), 'ttf', 'woff2', 'CORRUPT_INPUT');
  });

  it('refuses WOFF and WOFF2 declaring huge unpacked sizes as INPUT_LIMIT_EXCEEDED, before inflating', async () => {
    const ws = await workspace();
    const woff2 = Buffer.from(await readFile(fixture('fixture.woff2')));
    woff2.writeUInt32BE(0xfffffff0, 16); // totalSfntSize
    const error = await refuse(ws, woff2, 'woff2', 'ttf', 'INPUT_LIMIT_EXCEEDED');
    expect(error.message).toMatch(/declares 4294967280 bytes/);
    const woff = Buffer.from(await readFile(fixture('fixture.woff')));
    woff.writeUInt32BE(0x7fffffff, 44 + 12); // the first table's origLength
    await refuse(ws, woff, 'woff', 'woff2', 'INPUT_LIMIT_EXCEEDED');
  });

  it('stops inflating a WOFF2 stream at its declared size: 256 MiB of zeros behind a small font is CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const woff2 = await readFile(fixture('fixture.woff2'));
    const layout = woff2Layout(woff2, woff2.length);
    if (!layout) throw new Error('fixture.woff2 has no WOFF2 layout');
    const bomb = await brotliOfZeros(256);
    const file = Buffer.concat([woff2.subarray(0, layout.streamOffset), bomb]);
    file.writeUInt32BE(file.length, 8); // length
    file.writeUInt32BE(bomb.length, 20); // totalCompressedSize
    const error = await refuse(ws, file, 'woff2', 'ttf', 'CORRUPT_INPUT');
    expect(error.message).toMatch(/inflate past the \d+ bytes declared/);
  });

  it('stops inflating a WOFF table at its declared size: one that inflates further is CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const woff = Buffer.from(await readFile(fixture('fixture.woff')));
    // Find a compressed table (compLength < origLength) and declare it smaller than it inflates.
    for (let index = 0; index < woff.readUInt16BE(12); index++) {
      const at = 44 + 20 * index;
      const packed = woff.readUInt32BE(at + 8);
      const unpacked = woff.readUInt32BE(at + 12);
      if (packed < unpacked && unpacked > 64) {
        woff.writeUInt32BE(unpacked - 32, at + 12);
        break;
      }
    }
    const error = await refuse(ws, woff, 'woff', 'ttf', 'CORRUPT_INPUT');
    expect(error.message).toMatch(/other than the \d+ bytes declared/);
  });

  it('refuses unknown options and an aborted conversion, leaving nothing', async () => {
    const ws = await workspace();
    await expectCode(
      converter.convert(context(ws, 'ttf', 'woff2', { options: { subset: 'abc' } })),
      'INVALID_OPTIONS',
    );
    const controller = new AbortController();
    controller.abort();
    await expectCode(
      converter.convert(context(ws, 'ttf', 'woff2', { signal: controller.signal })),
      'CANCELED',
    );
    await expectNoLeftovers(ws);
  });

  it('kills fontTools when the conversion is aborted while it runs', async () => {
    const ws = await workspace();
    const controller = new AbortController();
    // Python's start alone takes longer than this: the abort lands while the child runs.
    setTimeout(() => controller.abort(), 50);
    await expectCode(
      converter.convert(context(ws, 'otf', 'woff2', { signal: controller.signal })),
      'CANCELED',
    );
    await expectNoLeftovers(ws);
  });
});
