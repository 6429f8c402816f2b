/**
 * Jobs without scripts take turns in warm tabs (page-render.ts): what one job was sent must never
 * reach the next. Two zipped pages with the same asset path each print their own stylesheet; a
 * cookie a captured site set is not sent with the next capture; a job that failed (a page that
 * navigates itself away) leaves a tab the next job does not inherit; a job with scripts still
 * gets a fresh context. An uploaded page written into a warm tab (setContent) decodes as it would
 * served, and its navigations are refused as a served page's are. Read back with pdftotext.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM_INSTALL, createChromiumConverter } from '../../src/converters/chromium/index.js';
import { urlFileContent } from '../../src/core/formats/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { zipBytes } from '../helpers/zip.js';
import { CHROMIUM_FOUND, pdfText } from './chromium-helpers.js';
import { context, expectCode, type Workspace, withOptionsParsed, workspace } from './converter-harness.js';

const AVAILABLE = CHROMIUM_FOUND;

describeWithEngine('chromium', AVAILABLE, CHROMIUM_INSTALL, 'chromium converter: warm tabs', () => {
  // One slot: every job without scripts lands in the same warm tab.
  const converter = withOptionsParsed(
    createChromiumConverter({ allowPrivateAddresses: true, concurrency: 1 }),
  );
  let site: Server;
  let origin = '';
  const cookiesSeen: (string | undefined)[] = [];
  beforeAll(async () => {
    site = createServer((request, response) => {
      // Only the first capture's page sets a cookie.
      if (request.url === '/one') response.setHeader('set-cookie', 'session=job-one-secret; Path=/');
      if (request.url?.endsWith('.css')) {
        // The page itself is fetched by fileconv; its stylesheet by the browser, with the tab's cookies.
        cookiesSeen.push(request.headers.cookie);
        response.setHeader('content-type', 'text/css');
        response.end('p { color: #333; }');
        return;
      }
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(`<link rel="stylesheet" href="${request.url}.css"><p>Visit ${request.url}</p>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await converter.close();
    await new Promise((resolve) => site.close(resolve));
  });

  async function zippedPage(ws: Workspace, name: string, css: string, html = '<p>Body</p>') {
    const inputPath = join(ws.inputs, `${name}.htmlzip`);
    const page = `<!DOCTYPE html><link rel="stylesheet" href="style.css">${html}`;
    await writeFile(
      inputPath,
      await zipBytes(
        new Map([
          ['index.html', Buffer.from(page)],
          ['style.css', Buffer.from(css)],
        ]),
      ),
    );
    return context(ws, 'htmlzip', 'pdf', { inputPath, outputPath: join(ws.outputs, `${name}.pdf`) });
  }

  it('two zipped pages with the same asset path each print their own', async () => {
    const ws = await workspace();
    for (const label of ['first-style', 'second-style', 'third-style']) {
      const ctx = await zippedPage(ws, label, `body::after { content: "${label}"; }`);
      await converter.convert(ctx);
      const text = await pdfText(ctx.outputPath);
      expect(text).toContain(label);
      for (const other of ['first-style', 'second-style', 'third-style'].filter((name) => name !== label)) {
        expect(text).not.toContain(other);
      }
    }
  });

  it('a cookie one capture was sent is not sent with the next', async () => {
    const ws = await workspace();
    cookiesSeen.length = 0;
    for (const path of ['/one', '/two']) {
      const inputPath = join(ws.inputs, `${path.slice(1)}.url`);
      await writeFile(inputPath, urlFileContent(`${origin}${path}`));
      const ctx = context(ws, 'url', 'pdf', {
        inputPath,
        outputPath: join(ws.outputs, `${path.slice(1)}.pdf`),
      });
      await converter.convert(ctx);
      expect(await pdfText(ctx.outputPath)).toContain(`Visit ${path}`);
    }
    // The first page's own stylesheet is sent its cookie; the next job's is not.
    expect(cookiesSeen).toEqual(['session=job-one-secret', undefined]);
  });

  it('after a job that failed, the next renders as if nothing happened', async () => {
    const ws = await workspace();
    const away = await zippedPage(
      ws,
      'away',
      'p { color: red; }',
      '<meta http-equiv="refresh" content="0; url=http://169.254.169.254/"><p>Leaving</p>',
    );
    await expectCode(converter.convert(away), 'UNSAFE_INPUT');
    const next = await zippedPage(ws, 'next', 'body::after { content: "after-failure"; }');
    await converter.convert(next);
    const text = await pdfText(next.outputPath);
    expect(text).toContain('after-failure');
    expect(text).not.toContain('Leaving');
  });

  async function htmlPage(ws: Workspace, name: string, bytes: Buffer) {
    const inputPath = join(ws.inputs, `${name}.html`);
    await writeFile(inputPath, bytes);
    return context(ws, 'html', 'pdf', { inputPath, outputPath: join(ws.outputs, `${name}.pdf`) });
  }

  it('an uploaded page written into the warm tab reads as served: UTF-8, a declared charset, a BOM', async () => {
    const ws = await workspace();
    // The first page puts the tab at the uploaded page's address; the next are written into it.
    const pages: [string, Buffer, string][] = [
      ['plain', Buffer.from('<p>Grüße plain €</p>'), 'Grüße plain €'],
      ['declared', Buffer.from('<meta charset="UTF-8"><p>naïve declared ✓</p>'), 'naïve declared ✓'],
      // Only the browser decodes these right: the page is served, not written in.
      [
        'latin',
        Buffer.concat([
          Buffer.from('<meta charset="windows-1252"><p>caf'),
          Buffer.from([0xe9]),
          Buffer.from(' latin</p>'),
        ]),
        'café latin',
      ],
      [
        'commented',
        Buffer.concat([
          Buffer.from('<!-- <meta charset="utf-8"> --><meta charset="iso-8859-1"><p>r'),
          Buffer.from([0xe9]),
          Buffer.from('sum</p>'),
        ]),
        'résum',
      ],
      [
        'marked',
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>Ünïcode marked</p>')]),
        'Ünïcode marked',
      ],
      [
        'utf16',
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>wide Ωmega</p>', 'utf16le')]),
        'wide Ωmega',
      ],
      ['again', Buffer.from('<p>Grüße again €</p>'), 'Grüße again €'],
    ];
    for (const [name, bytes, text] of pages) {
      const ctx = await htmlPage(ws, name, bytes);
      await converter.convert(ctx);
      const printed = await pdfText(ctx.outputPath);
      expect(printed).toContain(text);
      for (const [other, , otherText] of pages) if (other !== name) expect(printed).not.toContain(otherText);
    }
  });

  it('a page written into the warm tab that navigates itself away fails, and reloading itself gets nothing', async () => {
    const ws = await workspace();
    await converter.convert(await htmlPage(ws, 'first', Buffer.from('<p>First</p>')));
    const connectionsBefore = cookiesSeen.length;
    const away = await htmlPage(
      ws,
      'away',
      Buffer.from(`<meta http-equiv="refresh" content="0; url=${origin}/away.css"><p>Leaving</p>`),
    );
    const error = await expectCode(converter.convert(away), 'UNSAFE_INPUT');
    expect(error.message).toContain(`${origin}/away.css`);
    expect(cookiesSeen.length).toBe(connectionsBefore); // the listener was never asked
    // The failed job's tab was closed: this one opens a fresh tab at the page's address.
    await converter.convert(await htmlPage(ws, 'second', Buffer.from('<p>Second</p>')));
    const reload = await htmlPage(
      ws,
      'reload',
      Buffer.from('<meta http-equiv="refresh" content="0; url=index.html"><p>Reloading</p>'),
    );
    await expectCode(converter.convert(reload), 'UNSAFE_INPUT');
    const next = await htmlPage(ws, 'next', Buffer.from('<p>Next page</p>'));
    await converter.convert(next);
    const text = await pdfText(next.outputPath);
    expect(text).toContain('Next page');
    expect(text).not.toContain('Reloading');
  });

  it('a job with scripts gets a context of its own: its storage is not seen by a scriptless job', async () => {
    const ws = await workspace();
    const writer = await zippedPage(
      ws,
      'writer',
      '',
      '<p id="out">w</p><script>localStorage.setItem("k", "leaked-value"); document.cookie = "c=leaked-cookie";</script>',
    );
    writer.options = { javascript: true };
    await converter.convert(writer);
    const reader = await zippedPage(
      ws,
      'reader',
      '',
      '<p id="out">no scripts here</p><script>document.body.append(localStorage.getItem("k"))</script>',
    );
    await converter.convert(reader);
    const text = await pdfText(reader.outputPath);
    expect(text).toContain('no scripts here');
    expect(text).not.toContain('leaked');
  });
});
