/**
 * Issue 19, "Done when": a batch converted in one go on the web page, in a real browser against
 * a real service with real engines (sharp, LibreOffice, ffmpeg). Three images to JPEG at quality
 * 60 and width 800 (set in each file's options group), a Word document to PDF and a WAV to MP3,
 * then "Download all as zip"; every zip entry is checked on its own by another tool (ImageMagick's
 * identify, pdfinfo, ffprobe). A PNG that is really text, dropped on the page, fails alone, its
 * reason in its own list item, while the others complete. The same batch again by keyboard alone.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFfmpegConverter } from '../../src/converters/ffmpeg/index.js';
import { createLibreOfficeConverter } from '../../src/converters/libreoffice/index.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import { readZip } from '../helpers/zip.js';
import { FIXTURES, HTTP_ADAPTER, startServer, type TestServer } from '../http/harness.js';
import {
  chooserByKeyboard,
  chromiumAvailable,
  commandsAvailable,
  convertAllButton,
  copyAs,
  download,
  downloadAllButton,
  downloadLink,
  dropFiles,
  fileItem,
  fileList,
  launchChromium,
  type OpenedPage,
  openPage,
  optionField,
  optionsButton,
  selectByArrows,
  setOptions,
  settledState,
  showsFocus,
  tabTo,
  targetSelect,
  unexpectedProblems,
  visibleText,
} from './web-page.js';

const ENGINES = ['soffice', 'ffmpeg', 'ffprobe', 'identify', 'pdfinfo', '7zz'];
const available = chromiumAvailable() && commandsAvailable(...ENGINES);

/** [fixture, the name it is chosen under]: distinct names give distinct output names. */
const IMAGES = [
  ['fixture.png', 'photo-png.png'],
  ['fixture.jpg', 'photo-jpg.jpg'],
  ['fixture.webp', 'photo-webp.webp'],
] as const;
const IMAGE_OPTIONS = { Quality: 60, Width: 800 };
const EXPECTED_OUTPUTS = ['fixture.mp3', 'fixture.pdf', 'photo-jpg.jpg', 'photo-png.jpg', 'photo-webp.jpg'];

interface Batch {
  /** Every file to choose, in order. */
  paths: string[];
  /** File name -> target format. */
  targets: Map<string, string>;
}

async function batchFiles(dir: string): Promise<Batch> {
  const paths: string[] = [];
  const targets = new Map<string, string>();
  for (const [fixture, name] of IMAGES) {
    paths.push(await copyAs(join(FIXTURES, fixture), dir, name));
    targets.set(name, 'jpg');
  }
  paths.push(join(FIXTURES, 'fixture.docx'), join(FIXTURES, 'fixture.wav'));
  targets.set('fixture.docx', 'pdf');
  targets.set('fixture.wav', 'mp3');
  return { paths, targets };
}

/**
 * Every entry of the zip checked by a tool that did not make it: the images are JPEGs 800 px
 * wide at quality ~60, the PDF has pages, the MP3 is MPEG audio.
 */
async function checkZip(zipPath: string, dir: string): Promise<void> {
  // 7-Zip tests the archive first: every entry's CRC-32 and sizes as the browser wrote them.
  expect(execFileSync('7zz', ['t', zipPath], { encoding: 'utf8' })).toMatch(/Everything is Ok/);
  const entries = await readZip(zipPath);
  expect([...entries.keys()].sort()).toEqual(EXPECTED_OUTPUTS);
  for (const [name, bytes] of entries) {
    const path = join(dir, `entry-${name}`);
    await writeFile(path, bytes);
    if (name.endsWith('.jpg')) {
      const [format, width, quality] = execFileSync('identify', ['-format', '%m %w %Q', `${path}[0]`], {
        encoding: 'utf8',
      }).split(' ');
      expect({ name, format, width: Number(width) }).toEqual({ name, format: 'JPEG', width: 800 });
      expect(Math.abs(Number(quality) - 60), `${name}: quality ${quality}`).toBeLessThanOrEqual(2);
    } else if (name.endsWith('.pdf')) {
      const info = execFileSync('pdfinfo', [path], { encoding: 'utf8' });
      expect(Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]), info).toBeGreaterThanOrEqual(1);
    } else {
      const probe = JSON.parse(
        execFileSync(
          'ffprobe',
          [
            '-v',
            'error',
            '-show_entries',
            'format=format_name:stream=codec_type,codec_name',
            '-of',
            'json',
            path,
          ],
          { encoding: 'utf8' },
        ),
      ) as { format: { format_name: string }; streams: Array<{ codec_type: string; codec_name: string }> };
      expect(probe.format.format_name).toBe('mp3');
      expect(probe.streams.map((stream) => [stream.codec_type, stream.codec_name])).toEqual([
        ['audio', 'mp3'],
      ]);
    }
  }
}

