/**
 * The BMP decoder and encoder on their own: every encoding ImageMagick writes (fixtures/bmp/,
 * each beside ImageMagick's decoding of it), the variants it does not write (top-down, RLE4, a gap
 * before the pixels, 32-bit BI_RGB alpha), and damaged or lying headers.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeDib, type RawImage } from '../../src/converters/sharp/bmp-decode.js';
import { encodeBmp } from '../../src/converters/sharp/bmp-encode.js';
import { parseBmp } from '../../src/converters/sharp/bmp-header.js';
import type { FileconvError } from '../../src/core/errors.js';
import { fixture } from './sharp-helpers.js';

const decode = (bytes: Buffer, maxPixels = 1_000_000): RawImage =>
  decodeDib(bytes, parseBmp(bytes), maxPixels);
const variant = (name: string) => readFileSync(fixture(`bmp/${name}.bmp`));
/** A damage that changes bytes in place (the test passes a copy). */
const edit = (change: (b: Buffer) => unknown) => (b: Buffer) => {
  change(b);
  return b;
};

/** ImageMagick's decoding of a variant, as RGBA. */
async function reference(name: string): Promise<Buffer> {
  return sharp(fixture(`bmp/${name}.png`))
    .ensureAlpha()
    .raw()
    .toBuffer();
}

/** The largest per-byte difference between two RGBA buffers of equal length. */
function maxDifference(a: Uint8Array, b: Uint8Array): number {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as FileconvError).code;
  }
  return undefined;
}

