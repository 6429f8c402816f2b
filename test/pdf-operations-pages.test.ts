/**
 * fileconv/pdf's page operations on pdf-lib and pdf.js: split into a zip of one PDF a page,
 * watermark (text and image), thumbnail. Results are read back with poppler (pdfinfo, pdftotext,
 * pdfimages), unzip listing through yauzl, and ImageMagick's identify; and what they refuse:
 * a truncated PDF, a PNG named .pdf, an encrypted PDF, a page past the last, a pixel-bomb
 * watermark image.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { pdfThumbnail, splitEveryPage, watermarkPdf } from '../src/operations/pdf/index.js';
import { describeWithEngine } from './helpers/engines.js';
import { labelledPdf, truncatedCopy } from './helpers/pdf-samples.js';
import { CLI_ARGS } from './helpers/serve-process.js';
import { fixture, leftovers, tempDir } from './helpers/temp.js';

const TOOLS = [
  '/usr/bin/pdfinfo',
  '/usr/bin/pdftotext',
  '/usr/bin/pdfimages',
  '/usr/bin/identify',
  '/usr/bin/unzip',
].every((path) => existsSync(path));

function run(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8' });
}

/** The text pdftotext reads on page `page`. */
function pageText(path: string, page: number): string {
  return run('pdftotext', ['-f', String(page), '-l', String(page), path, '-']);
}

/**
 * A pixel bomb: a PNG whose header claims 30000 x 30000 pixels (2.7 GB decoded) in a few hundred
 * bytes, its rows left out. Only the header is needed to refuse it, so only the header is honest.
 */
async function pixelBomb(dir: string): Promise<string> {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(30_000, 0);
  header.writeUInt32BE(30_000, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(1000))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  const path = join(dir, 'bomb.png');
  await writeFile(path, png);
  return path;
}

