/**
 * The web converter in a real browser (Debian's chromium, driven by playwright-core) against a
 * real server, through the page's roles and accessible names (notes: web-contract): pick a PNG,
 * convert it to WebP through Flow A, download the result and decode it, and the zip of all
 * results; the same by keyboard only; a file no converter reads is refused on the page without a
 * request while the others convert; an API refusal is shown in words with its code; a rate
 * limit says when it resets; PDFs merged in an order set with the Move buttons. A screenshot of
 * a finished conversion is kept for review.
 */

import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Browser, BrowserContext, FileChooser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { pdfOperations } from '../../src/operations/pdf/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import { readZip } from '../helpers/zip.js';
import { call, FIXTURES, movableClock, startServer, type TestServer } from '../http/harness.js';
import { CHROMIUM_INSTALL, chromiumAvailable, launchChromium } from './web-page.js';

const SCREENSHOT = join(import.meta.dirname, '..', '..', 'test-results', 'web-converter.png');
const PNG = join(FIXTURES, 'fixture.png');

/**
 * Space on the focused file input opens the file chooser. On a loaded machine headless Chromium
 * has been seen to drop the first press (no chooser in 30 s, once in a full CI run), so the
 * press is tried up to three times; a page that never opens it still fails.
 */
async function chooserByKeyboard(page: Page): Promise<FileChooser> {
  for (let attempt = 1; ; attempt++) {
    try {
      const [chooser] = await Promise.all([
        page.waitForEvent('filechooser', { timeout: 10_000 }),
        page.keyboard.press('Space'),
      ]);
      return chooser;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

describeWithEngine('chromium', chromiumAvailable(), CHROMIUM_INSTALL, 'web converter page', () => {
  let browser: Browser;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A fresh browser context on the page of a fresh server, with the page's errors collected. */
  async function open(server: TestServer): Promise<{ page: Page; problems: string[] }> {
    context = await browser.newContext({ acceptDownloads: true, viewport: { width: 900, height: 720 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    await page.goto(`${server.url}/`);
    // The formats are loaded once the page says how many it can convert.
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/formats can be converted here/);
    return { page, problems };
  }

  /** The accessible name of the focused element (a string expression: the tests compile without DOM types). */
  const focusedName = (page: Page) =>
    page.evaluate<string>(
      '(() => { const e = document.activeElement; if (!e) return ""; const l = e.labels?.[0]; return (e.getAttribute("aria-label") ?? l?.textContent ?? e.textContent ?? "").trim(); })()',
    );

  /** Downloads through `activate` and returns the bytes. */
  async function download(
    page: Page,
    activate: () => Promise<void>,
  ): Promise<{ name: string; bytes: Buffer }> {
    const [file] = await Promise.all([page.waitForEvent('download'), activate()]);
    return { name: file.suggestedFilename(), bytes: await readFile(await file.path()) };
  }

  const item = (page: Page, name: string) =>
    page.getByRole('list', { name: 'Files' }).getByRole('listitem').filter({ hasText: name });

  it('converts a PNG to WebP: choose, pick the target, convert all, download it and the zip', async () => {
    const server = await startServer({ router: { webConverter: true } });
    const { page, problems } = await open(server);
    await page.getByLabel('Choose files', { exact: true }).setInputFiles(PNG);
    const row = item(page, 'fixture.png');
    await expect.poll(() => row.textContent()).toMatch(/PNG image/);
    await page.getByLabel('Convert fixture.png to').selectOption('webp');
    // Lossy targets are marked as such.
    expect(await row.textContent()).toMatch(/lossy/);
    await page.getByRole('button', { name: 'Convert all' }).click();

    const link = page.getByRole('link', { name: 'Download fixture.webp' });
    await link.waitFor({ timeout: 20_000 });
    const { name, bytes } = await download(page, () => link.click());
    expect(name).toBe('fixture.webp');
    const meta = await sharp(bytes).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: 'webp',
      width: 64,
      height: 48,
    });
    expect(await row.textContent()).toMatch(/Done/);
    expect(await page.getByRole('status').textContent()).toMatch(/Finished: 1 converted, 0 failed/);

    // The zip is made in the browser from the results, each under its output name.
    const zip = await download(page, () => page.getByRole('button', { name: 'Download all as zip' }).click());
    const dir = await tempDir();
    await writeFile(join(dir, 'all.zip'), zip.bytes);
    const entries = await readZip(join(dir, 'all.zip'));
    expect([...entries.keys()]).toEqual(['fixture.webp']);
    expect(entries.get('fixture.webp')!.equals(bytes)).toBe(true);
    // unzip checks every entry's CRC-32 (the page's own zip writer computes them).
    expect(execFileSync('unzip', ['-t', join(dir, 'all.zip')], { encoding: 'utf8' })).toMatch(
      /No errors detected/,
    );

    await mkdir(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(problems).toEqual([]);
  });

  it('works by keyboard alone: Tab to "Choose files", Space, Tab to the target, type, Convert all', async () => {
    const server = await startServer({ router: { webConverter: true } });
    const { page, problems } = await open(server);
    // "Choose files" is the first control on the page.
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toBe('Choose files');
    const chooser = await chooserByKeyboard(page);
    await chooser.setFiles(PNG);
    await page.getByLabel('Convert fixture.png to').waitFor();

    // Tab on to the target (past "Choose a folder"), at most a few presses.
    for (let i = 0; i < 5 && (await focusedName(page)) !== 'Convert fixture.png to'; i++) {
      await page.keyboard.press('Tab');
    }
    expect(await focusedName(page)).toBe('Convert fixture.png to');
    // Type-ahead on a focused <select> picks the first option starting with the letters.
    await page.keyboard.type('webp');
    expect(await page.getByLabel('Convert fixture.png to').inputValue()).toBe('webp');
    for (let i = 0; i < 8 && (await focusedName(page)) !== 'Convert all'; i++) {
      await page.keyboard.press('Tab');
    }
    expect(await focusedName(page)).toBe('Convert all');
    await page.keyboard.press('Enter');

    // Focus stays on "Convert all"; the result's link is the control just before it.
    await page.getByRole('link', { name: 'Download fixture.webp' }).waitFor({ timeout: 20_000 });
    expect(await focusedName(page)).toBe('Convert all');
    await page.keyboard.press('Shift+Tab');
    expect(await focusedName(page)).toBe('Download fixture.webp');
    const { bytes } = await download(page, () => page.keyboard.press('Enter'));
    expect((await sharp(bytes).metadata()).format).toBe('webp');
    expect(problems).toEqual([]);
  });

  it('refuses a file no converter reads, in words, without sending it, while the others convert', async () => {
    const server = await startServer({ router: { webConverter: true } });
    const { page, problems } = await open(server);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(`${request.method()} ${request.url()}`));
    await page.getByLabel('Choose files', { exact: true }).setInputFiles([
      {
        name: 'notes.xyz',
        mimeType: 'application/octet-stream',
        buffer: Buffer.from('not a format anyone reads'),
      },
      { name: 'fixture.png', mimeType: 'image/png', buffer: await readFile(PNG) },
    ]);
    const refused = item(page, 'notes.xyz');
    await expect.poll(() => refused.textContent()).toMatch(/Failed: fileconv cannot read \.xyz files\./);
    expect(await refused.textContent()).toMatch(/UNSUPPORTED_FORMAT/);
    expect(await refused.getByRole('combobox').count()).toBe(0);
    expect(requests).toEqual([]);

    await page.getByLabel('Convert fixture.png to').selectOption('webp');
    await page.getByRole('button', { name: 'Convert all' }).click();
    await page.getByRole('link', { name: 'Download fixture.webp' }).waitFor({ timeout: 20_000 });
    // Nothing of notes.xyz was sent: only the PNG's grant, PUT and job.
    expect(requests.filter((request) => /xyz/.test(request))).toEqual([]);
    expect(await page.getByRole('status').textContent()).toMatch(/Finished: 1 converted, 1 failed/);
    // Removing it by keyboard leaves the list with the PNG only.
    await page.getByRole('button', { name: 'Remove notes.xyz' }).click();
    expect(await page.getByRole('list', { name: 'Files' }).getByRole('listitem').count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it('takes the format the API detects when the name lies, and converts on the next try', async () => {
    const server = await startServer({ router: { webConverter: true } });
    const { page, problems } = await open(server);
    const jpeg = await readFile(join(FIXTURES, 'fixture.jpg'));
    await page
      .getByLabel('Choose files', { exact: true })
      .setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: jpeg });
    const row = item(page, 'photo.png');
    await expect.poll(() => row.textContent()).toMatch(/PNG image/);
    await page.getByLabel('Convert photo.png to').selectOption('webp');
    await page.getByRole('button', { name: 'Convert all' }).click();
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toMatch(/Failed: /);
    expect(await row.textContent()).toMatch(/CONTENT_MISMATCH/);
    expect(await row.textContent()).toMatch(/JPEG image \(by its content\)/);
    await page.getByLabel('Convert photo.png to').selectOption('webp');
    await page.getByRole('button', { name: 'Convert all' }).click();
    const link = page.getByRole('link', { name: /^Download .*\.webp$/ });
    await link.waitFor({ timeout: 20_000 });
    const { bytes } = await download(page, () => link.click());
    expect((await sharp(bytes).metadata()).format).toBe('webp');
    expect(problems.filter((problem) => !/status of 422/.test(problem))).toEqual([]);
  });

  it("shows an API refusal in words: the API's message, its code and what to do", async () => {
    // A Free plan that takes 100 bytes at most: the 64x48 PNG fixture is larger.
    const server = await startServer({ router: { webConverter: true }, maxFileBytes: 100 });
    const { page, problems } = await open(server);
    await page.getByLabel('Choose files', { exact: true }).setInputFiles(PNG);
    await page.getByRole('button', { name: 'Convert all' }).click();
    const row = item(page, 'fixture.png');
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toMatch(/Failed: \S/);
    expect(await row.textContent()).toMatch(
      /Error code FILE_TOO_LARGE\. Choose a smaller file, or use an API key of a plan with a larger limit\./,
    );
    expect(await page.getByRole('link', { name: /^Download/ }).count()).toBe(0);
    // The user can try again (another target, a key): nothing is locked.
    expect(await page.getByRole('button', { name: 'Convert all' }).isEnabled()).toBe(true);
    expect(await page.getByLabel('Convert fixture.png to').isEnabled()).toBe(true);
    // The browser logs the 413 response itself; nothing else went wrong.
    expect(problems.filter((problem) => !/status of 413/.test(problem))).toEqual([]);
  });

  it('says when a rate limit resets, and what a paid plan would change', async () => {
    // A clock that stands still: fixed one-minute windows must not roll over mid-test.
    const clock = movableClock(Date.now());
    const counters = createMemoryCounterStore({ now: clock.now });
    const server = await startServer({ clock, router: { webConverter: true, counters } });
    // Use up this IP's 20 upload-class requests a minute; the page (GETs) is another class.
    const body = { fileName: 'a.png', fileSize: 10, contentType: 'image/png' };
    for (let i = 0; i < 20; i += 1) {
      expect((await call(server, 'POST', '/api/files/get-upload-url', { json: body })).status).toBe(200);
    }
    const { page, problems } = await open(server);
    await page.getByLabel('Choose files', { exact: true }).setInputFiles(PNG);
    await page.getByRole('button', { name: 'Convert all' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    // When, once: the server's own "try again in N seconds", no second clock time beside it.
    expect(await alert.textContent()).toMatch(/Try again in \d+ seconds\./);
    expect(await alert.textContent()).not.toMatch(/resets/);
    expect(await alert.textContent()).toMatch(/paid plan/);
    expect(await item(page, 'fixture.png').textContent()).toMatch(/RATE_LIMITED/);
    expect(problems.filter((problem) => !/status of 429/.test(problem))).toEqual([]);
  });

  it("checks a conversion's options against its schema before sending, and sends them", async () => {
    const server = await startServer({ router: { webConverter: true } });
    const { page, problems } = await open(server);
    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') requests.push(request.postData() ?? '');
    });
    await page.getByLabel('Choose files', { exact: true }).setInputFiles(PNG);
    await page.getByLabel('Convert fixture.png to').selectOption('jpg');
    const toggle = page.getByRole('button', { name: 'Options for fixture.png' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const group = page.getByRole('group', { name: 'Options for fixture.png' });
    const width = group.getByLabel('Width', { exact: true });
    const quality = group.getByLabel('Quality', { exact: true });
    // The schema's bounds and default, as the browser sees them.
    expect(await quality.getAttribute('max')).toBe('100');
    expect(await quality.getAttribute('placeholder')).toMatch(/^\d+$/);
    await quality.fill('500');
    expect(await quality.getAttribute('aria-invalid')).toBe('true');
    expect(await group.textContent()).toMatch(/Enter 100 or less\./);
    const convertAll = page.getByRole('button', { name: 'Convert all' });
    expect(await convertAll.isDisabled()).toBe(true);
    await quality.fill('40');
    await width.fill('32');
    expect(await quality.getAttribute('aria-invalid')).toBeNull();
    await convertAll.click();
    const link = page.getByRole('link', { name: 'Download fixture.jpg' });
    await link.waitFor({ timeout: 20_000 });
    const { bytes } = await download(page, () => link.click());
    const meta = await sharp(bytes).metadata();
    expect({ format: meta.format, width: meta.width }).toEqual({ format: 'jpeg', width: 32 });
    const create = requests.find((body) => body.includes('targetFormat'));
    expect(JSON.parse(create!).options).toEqual({ width: 32, quality: 40 });
    expect(problems).toEqual([]);
  });

  it('splits a PDF by page ranges, refusing a malformed range on the page', async () => {
    const server = await startServer({
      router: { webConverter: true },
      engine: { converters: [createSharpConverter()], operations: pdfOperations() },
    });
    const { page, problems } = await open(server);
    const dir = await tempDir();
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (const n of [1, 2, 3])
      doc.addPage([300, 200]).drawText(`page ${n}`, { x: 20, y: 100, size: 14, font });
    const path = join(dir, 'three.pdf');
    await writeFile(path, await doc.save());
    await page.getByLabel('Choose files', { exact: true }).setInputFiles(path);
    await page.getByLabel('PDF tool', { exact: true }).selectOption('split');
    const ranges = page.getByLabel('Page ranges', { exact: true });
    await ranges.fill('2-x');
    await page.getByRole('button', { name: 'Run split' }).click();
    expect(await ranges.getAttribute('aria-invalid')).toBe('true');
    await ranges.fill('2-3');
    await page.getByRole('button', { name: 'Run split' }).click();
    const link = page.getByRole('link', { name: /^Download .*\.pdf$/ });
    await link.waitFor({ timeout: 20_000 });
    const { bytes } = await download(page, () => link.click());
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(2);
    expect(problems).toEqual([]);
  });

  it('works from another origin than the API (?api=), through CORS', async () => {
    // The page's three files on a plain static server of their own (another port: another origin).
    const web = join(import.meta.dirname, '..', '..', 'src', 'service', 'web');
    const types: Record<string, string> = { js: 'text/javascript', css: 'text/css', html: 'text/html' };
    const statics = createServer(async (request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const file = path === '/' ? 'page.html' : path.replace(/^\/web\//, '');
      try {
        const body = await readFile(join(web, file));
        response.writeHead(200, { 'content-type': types[file.split('.').pop()!] ?? 'text/plain' }).end(body);
      } catch {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => statics.listen(0, '127.0.0.1', done));
    const pageOrigin = `http://127.0.0.1:${(statics.address() as AddressInfo).port}`;
    try {
      const server = await startServer({ router: { cors: { origins: [pageOrigin] } } });
      context = await browser.newContext({ acceptDownloads: true });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
      await page.goto(`${pageOrigin}/?api=${encodeURIComponent(server.url)}`);
      await expect
        .poll(() => page.getByRole('status').textContent())
        .toMatch(/formats can be converted here/);
      await page.getByLabel('Choose files', { exact: true }).setInputFiles(PNG);
      await page.getByLabel('Convert fixture.png to').selectOption('webp');
      await page.getByRole('button', { name: 'Convert all' }).click();
      await page.getByRole('link', { name: 'Download fixture.webp' }).waitFor({ timeout: 20_000 });
      // The zip fetches the result across origins too.
      const zip = await download(page, () =>
        page.getByRole('button', { name: 'Download all as zip' }).click(),
      );
      const dir = await tempDir();
      await writeFile(join(dir, 'all.zip'), zip.bytes);
      const entries = await readZip(join(dir, 'all.zip'));
      expect((await sharp(entries.get('fixture.webp')!).metadata()).format).toBe('webp');
      expect(problems).toEqual([]);
    } finally {
      // The browser may still hold a kept-alive connection, or a speculative one it opened
      // ahead: close() alone would wait on it until the test's time ran out.
      await context?.close();
      context = undefined;
      statics.closeAllConnections();
      await new Promise((done) => statics.close(done));
    }
  });

  it('merges PDFs in the order set with the Move buttons', async () => {
    const server = await startServer({
      router: { webConverter: true },
      engine: { converters: [createSharpConverter()], operations: pdfOperations() },
    });
    const { page, problems } = await open(server);
    const dir = await tempDir();
    const pdfs = [];
    for (const label of ['first', 'second']) {
      const doc = await PDFDocument.create();
      const font = await doc.embedFont(StandardFonts.Helvetica);
      doc.addPage([300, 200]).drawText(`${label} page`, { x: 20, y: 100, size: 14, font });
      const path = join(dir, `${label}.pdf`);
      await writeFile(path, await doc.save());
      pdfs.push(path);
    }
    await page.getByLabel('Choose files', { exact: true }).setInputFiles([pdfs[0]!, pdfs[1]!]);
    await page.getByLabel('PDF tool', { exact: true }).selectOption('merge');
    const order = page.getByRole('list', { name: 'Merge order' });
    expect(await order.getByRole('listitem').allTextContents()).toEqual([
      expect.stringContaining('first.pdf'),
      expect.stringContaining('second.pdf'),
    ]);
    await page.getByRole('button', { name: 'Move second.pdf up' }).click();
    expect(await order.getByRole('listitem').allTextContents()).toEqual([
      expect.stringContaining('second.pdf'),
      expect.stringContaining('first.pdf'),
    ]);
    await page.getByRole('button', { name: 'Run merge' }).click();
    const link = page.getByRole('link', { name: /^Download .*\.pdf$/ });
    await link.waitFor({ timeout: 20_000 });
    const { bytes } = await download(page, () => link.click());
    const merged = join(dir, 'merged.pdf');
    await writeFile(merged, bytes);
    const text = execFileSync('pdftotext', ['-layout', merged, '-'], { encoding: 'utf8' });
    expect(text.match(/(first|second) page/g)).toEqual(['second page', 'first page']);
    expect(problems).toEqual([]);
  });
});