/** A minimal 40-byte-header BMP around `pixels`, with a palette for indexed depths. */
function craftBmp(o: {
  width: number;
  height: number;
  bits: number;
  compression?: number;
  palette?: number[][];
  pixels: Buffer;
}): Buffer {
  const palette = Buffer.concat((o.palette ?? []).map(([r, g, b]) => Buffer.from([b!, g!, r!, 0])));
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(54 + palette.length + o.pixels.length, 2);
  header.writeUInt32LE(54 + palette.length, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(o.width, 18);
  header.writeInt32LE(o.height, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(o.bits, 28);
  header.writeUInt32LE(o.compression ?? 0, 30);
  header.writeUInt32LE((o.palette ?? []).length, 46);
  return Buffer.concat([header, palette, o.pixels]);
}

describe('decoding what ImageMagick writes', () => {
  // 16-bit channels are scaled to the full 0..255 range; ImageMagick rounds differently by one.
  it.each([
    ['rgb24', 0],
    ['argb32', 0],
    ['rgb565', 1],
    ['pal8', 0],
    ['rle8', 0],
    ['pal4', 0],
    ['pal1', 0],
  ] as const)('%s matches ImageMagick', async (name, tolerance) => {
    const image = decode(variant(name));
    expect([image.width, image.height]).toEqual([15, 11]);
    expect(maxDifference(image.data, await reference(name))).toBeLessThanOrEqual(tolerance);
  });

  it('keeps the transparency of a v5 32-bit BMP', () => {
    const image = decode(variant('argb32'));
    expect(image.data[3]).toBe(0); // the fixture's transparent top-left corner
    expect(image.data[image.data.length - 1]).toBe(255);
  });
});

describe('variants ImageMagick does not write', () => {
  it('reads top-down rows (negative height)', async () => {
    const bottomUp = variant('rgb24');
    const offset = bottomUp.readUInt32LE(10);
    const stride = 48; // 15 pixels x 3 bytes, padded to 4
    const topDown = Buffer.from(bottomUp);
    for (let row = 0; row < 11; row++) {
      bottomUp.copy(
        topDown,
        offset + (10 - row) * stride,
        offset + row * stride,
        offset + (row + 1) * stride,
      );
    }
    topDown.writeInt32LE(-11, 22);
    expect(maxDifference(decode(topDown).data, await reference('rgb24'))).toBe(0);
  });

  it('starts the pixels at the header offset, not after the palette', async () => {
    const plain = variant('pal8');
    const offset = plain.readUInt32LE(10);
    const gap = Buffer.concat([plain.subarray(0, offset), Buffer.alloc(16, 0xee), plain.subarray(offset)]);
    gap.writeUInt32LE(offset + 16, 10);
    expect(maxDifference(decode(gap).data, await reference('pal8'))).toBe(0);
  });

  it('decodes RLE4 runs, absolute blocks, deltas and clips runs at the row end', () => {
    const palette = [
      [0, 0, 0],
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
    ];
    // 4x3, bottom row first: a run alternating 1,2 over 4 pixels; an absolute block 3,3,1 (odd,
    // padded); a delta of (1, 1) then a run of 9 (clipped) and the end of the bitmap.
    const pixels = Buffer.from([4, 0x12, 0, 0, 0, 3, 0x33, 0x10, 0, 0, 0, 2, 1, 0, 9, 0x33, 0, 1]);
    const image = decode(craftBmp({ width: 4, height: 3, bits: 4, compression: 2, palette, pixels }));
    const at = (x: number, y: number) => [...image.data.subarray((y * 4 + x) * 4, (y * 4 + x) * 4 + 4)];
    expect([at(0, 2), at(1, 2), at(2, 2), at(3, 2)]).toEqual([
      [255, 0, 0, 255],
      [0, 255, 0, 255],
      [255, 0, 0, 255],
      [0, 255, 0, 255],
    ]);
    expect([at(0, 1), at(1, 1), at(2, 1), at(3, 1)]).toEqual([
      [0, 0, 255, 255],
      [0, 0, 255, 255],
      [255, 0, 0, 255],
      [0, 0, 0, 0], // never written
    ]);
    expect([at(0, 0), at(1, 0), at(3, 0)]).toEqual([
      [0, 0, 0, 0], // skipped by the delta: transparent, as browsers show it
      [0, 0, 255, 255],
      [0, 0, 255, 255],
    ]);
  });

  it('uses the fourth byte of 32-bit BI_RGB as alpha unless it is zero everywhere', () => {
    const pixels = Buffer.from([10, 20, 30, 0, 40, 50, 60, 128]);
    const withAlpha = decode(craftBmp({ width: 2, height: 1, bits: 32, pixels }));
    expect([...withAlpha.data]).toEqual([30, 20, 10, 0, 60, 50, 40, 128]);
    const unused = Buffer.from([10, 20, 30, 0, 40, 50, 60, 0]);
    expect([...decode(craftBmp({ width: 2, height: 1, bits: 32, pixels: unused })).data]).toEqual([
      30, 20, 10, 255, 60, 50, 40, 255,
    ]);
  });
});

describe('damaged and lying files', () => {
  it('refuses a header claiming 50000x50000 before allocating anything', () => {
    const bomb = craftBmp({ width: 50_000, height: 50_000, bits: 24, pixels: Buffer.alloc(16) });
    const started = Date.now();
    expect(codeOf(() => decode(bomb, 100_000_000))).toBe('INPUT_LIMIT_EXCEEDED');
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('refuses pixel data shorter than the header says, uncompressed or RLE', () => {
    const whole = variant('rgb24');
    expect(codeOf(() => decode(whole.subarray(0, whole.length - 60)))).toBe('CORRUPT_INPUT');
    const rle = variant('rle8');
    expect(codeOf(() => decode(rle.subarray(0, rle.length - 200)))).toBe('CORRUPT_INPUT');
  });

  it.each([
    ['a cut header', (b: Buffer) => b.subarray(0, 30)],
    ['an unknown header size', edit((b) => b.writeUInt32LE(41, 14))],
    ['a zero width', edit((b) => b.writeInt32LE(0, 18))],
    ['a negative width', edit((b) => b.writeInt32LE(-15, 18))],
    ['depth 7', edit((b) => b.writeUInt16LE(7, 28))],
    ['RLE8 at 24 bits', edit((b) => b.writeUInt32LE(1, 30))],
    ['JPEG compression', edit((b) => b.writeUInt32LE(4, 30))],
    ['a pixel offset past the end', edit((b) => b.writeUInt32LE(1_000_000, 10))],
    ['a pixel offset inside the header', edit((b) => b.writeUInt32LE(20, 10))],
    ['no signature', edit((b) => b.write('XX', 0, 'latin1'))],
  ])('refuses %s with CORRUPT_INPUT', (_name, damage) => {
    expect(codeOf(() => decode(damage(Buffer.from(variant('rgb24')))))).toBe('CORRUPT_INPUT');
  });

  it('refuses a palette that runs past the end of the file', () => {
    const bytes = craftBmp({ width: 1, height: 1, bits: 8, palette: [[1, 2, 3]], pixels: Buffer.alloc(4) });
    bytes.writeUInt32LE(200, 46); // 200 colours claimed, one present
    expect(codeOf(() => decode(bytes.subarray(0, 62)))).toBe('CORRUPT_INPUT');
  });
});

describe('encoding', () => {
  it('writes 24-bit for opaque pixels and 32-bit with an alpha mask otherwise, both read back exactly', () => {
    const opaque = Buffer.from([1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255]);
    const bmp24 = encodeBmp(3, 1, opaque);
    expect(parseBmp(bmp24)).toMatchObject({ bitsPerPixel: 24, compression: 0, width: 3, height: 1 });
    expect(bmp24.length).toBe(54 + 12); // one row of 9 bytes padded to 12
    expect(decode(bmp24).data).toEqual(opaque);

    const clear = Buffer.from([1, 2, 3, 0, 4, 5, 6, 128, 7, 8, 9, 255, 10, 11, 12, 255]);
    const bmp32 = encodeBmp(2, 2, clear);
    expect(parseBmp(bmp32)).toMatchObject({
      bitsPerPixel: 32,
      compression: 3,
      masks: [0xff0000, 0xff00, 0xff, 0xff000000],
    });
    expect(decode(bmp32).data).toEqual(clear);
  });
});
