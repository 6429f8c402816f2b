/**
 * `fileconv convert` on web pages (issue 16): a URL captured to PDF with --paper, --margin and
 * --landscape (checked with pdfinfo and pdftotext), a zipped site detected from its .zip name,
 * and the address rules at the command line: loopback refused unless FILECONV_URL_ALLOW_PRIVATE=1,
 * file: refused by scheme. Each run is a fresh CLI process with its own browser.
 */
import { readdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { locateChromium } from '../src/converters/chromium/chromium-locate.js';
import { CHROMIUM_INSTALL } from '../src/converters/chromium/index.js';
import { expectSize, pdfInfo, pdfText, wordBoxes } from './converters/chromium-helpers.js';
import { runCli } from './helpers/cli-process.js';
import { describeWithEngine } from './helpers/engines.js';
import { tempDir } from './helpers/temp.js';
import { zipBytes } from './helpers/zip.js';

const AVAILABLE = typeof (await locateChromium(undefined)) === 'string';

/** The CLI from any working directory: tsx by its path, not its name (resolved from the cwd). */

const ALLOW = { FILECONV_URL_ALLOW_PRIVATE: '1' };
const STRICT = { FILECONV_URL_ALLOW_PRIVATE: undefined };

describeWithEngine('chromium', AVAILABLE, CHROMIUM_INSTALL, 'fileconv convert: web pages', () => {
  let server: Server;
  let origin = '';
  let connections = 0;

  beforeAll(async () => {
    server = createServer((_, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end('<p>Served to the command line</p>');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('captures a URL to a Letter PDF with margins', async () => {
    const work = await tempDir();
    const output = join(work, 'page.pdf');
    const run = await runCli(
      ['convert', `${origin}/page`, output, '--paper', 'letter', '--margin', '25mm', '--quiet'],
      { env: ALLOW },
    );
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    expectSize((await pdfInfo(output)).size, [612, 792]);
    expect(await pdfText(output)).toContain('Served to the command line');
    // 25 mm is 70.9 pt, and the body's own 8 px margin (6 pt) comes on top.
    const left = Math.min(...(await wordBoxes(output)).map((box) => box.xMin));
    expect(left).toBeGreaterThan(70.8);
    expect(left).toBeLessThan(80);
  });

  it('names the result after the site when no output is given, and turns the page with --landscape', async () => {
    const work = await tempDir();
    const run = await runCli(['convert', `${origin}/`, '--to', 'pdf', '--landscape', '--json'], {
      env: ALLOW,
      cwd: work,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      path: ['url', 'pdf'],
      output: join(work, '127.0.0.1.pdf'),
    });
    expectSize((await pdfInfo(join(work, '127.0.0.1.pdf'))).size, [841.89, 595.28]);
    // The temporary URL file is gone.
    expect(await readdir(work)).toEqual(['127.0.0.1.pdf']);
  });

  it('converts a zipped site, detected from its content', async () => {
    const work = await tempDir();
    const input = join(work, 'site.zip');
    await writeFile(
      input,
      await zipBytes(
        new Map([
          [
            'site/index.html',
            Buffer.from(
              '<link rel="stylesheet" href="s.css"><p>Zipped for the CLI</p><p class="x">Hidden</p>',
            ),
          ],
          ['site/s.css', Buffer.from('.x { display: none }')],
        ]),
      ),
    );
    const run = await runCli(['convert', input, join(work, 'site.pdf'), '--quiet'], { env: STRICT });
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    const text = await pdfText(join(work, 'site.pdf'));
    expect(text).toContain('Zipped for the CLI');
    expect(text).not.toContain('Hidden');
  });

  it('refuses loopback without FILECONV_URL_ALLOW_PRIVATE, and file: URLs, with UNSAFE_INPUT', async () => {
    const work = await tempDir();
    const before = connections;
    const loopback = await runCli(['convert', `${origin}/page`, join(work, 'x.pdf'), '--quiet'], {
      env: STRICT,
    });
    expect(loopback.code).toBe(1);
    expect(loopback.stderr).toMatch(/127\.0\.0\.1.*loopback.*\[UNSAFE_INPUT\]/);
    expect(connections).toBe(before);
    const file = await runCli(['convert', 'file:///etc/passwd', join(work, 'y.pdf'), '--quiet'], {
      env: ALLOW,
    });
    expect(file.code).toBe(1);
    expect(file.stderr).toMatch(/file: scheme.*\[UNSAFE_INPUT\]/);
    expect(await readdir(work)).toEqual([]);
  });
});
