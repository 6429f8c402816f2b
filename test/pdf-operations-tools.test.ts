/**
 * fileconv/pdf's operations that run Ghostscript and qpdf: compress, PDF/A, protect and unlock.
 * Each result is read back by tools that did not write it: pdfimages (image sizes), pdfinfo and
 * pdftotext (pages, text, encryption as a viewer sees it), pdffonts (embedded fonts), qpdf
 * (--check, --json for the output intent and XMP, --show-encryption; the PDF/A checks are
 * helpers/pdf-checks.ts's). And what they refuse:
 * a truncated PDF, a PNG named .pdf, an encrypted input, a wrong password, a missing tool; every
 * failure leaves the work folder empty.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { compressPdf, convertToPdfA, protectPdf, unlockPdf } from '../src/operations/pdf/index.js';
import { describeWithEngine } from './helpers/engines.js';
import { expectPdfA } from './helpers/pdf-checks.js';
import { labelledPdf, photoPdf, truncatedCopy } from './helpers/pdf-samples.js';
import { CLI_ARGS } from './helpers/serve-process.js';
import { fixture, leftovers, tempDir } from './helpers/temp.js';

const has = (path: string) => existsSync(path);
const TOOLS = [
  '/usr/bin/qpdf',
  '/usr/bin/gs',
  '/usr/bin/pdfinfo',
  '/usr/bin/pdfimages',
  '/usr/bin/pdffonts',
].every(has);

function run(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8' });
}

/** Exit code of a command (qpdf reports through it). */
function status(command: string, args: string[]): number | null {
  return spawnSync(command, args, { encoding: 'utf8' }).status;
}

/** pdfimages -list rows: [page, width, height, encoding]. */
function images(path: string): { page: number; width: number; height: number; enc: string }[] {
  return run('pdfimages', ['-list', path])
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((line) => line.trim().split(/\s+/))
    .map((cells) => ({
      page: Number(cells[0]),
      width: Number(cells[3]),
      height: Number(cells[4]),
      enc: cells[8] ?? '',
    }));
}

const savedEnv = { ...process.env };
afterEach(() => {
  process.env = { ...savedEnv };
});

