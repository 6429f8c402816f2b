/**
 * The ICO container on its own: the ImageMagick-made fixture (DIB entries with AND masks), our
 * own PNG-entry icons, directories that do not add up, and a bare PNG named .ico (a common
 * favicon) taken for the PNG it is.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeDib } from '../../src/converters/sharp/bmp-decode.js';
import { isIco, largestEntry, readIcoEntries, writeIco } from '../../src/converters/sharp/ico.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import type { FileconvError } from '../../src/core/errors.js';
import { resolveSourceFormat } from '../../src/engine/planning.js';
import { createEngine } from '../../src/index.js';
import { fixture } from './sharp-helpers.js';

const icon = () => Buffer.from(readFileSync(fixture('fixture.ico')));
/** A damage that changes bytes in place (the test passes a copy). */
const edit = (change: (b: Buffer) => unknown) => (b: Buffer) => {
  change(b);
  return b;
};

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as FileconvError).code;
  }
  return undefined;
}

describe('reading', () => {
  it('lists the DIB entries of the ImageMagick fixture and picks the largest', () => {
    const entries = readIcoEntries(icon());
    expect(entries.map((e) => [e.kind, e.width, e.height])).toEqual([
      ['dib', 32, 32],
      ['dib', 16, 16],
    ]);
    const largest = largestEntry(entries);
    expect(largest.width).toBe(32);
    if (largest.kind !== 'dib') throw new Error('expected a DIB entry');
    const image = decodeDib(largest.bytes, largest.layout, 10_000);
    expect(image.data.length).toBe(32 * 32 * 4);
    // The source's transparent corner survives ImageMagick's resize as (partly) transparent pixels.
    expect(image.data[3]).toBeLessThan(255);
  });

  it('applies the AND mask of an entry without alpha', () => {
    // A 2x1 24-bit DIB: both pixels white, the mask hides the first.
    const dib = Buffer.alloc(40 + 8 + 4);
    dib.writeUInt32LE(40, 0);
    dib.writeInt32LE(2, 4);
    dib.writeInt32LE(2, 8); // XOR rows and AND rows together
    dib.writeUInt16LE(1, 12);
    dib.writeUInt16LE(24, 14);
    dib.fill(255, 40, 46);
    dib[48] = 0b1000_0000;
    const ico = writeIco([{ size: 2, png: dib }]);
    const entry = largestEntry(readIcoEntries(ico));
    if (entry.kind !== 'dib') throw new Error('expected a DIB entry');
    expect([...decodeDib(entry.bytes, entry.layout, 100).data]).toEqual([
      255, 255, 255, 0, 255, 255, 255, 255,
    ]);
  });

  it('round-trips PNG entries through writeIco, 256 stored as 0', async () => {
    const png = (size: number) =>
      sharp({ create: { width: size, height: size, channels: 4, background: '#f00' } })
        .png()
        .toBuffer();
    const ico = writeIco([
      { size: 16, png: await png(16) },
      { size: 256, png: await png(256) },
    ]);
    expect(isIco(ico)).toBe(true);
    expect([ico[6 + 16], ico[6 + 16 + 1]]).toEqual([0, 0]);
    const entries = readIcoEntries(ico);
    expect(entries.map((e) => `${e.kind} ${e.width}`)).toEqual(['png 16', 'png 256']);
    expect(largestEntry(entries).width).toBe(256);
  });
});

describe('refusing', () => {
  it.each([
    ['an entry count the file cannot hold', edit((b) => b.writeUInt16LE(60_000, 4))],
    ['a payload past the end of the file', edit((b) => b.writeUInt32LE(b.length, 6 + 12))],
    ['a payload size past the end', edit((b) => b.writeUInt32LE(0xffff_fff0, 6 + 8))],
    ['a payload inside the directory', edit((b) => b.writeUInt32LE(6, 6 + 12))],
    ['an empty payload', edit((b) => b.writeUInt32LE(0, 6 + 8))],
    ['a payload that is neither PNG nor DIB', edit((b) => b.fill(0x41, 38, 42))],
    ['a cut file', (b: Buffer) => b.subarray(0, 100)],
    ['type 2 (a cursor)', edit((b) => b.writeUInt16LE(2, 2))],
    ['no entries', edit((b) => b.writeUInt16LE(0, 4))],
  ])('%s with CORRUPT_INPUT', (_name, damage) => {
    expect(codeOf(() => readIcoEntries(damage(icon())))).toBe('CORRUPT_INPUT');
  });

  it('refuses a PNG entry without its header', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(codeOf(() => readIcoEntries(writeIco([{ size: 16, png }])))).toBe('CORRUPT_INPUT');
  });
});

describe('a bare PNG named .ico', () => {
  it('is the PNG it is when only its name says ico, and still refused when ico is declared', async () => {
    const png = readFileSync(fixture('fixture.png'));
    expect(await resolveSourceFormat(png, undefined, 'favicon.ico')).toBe('png');
    await expect(resolveSourceFormat(png, 'ico', 'favicon.ico')).rejects.toMatchObject({
      code: 'CONTENT_MISMATCH',
    });
    const dir = await mkdtemp(join(tmpdir(), 'fileconv-favicon-'));
    const engine = createEngine({ converters: [createSharpConverter()] });
    try {
      await writeFile(join(dir, 'favicon.ico'), png);
      const report = await engine.convertFile(join(dir, 'favicon.ico'), join(dir, 'favicon.webp'));
      expect(report.from).toBe('png');
      const meta = await sharp(join(dir, 'favicon.webp')).metadata();
      const source = await sharp(png).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', source.width, source.height]);
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