// The page's flows through one HTTP adapter (the `all` project's Express): the page and its API
// calls are the same through every adapter, which web-converter.test.ts covers; these heavy runs
// (LibreOffice, ffmpeg, axe) once keep CI's time down.
describe.runIf(HTTP_ADAPTER === 'express')('through one adapter', () => {
  describeWithEngine(
    `chromium and ${ENGINES.join(', ')}`,
    available,
    'apt-get install chromium libreoffice ffmpeg imagemagick poppler-utils 7zip',
    'web page: a batch in one go',
    () => {
      let browser: Browser;
      let server: TestServer;
      let opened: OpenedPage | undefined;

      beforeAll(async () => {
        [browser, server] = await Promise.all([
          launchChromium(),
          startServer({
            perFile: true,
            router: { webConverter: true },
            engine: {
              converters: [
                createSharpConverter(),
                createFfmpegConverter(),
                createLibreOfficeConverter({ poolSize: 1 }),
              ],
            },
          }),
        ]);
      });
      afterAll(async () => {
        await opened?.context.close();
        await browser?.close();
        await server?.stop();
        expect(server?.serverErrors ?? [], 'errors the router reported as 5xx').toEqual([]);
      });

      async function open(): Promise<Page> {
        await opened?.context.close();
        opened = await openPage(browser, server.url);
        return opened.page;
      }

      it('converts images, a document and a sound at once; a fake PNG fails alone with its reason', async () => {
        const page = await open();
        const dir = await tempDir();
        const { paths, targets } = await batchFiles(dir);
        await page.getByLabel('Choose files', { exact: true }).setInputFiles(paths);
        // The fake PNG is dropped on the page (anywhere: here its heading) and joins the list.
        await dropFiles(page.getByRole('heading', { level: 1 }), [
          { name: 'broken.png', type: 'image/png', text: 'This is text, not a picture.\n' },
        ]);
        await fileItem(page, 'broken.png').waitFor();
        expect(await fileList(page).getByRole('listitem').count()).toBe(paths.length + 1);
        // Nothing to download yet.
        expect(await downloadAllButton(page).isDisabled()).toBe(true);

        for (const [name, target] of targets) await targetSelect(page, name).selectOption(target);
        await targetSelect(page, 'broken.png').selectOption('webp');
        // "Use jpg for all png files" from the good PNG's item sets the fake PNG too.
        await fileItem(page, 'photo-png.png')
          .getByRole('button', { name: /^Use .+ for all .+ files$/ })
          .click();
        expect(await targetSelect(page, 'broken.png').inputValue()).toBe('jpg');
        for (const [, name] of IMAGES) await setOptions(page, name, IMAGE_OPTIONS);
        await convertAllButton(page).click();

        const states = new Map<string, string>();
        for (const name of [...targets.keys(), 'broken.png'])
          states.set(name, await settledState(page, name));
        expect(Object.fromEntries(states)).toEqual({
          ...Object.fromEntries([...targets.keys()].map((name) => [name, 'done'])),
          'broken.png': 'failed',
        });
        // Its reason, in its own item: a message and the error's code; no download link.
        const reason = await visibleText(fileItem(page, 'broken.png'));
        expect(reason).toMatch(/Failed: \S.*/);
        expect(reason).toMatch(/\b[A-Z][A-Z_]{3,}\b/);
        expect(await fileItem(page, 'broken.png').getByRole('link').count()).toBe(0);
        for (const output of EXPECTED_OUTPUTS) await downloadLink(page, output).waitFor();
        // The live region sums it up: five converted, one failed.
        await expect.poll(() => visibleText(page.getByRole('status'))).toMatch(/\b5\b.*\b1\b/s);

        // One result downloaded on its own, then all of them as a zip.
        const single = await download(page, () => downloadLink(page, 'photo-png.jpg').click());
        expect(single.name).toBe('photo-png.jpg');
        expect(execFileSync('identify', ['-format', '%m %w', single.path], { encoding: 'utf8' })).toBe(
          'JPEG 800',
        );
        const zip = await download(page, () => downloadAllButton(page).click());
        expect(zip.name).toMatch(/\.zip$/);
        await checkZip(zip.path, dir);
        // The refusal of the fake PNG may be logged by the browser as a 4xx; nothing else.
        expect(unexpectedProblems(opened!.problems, 400, 415, 422)).toEqual([]);
      }, 180_000);

      it('does the same by keyboard alone: Tab, Shift+Tab, Enter, Space and arrow keys, no clicks', async () => {
        const page = await open();
        const dir = await tempDir();
        const { paths, targets } = await batchFiles(dir);
        const chooseFiles = page.getByLabel('Choose files', { exact: true });
        await tabTo(page, chooseFiles);
        const chooser = await chooserByKeyboard(page);
        await chooser.setFiles(paths);

        for (const [name, target] of targets) {
          const select = targetSelect(page, name);
          await tabTo(page, select);
          await selectByArrows(page, select, target);
          if (target !== 'jpg') continue;
          await tabTo(page, optionsButton(page, name));
          await page.keyboard.press('Enter');
          expect(await optionsButton(page, name).getAttribute('aria-expanded')).toBe('true');
          for (const [property, value] of Object.entries(IMAGE_OPTIONS)) {
            const field = optionField(page, name, property);
            await tabTo(page, field);
            await page.keyboard.press('Control+A');
            await page.keyboard.type(String(value));
          }
        }
        // Back to the document's select with Shift+Tab: its target is still set.
        await tabTo(page, targetSelect(page, 'fixture.docx'), { back: true });
        expect(await targetSelect(page, 'fixture.docx').inputValue()).toBe('pdf');

        await tabTo(page, convertAllButton(page), { max: 120 });
        expect(await showsFocus(convertAllButton(page)), 'a visible focus on "Convert all"').toBe(true);
        await page.keyboard.press('Space');
        for (const name of targets.keys()) expect(await settledState(page, name), name).toBe('done');
        const zipButton = downloadAllButton(page);
        await tabTo(page, zipButton, { max: 120 });
        const zip = await download(page, () => page.keyboard.press('Enter'));
        await checkZip(zip.path, dir);
        expect(opened!.problems).toEqual([]);
      }, 180_000);
    },
  );
});