describeWithEngine(
  'poppler-utils, imagemagick, unzip',
  TOOLS,
  'apt-get install poppler-utils imagemagick unzip',
  'PDF page operations',
  () => {
    it('splits every page into its own PDF inside a zip', async () => {
      const dir = await tempDir();
      const input = await labelledPdf(dir, 's', 3);
      const zip = join(dir, 'pages.zip');
      expect(await splitEveryPage(input, zip)).toEqual({
        pages: 3,
        files: ['page-001.pdf', 'page-002.pdf', 'page-003.pdf'],
      });
      const unpacked = join(dir, 'unpacked');
      run('unzip', ['-q', zip, '-d', unpacked]);
      for (const page of [1, 2, 3]) {
        const file = join(unpacked, `page-00${page}.pdf`);
        expect(run('pdfinfo', [file])).toMatch(/^Pages:\s+1$/m);
        expect(pageText(file, 1).trim()).toBe(`s${page}`);
      }
      const some = join(dir, 'some.zip');
      expect(await splitEveryPage(input, some, { pages: '2-' })).toMatchObject({ pages: 2 });
      expect(run('unzip', ['-Z1', some]).split('\n').filter(Boolean)).toEqual([
        'page-002.pdf',
        'page-003.pdf',
      ]);
    });

    it('stamps text on every page, readable by pdftotext, diagonal or placed', async () => {
      const dir = await tempDir();
      const input = await labelledPdf(dir, 'w', 3);
      const placed = join(dir, 'placed.pdf');
      expect(
        await watermarkPdf(input, placed, { text: 'CONFIDENTIAL', position: 'top', fontSize: 20 }),
      ).toEqual({
        pages: 3,
        stamped: 3,
      });
      for (const page of [1, 2, 3]) expect(pageText(placed, page)).toContain('CONFIDENTIAL');
      const diagonal = join(dir, 'diagonal.pdf');
      await watermarkPdf(input, diagonal, { text: 'DRAFT', opacity: 0.3, pages: '2' });
      // pdftotext breaks rotated text into pieces, in its own order; the letters are the stamp's.
      expect([...pageText(diagonal, 2).replace(/\s|w\d/g, '')].sort().join('')).toBe('ADFRT');
      expect(pageText(diagonal, 1)).not.toMatch(/D\s*R/);
      expect(pageText(diagonal, 2)).toContain('w2');
    });

    it('stamps Cyrillic and Greek in DejaVu Sans, embedded (pdffonts), readable by pdftotext', async () => {
      const dir = await tempDir();
      const input = await labelledPdf(dir, 'u', 2);
      const out = join(dir, 'cyrillic.pdf');
      await watermarkPdf(input, out, { text: 'ЧЕРНОВИК Δ €', position: 'bottom', fontSize: 18 });
      for (const page of [1, 2]) expect(pageText(out, page)).toContain('ЧЕРНОВИК Δ €');
      const fonts = run('pdffonts', [out]);
      // Embedded ("yes" in the emb column) as a CID font, so any of its glyphs can be drawn.
      expect(fonts).toMatch(/DejaVuSans-Bold\S*\s+CID TrueType\s+Identity-H\s+yes/);
      // Latin-1 text stays in Helvetica, embedded nowhere.
      const latin = join(dir, 'latin.pdf');
      await watermarkPdf(input, latin, { text: 'Brouillon déjà', position: 'bottom' });
      expect(run('pdffonts', [latin])).not.toMatch(/DejaVu/);
    });

    it('stamps an image, which pdfimages then counts on each stamped page', async () => {
      const dir = await tempDir();
      const input = await labelledPdf(dir, 'i', 2);
      const stamp = join(dir, 'stamp.jpg');
      await sharp({ create: { width: 120, height: 60, channels: 3, background: '#cc0000' } })
        .jpeg()
        .toFile(stamp);
      const out = join(dir, 'stamped.pdf');
      expect(
        await watermarkPdf(input, out, { image: stamp, opacity: 0.5, position: 'bottom-right' }),
      ).toEqual({
        pages: 2,
        stamped: 2,
      });
      const rows = run('pdfimages', ['-list', out]).split('\n').slice(2).filter(Boolean);
      expect(rows.map((row) => row.trim().split(/\s+/).slice(0, 5))).toEqual([
        ['1', '0', 'image', '120', '60'],
        ['2', '1', 'image', '120', '60'],
      ]);
    });

    it('renders a thumbnail of the first page at the width asked, PNG or WebP', async () => {
      const dir = await tempDir();
      const input = await labelledPdf(dir, 't', 2);
      const png = join(dir, 'thumb.png');
      expect(await pdfThumbnail(input, png, { width: 150 })).toEqual({
        pages: 2,
        width: 150,
        height: 100,
        format: 'png',
      });
      expect(run('identify', ['-format', '%m %w %h', png])).toBe('PNG 150 100');
      const webp = join(dir, 'thumb.webp');
      await pdfThumbnail(fixture('fixture.pdf'), webp, { width: 200, format: 'webp' });
      // A4 portrait: 200 wide, 283 high.
      expect(run('identify', ['-format', '%m %w %h', webp])).toBe('WEBP 200 283');
    });

    it('refuses bad inputs with stable codes, writing nothing and leaving no work files', async () => {
      const dir = await tempDir();
      const work = join(dir, 'work');
      await mkdir(work);
      const good = await labelledPdf(dir, 'g', 2);
      const truncated = await truncatedCopy(await labelledPdf(dir, 'long', 40), dir);
      const pngAsPdf = join(dir, 'image.pdf');
      await copyFile(fixture('fixture.png'), pngAsPdf);
      const encrypted = fixture('bad/encrypted.pdf');
      const bomb = await pixelBomb(dir);
      const out = join(dir, 'out.pdf');
      const cases: [() => Promise<unknown>, string, RegExp?][] = [
        [() => splitEveryPage(truncated, join(dir, 'x.zip')), 'CORRUPT_INPUT'],
        [() => splitEveryPage(pngAsPdf, join(dir, 'x.zip')), 'CORRUPT_INPUT'],
        [() => splitEveryPage(encrypted, join(dir, 'x.zip')), 'PASSWORD_PROTECTED'],
        [
          () => splitEveryPage(good, join(dir, 'x.zip'), { pages: '3' }),
          'INVALID_OPTIONS',
          /page 3 does not exist/,
        ],
        [() => watermarkPdf(truncated, out, { text: 'X' }), 'CORRUPT_INPUT'],
        [() => watermarkPdf(encrypted, out, { text: 'X' }), 'PASSWORD_PROTECTED'],
        [
          () => watermarkPdf(good, out, { text: 'X', pages: '2-5' }),
          'INVALID_OPTIONS',
          /page 5 does not exist/,
        ],
        [
          () => watermarkPdf(good, out, { image: bomb }),
          'INPUT_LIMIT_EXCEEDED',
          /30000x30000 pixels; the limit/,
        ],
        [() => watermarkPdf(good, out, { image: pngAsPdf.replace('image.pdf', 'missing.png') }), 'NOT_FOUND'],
        [() => watermarkPdf(good, out, { image: good }), 'CORRUPT_INPUT'],
        [() => watermarkPdf(good, out, { text: '草稿' }), 'INVALID_OPTIONS', /"草" is in none of the fonts/],
        [() => watermarkPdf(good, out, { text: 'טיוטה' }), 'INVALID_OPTIONS', /right to left/],
        [() => watermarkPdf(good, out, {} as never), 'INVALID_OPTIONS'],
        [() => pdfThumbnail(truncated, out, { tempDir: work }), 'CORRUPT_INPUT'],
        [() => pdfThumbnail(pngAsPdf, out, { tempDir: work }), 'CORRUPT_INPUT'],
        [() => pdfThumbnail(encrypted, out, { tempDir: work }), 'PASSWORD_PROTECTED'],
        [() => pdfThumbnail(good, out, { tempDir: work, width: 0 }), 'INVALID_OPTIONS'],
      ];
      for (const [attempt, code, message] of cases) {
        await expect(attempt()).rejects.toMatchObject({
          code,
          ...(message ? { message: expect.stringMatching(message) } : {}),
        });
      }
      expect(existsSync(out)).toBe(false);
      expect(existsSync(join(dir, 'x.zip'))).toBe(false);
      expect((await leftovers(dir)).filter((name) => name.startsWith('.fileconv-'))).toEqual([]);
      expect(await leftovers(work)).toEqual([]);
    });

    // Each command is a process of its own that loads TypeScript: minutes on a loaded machine.
    it('runs from the command line', async () => {
      const dir = await tempDir();
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [...CLI_ARGS, 'pdf', ...args], { encoding: 'utf8' });
      const input = await labelledPdf(dir, 'c', 2);
      const zip = join(dir, 'pages.zip');
      const split = cli('split', input, '--every-page', '-o', zip);
      expect(split.status, split.stderr).toBe(0);
      expect(run('unzip', ['-Z1', zip]).split('\n').filter(Boolean)).toEqual([
        'page-001.pdf',
        'page-002.pdf',
      ]);
      const stamped = join(dir, 'stamped.pdf');
      const watermark = cli(
        'watermark',
        input,
        '--text',
        'DRAFT',
        '--opacity',
        '0.3',
        '--position',
        'center',
        '-o',
        stamped,
      );
      expect(watermark.status, watermark.stderr).toBe(0);
      expect(pageText(stamped, 2)).toContain('DRAFT');
      const stamp = join(dir, 'stamp.png');
      await writeFile(
        stamp,
        await sharp({ create: { width: 40, height: 40, channels: 4, background: '#0000ff80' } })
          .png()
          .toBuffer(),
      );
      expect(cli('watermark', input, '--image', stamp, '-o', join(dir, 'img.pdf')).status).toBe(0);
      const thumb = join(dir, 'thumb.png');
      const thumbnail = cli('thumbnail', input, '--width', '200', '-o', thumb);
      expect(thumbnail.status, thumbnail.stderr).toBe(0);
      expect(run('identify', ['-format', '%m %w', thumb])).toBe('PNG 200');
      const bad = cli('watermark', input, '--opacity', '2', '--text', 'X', '-o', join(dir, 'bad.pdf'));
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/opacity.*\[INVALID_OPTIONS\]/s);
    }, 240_000);
  },
);
