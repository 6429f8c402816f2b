/**
 * Byte-level detection of the raster formats file-type does not know (src/formats/detect-raster.ts):
 * the header checks that stand in for a magic number must take real headers and refuse near misses.
 */
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../src/core/formats/index.js';

const bytes = (...values: number[]) => Uint8Array.from(values);
const text = (value: string) => new TextEncoder().encode(value);

/** An 18-byte TGA header (no ID, no colour map) for `type` and `depth`, then some pixel bytes. */
function tga(type: number, depth: number, descriptor = 0x20, mapType = 0): Uint8Array {
  const head = new Uint8Array(64);
  head.set([0, mapType, type, 0, 0, 0, 0, 0, 0, 0, 0, 0, 70, 0, 46, 0, depth, descriptor]);
  head.fill(0x7f, 18);
  return head;
}

describe('raster formats without a magic number', () => {
  it('takes TGA headers of each image type, including the one file-type calls cur', async () => {
    expect(await detectFormat(tga(2, 24))).toBe('tga'); // 00 00 02 00: file-type says 'cur'
    expect(await detectFormat(tga(10, 32, 0x28))).toBe('tga');
    expect(await detectFormat(tga(3, 8))).toBe('tga');
  });

  it('refuses near-miss TGA headers', async () => {
    expect(await detectFormat(tga(2, 23))).toBeUndefined(); // no such depth
    expect(await detectFormat(tga(2, 24, 0xc0))).toBeUndefined(); // reserved descriptor bits
    expect(await detectFormat(tga(2, 24, 0x20, 1))).toBeUndefined(); // a colour map on true colour
    expect(await detectFormat(tga(4, 24))).toBeUndefined(); // no image type 4
  });

  it('still reads a real cursor file as no TGA', async () => {
    // CUR: reserved 0, type 2, one entry of 32x32 with its hotspot, size and offset.
    const cursor = bytes(0, 0, 2, 0, 1, 0, 32, 32, 0, 0, 1, 0, 1, 0, 0x30, 1, 0, 0, 22, 0, 0, 0);
    expect(await detectFormat(cursor)).not.toBe('tga');
  });

  it('takes netpbm headers, binary and plain, with comments', async () => {
    expect(await detectFormat(text('P6\n# made by hand\n70 46\n255\n\x01\x02\x03'))).toBe('ppm');
    expect(await detectFormat(text('P2 3 2 255\n0 128 255\n255 128 0\n'))).toBe('pgm');
    expect(await detectFormat(text('P1\n2 2\n0 1\n1 0\n'))).toBe('pbm');
  });

  it('leaves text that only starts like netpbm to the text sniff', async () => {
    expect(await detectFormat(text('P1 2 3 is the plan for the week\n'))).toBe('txt');
    expect(await detectFormat(text('P3 was the third prototype.\n'))).toBe('txt');
  });

  it('takes Radiance, QOI, OpenEXR, DDS and PCX by their leading bytes', async () => {
    expect(await detectFormat(text('#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 2\n'))).toBe('hdr');
    const qoi = new Uint8Array(22);
    qoi.set([...text('qoif'), 0, 0, 0, 2, 0, 0, 0, 2, 4, 0]);
    expect(await detectFormat(qoi)).toBe('qoi');
    expect(await detectFormat(bytes(0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0))).toBe('exr');
    const dds = new Uint8Array(128);
    dds.set([...text('DDS '), 124, 0, 0, 0]);
    expect(await detectFormat(dds)).toBe('dds');
    const pcx = new Uint8Array(128);
    pcx.set([0x0a, 5, 1, 8, 0, 0, 0, 0, 69, 0, 45, 0]);
    pcx[65] = 3;
    expect(await detectFormat(pcx)).toBe('pcx');
    pcx[2] = 0; // no RLE: not a PCX any reader takes
    expect(await detectFormat(pcx)).toBeUndefined();
  });
});