describeWithEngine(
  'qpdf, ghostscript, poppler-utils',
  TOOLS,
  'apt-get install qpdf ghostscript poppler-utils',
  'PDF operations on Ghostscript and qpdf',
  () => {
    it('compresses a photo PDF: images re-encoded at the quality, downsampled to the resolution, text kept', async () => {
      const dir = await tempDir();
      const input = await photoPdf(dir, 3);
      const out = join(dir, 'small.pdf');
      const result = await compressPdf(input, out, { quality: 50, resolution: 100 });
      const inputBytes = (await stat(input)).size;
      const outputBytes = (await stat(out)).size;
      expect(result).toEqual({
        pages: 3,
        inputBytes,
        outputBytes,
        savedBytes: inputBytes - outputBytes,
        keptOriginal: false,
      });
      expect(outputBytes).toBeLessThan(inputBytes / 3);
      // 842 pt = 11.69 in: at 100 dpi the 2000 px images become ~1169 px wide, still JPEG.
      const after = images(out);
      expect(after).toHaveLength(3);
      for (const image of after) {
        expect(image.width).toBeGreaterThan(1100);
        expect(image.width).toBeLessThan(1250);
        expect(image.enc).toBe('jpeg');
      }
      expect(run('pdftotext', [out, '-']).match(/photo\d/g)).toEqual(['photo1', 'photo2', 'photo3']);
      expect(status('qpdf', ['--check', out])).toBe(0);
    });

    it('keeps the original when recompressing would not make it smaller, and says so', async () => {
      const dir = await tempDir();
      const input = await labelledPdf(dir, 'k', 2);
      const out = join(dir, 'same.pdf');
      const result = await compressPdf(input, out, {});
      expect(result).toMatchObject({ pages: 2, keptOriginal: true, savedBytes: 0 });
      expect((await stat(out)).size).toBe((await stat(input)).size);
      expect(run('pdftotext', [out, '-']).match(/k\d/g)).toEqual(['k1', 'k2']);
    });

    it.each(['1b', '2b', '3b'] as const)(
      'writes PDF/A-%s: XMP claim, output intent, fonts embedded, not encrypted, qpdf --check',
      async (level) => {
        const dir = await tempDir();
        const input = await labelledPdf(dir, 'a', 2);
        const out = join(dir, `pdfa-${level}.pdf`);
        expect(await convertToPdfA(input, out, { level })).toEqual({ pages: 2, level });
        // Every font embedded among the rest: the input's Helvetica was not (a standard font);
        // Ghostscript embeds a substitute.
        expectPdfA(out, level);
        expect(run('pdfinfo', [out])).toMatch(/^Pages:\s+2$/m);
        expect(run('pdftotext', [out, '-']).match(/a\d/g)).toEqual(['a1', 'a2']);
      },
    );

    it('refuses transparency for PDF/A-1b (Ghostscript would drop it) and an unknown level', async () => {
      const dir = await tempDir();
      const { PDFDocument } = await import('pdf-lib');
      const doc = await PDFDocument.create();
      doc.addPage([200, 200]).drawText('faint', { x: 20, y: 100, size: 14, opacity: 0.4 });
      const input = join(dir, 'faint.pdf');
      const { writeFile } = await import('node:fs/promises');
      await writeFile(input, await doc.save());
      await expect(convertToPdfA(input, join(dir, 'a.pdf'), { level: '1b' })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringMatching(/transparency.*2b or 3b/),
      });
      await convertToPdfA(input, join(dir, 'a2.pdf'), { level: '2b' });
      expect(run('pdftotext', [join(dir, 'a2.pdf'), '-'])).toContain('faint');
      await expect(convertToPdfA(input, join(dir, 'a.pdf'), { level: '4u' as never })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
      });
    });

    it('protects with AES-256 and unlocks with the password; qpdf and pdfinfo agree', async () => {
      const dir = await tempDir();
      const input = await labelledPdf(dir, 'p', 2);
      const locked = join(dir, 'locked.pdf');
      expect(
        await protectPdf(input, locked, {
          password: '-s3cret pw',
          permissions: { print: 'none', copy: false },
        }),
      ).toEqual({ pages: 2, encryption: 'AES-256' });
      // --requires-password: exit 0 when a password is needed.
      expect(status('qpdf', ['--requires-password', locked])).toBe(0);
      const encryption = run('qpdf', ['--show-encryption', '--password=-s3cret pw', locked]);
      expect(encryption).toMatch(/R = 6/);
      expect(encryption).toMatch(/file encryption method: AESv3/);
      expect(encryption).toMatch(/print high resolution: not allowed/);
      expect(encryption).toMatch(/extract for any purpose: not allowed/);
      expect(run('pdfinfo', ['-upw', '-s3cret pw', locked])).toMatch(/^Encrypted:\s+yes .*AES-256/m);
      expect(status('pdfinfo', ['-upw', 'wrong', locked])).not.toBe(0);

      const unlocked = join(dir, 'unlocked.pdf');
      expect(await unlockPdf(locked, unlocked, { password: '-s3cret pw' })).toEqual({
        pages: 2,
        wasEncrypted: true,
      });
      expect(status('qpdf', ['--is-encrypted', unlocked])).toBe(2);
      expect(run('pdftotext', [unlocked, '-']).match(/p\d/g)).toEqual(['p1', 'p2']);
      // The committed fixture, encrypted by qpdf with 'secret'.
      const fixtureOut = join(dir, 'fixture.pdf');
      expect(await unlockPdf(fixture('bad/encrypted.pdf'), fixtureOut, { password: 'secret' })).toMatchObject(
        { pages: 1 },
      );
      expect(run('pdfinfo', [fixtureOut])).toMatch(/^Encrypted:\s+no$/m);
      expect(await unlockPdf(input, join(dir, 'plain.pdf'), { password: 'x' })).toEqual({
        pages: 2,
        wasEncrypted: false,
      });
    });

    it('refuses bad inputs with stable codes and leaves its work folder empty', async () => {
      const dir = await tempDir();
      const work = join(dir, 'work');
      await mkdir(work);
      const good = await labelledPdf(dir, 'g', 1);
      const truncated = await truncatedCopy(await photoPdf(dir, 1, 400), dir);
      const pngAsPdf = join(dir, 'image.pdf');
      await copyFile(fixture('fixture.png'), pngAsPdf);
      const encrypted = fixture('bad/encrypted.pdf');
      const out = join(dir, 'out.pdf');
      const options = { tempDir: work };
      const cases: [() => Promise<unknown>, string][] = [
        [() => compressPdf(truncated, out, options), 'CORRUPT_INPUT'],
        [() => compressPdf(pngAsPdf, out, options), 'CORRUPT_INPUT'],
        [() => compressPdf(encrypted, out, options), 'PASSWORD_PROTECTED'],
        [() => compressPdf(good, out, { ...options, quality: 101 }), 'INVALID_OPTIONS'],
        [() => convertToPdfA(truncated, out, options), 'CORRUPT_INPUT'],
        [() => convertToPdfA(encrypted, out, options), 'PASSWORD_PROTECTED'],
        [() => protectPdf(pngAsPdf, out, { ...options, password: 'x' }), 'CORRUPT_INPUT'],
        [() => protectPdf(encrypted, out, { ...options, password: 'x' }), 'PASSWORD_PROTECTED'],
        [() => unlockPdf(encrypted, out, { ...options, password: 'wrong' }), 'PASSWORD_PROTECTED'],
        [() => unlockPdf(truncated, out, { ...options, password: 'x' }), 'CORRUPT_INPUT'],
        [() => unlockPdf(pngAsPdf, out, { ...options, password: 'x' }), 'CORRUPT_INPUT'],
        [() => compressPdf(good, join(dir, 'no/such/dir/out.pdf'), options), 'OUTPUT_NOT_WRITABLE'],
      ];
      for (const [attempt, code] of cases) await expect(attempt()).rejects.toMatchObject({ code });
      await expect(unlockPdf(encrypted, out, { ...options, password: 'wrong' })).rejects.toMatchObject({
        details: { reason: 'wrong-password' },
      });
      expect(existsSync(out)).toBe(false);
      expect(await leftovers(work)).toEqual([]);
    });

    it('stops Ghostscript on abort (CANCELED) and names the install line when a tool is missing', async () => {
      const dir = await tempDir();
      const work = join(dir, 'work');
      await mkdir(work);
      const input = await photoPdf(dir, 2);
      const out = join(dir, 'out.pdf');
      const controller = new AbortController();
      const running = compressPdf(input, out, { tempDir: work, signal: controller.signal });
      setImmediate(() => controller.abort());
      await expect(running).rejects.toMatchObject({ code: 'CANCELED' });
      process.env.GHOSTSCRIPT_PATH = join(dir, 'no-gs');
      await expect(compressPdf(input, out, { tempDir: work })).rejects.toMatchObject({
        code: 'ENGINE_UNAVAILABLE',
        details: { install: expect.stringMatching(/apt-get install ghostscript/) },
      });
      process.env.QPDF_PATH = join(dir, 'no-qpdf');
      await expect(protectPdf(input, out, { tempDir: work, password: 'x' })).rejects.toMatchObject({
        code: 'ENGINE_UNAVAILABLE',
        details: { install: expect.stringMatching(/apt-get install qpdf/) },
      });
      expect(existsSync(out)).toBe(false);
      expect(await leftovers(work)).toEqual([]);
    });

    // Each command is a process of its own that loads TypeScript: minutes on a loaded machine.
    it('runs from the command line', async () => {
      const dir = await tempDir();
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [...CLI_ARGS, 'pdf', ...args], { encoding: 'utf8' });
      const photos = await photoPdf(dir, 1);
      const small = join(dir, 'small.pdf');
      const compressed = cli('compress', photos, '-o', small, '--quality', '60', '--resolution', '150');
      expect(compressed.status, compressed.stderr).toBe(0);
      expect(compressed.stdout).toMatch(/pdf compress: wrote .*small\.pdf \(1 page\(s\); .* saved \d+%\)/);
      const archived = join(dir, 'archived.pdf');
      const pdfa = cli('pdfa', small, '--level', '2b', '-o', archived);
      expect(pdfa.status, pdfa.stderr).toBe(0);
      expect(pdfa.stdout).toContain('PDF/A-2b');
      const locked = join(dir, 'locked.pdf');
      expect(cli('protect', archived, '--password', 's3cret', '-o', locked).status).toBe(0);
      expect(status('qpdf', ['--requires-password', locked])).toBe(0);
      const wrong = cli('unlock', locked, '--password', 'nope', '-o', join(dir, 'x.pdf'));
      expect(wrong.status).toBe(1);
      expect(wrong.stderr).toMatch(/password does not open.*\[PASSWORD_PROTECTED\]/);
      const open = join(dir, 'open.pdf');
      expect(cli('unlock', locked, '--password', 's3cret', '-o', open).status).toBe(0);
      expect(run('pdfinfo', [open])).toMatch(/^Encrypted:\s+no$/m);
    }, 240_000);
  },
);
