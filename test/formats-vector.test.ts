/** Detection of the print and vector formats from constructed bytes (the fixtures are in formats.test.ts). */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { detectFormat, isContentCompatible } from '../src/core/formats/index.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('PostScript and EPS', () => {
  it('tells EPS from PostScript by the first line', async () => {
    expect(await detectFormat(bytes('%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n'))).toBe('eps');
    expect(await detectFormat(bytes('%!PS-Adobe-2.0 EPSF-2.0\n'))).toBe('eps');
    expect(await detectFormat(bytes('%!PS-Adobe-3.0\n%%Pages: 2\n'))).toBe('ps');
    expect(await detectFormat(bytes('%!\n/Times-Roman findfont\n'))).toBe('ps');
  });

  it('reads the DOS EPS binary header (C5 D0 D3 C6) as EPS', async () => {
    const head = new Uint8Array(64);
    head.set([0xc5, 0xd0, 0xd3, 0xc6]);
    head.set(bytes('%!PS-Adobe-3.0 EPSF-3.0'), 30);
    expect(await detectFormat(head)).toBe('eps');
  });

  it('accepts PostScript declared as EPS and the other way round, nothing else', () => {
    expect(isContentCompatible('eps', 'ps')).toBe(true);
    expect(isContentCompatible('ps', 'eps')).toBe(true);
    expect(isContentCompatible('eps', 'png')).toBe(false);
    expect(isContentCompatible('ps', 'pdf')).toBe(false);
  });
});

describe('svgz', () => {
  const svg = (prolog: string) =>
    `${prolog}<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${'<rect width="1" height="1"/>'.repeat(5000)}</svg>`;

  it('is a gzip stream whose document is SVG, even when the head cuts the stream short', async () => {
    const packed = gzipSync(svg('<?xml version="1.0"?>\n<!-- a comment -->\n'));
    expect(packed.length).toBeGreaterThan(300);
    expect(await detectFormat(packed)).toBe('svgz');
    expect(await detectFormat(packed.subarray(0, 100))).toBe('svgz');
  });

  it('is not any gzip: packed text or HTML is not svgz', async () => {
    expect(await detectFormat(gzipSync('just text\n'))).not.toBe('svgz');
    expect(await detectFormat(gzipSync('<!DOCTYPE html><html><body>x</body></html>'))).not.toBe('svgz');
    expect(isContentCompatible('svgz', undefined)).toBe(false);
  });

  it('inflates only the first kilobyte of a gzip bomb (about a megabyte), and it is not svgz', async () => {
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024, 0x20), { level: 1 });
    expect(await detectFormat(bomb.subarray(0, 64 * 1024))).not.toBe('svgz');
  });
});
