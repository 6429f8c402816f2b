/**
 * The Chromium converter capturing web pages by URL (the 'url' format, issue 16 item 3), against
 * local HTTP servers. With private addresses allowed (as FILECONV_URL_ALLOW_PRIVATE=1 does): the
 * page renders with its stylesheet and image after a redirect, relative references resolving
 * against the final URL; a gzip page is inflated; a redirect to 169.254.169.254 fails as
 * UNSAFE_INPUT naming it; a resource there is left out and the page still renders; scripts stay
 * off unless asked; a missing page, a refused connection, a host that does not resolve and a
 * redirect loop are URL_UNREACHABLE; a page past the byte cap is INPUT_LIMIT_EXCEEDED. Without
 * the allowance, loopback is refused before a connection is made. file: and data: URLs are
 * refused. Through the engine, a .url file is detected and GET /api/formats lists the sources.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM_INSTALL, createChromiumConverter } from '../../src/converters/chromium/index.js';
import { WebFetcher } from '../../src/converters/chromium/web-fetch.js';
import { urlFileContent } from '../../src/core/formats/index.js';
import { createEngine } from '../../src/index.js';
import { describeFormats } from '../../src/service/formats-view.js';
import { describeWithEngine } from '../helpers/engines.js';
import { CHROMIUM_FOUND, pdfText, run } from './chromium-helpers.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const AVAILABLE = CHROMIUM_FOUND;

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8DAwMDAxMDAAAAjhgMBGyuxGwAAAABJRU5ErkJggg==',
  'base64',
);

const PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="style.css"></head><body>
<p>Captured from the web</p>
<p class="hidden">Hidden by the stylesheet</p>
<img src="pic.png" width="40" height="40">
<img src="http://169.254.169.254/latest/meta-data/">
</body></html>`;

/** The test site: what each path answers. */
function answer(request: IncomingMessage, response: ServerResponse): void {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  const html = (body: string) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(body);
  };
  switch (path) {
    case '/start':
      response.writeHead(302, { location: '/dir/page' }).end();
      return;
    case '/dir/page':
      html(PAGE);
      return;
    case '/dir/style.css':
      response.setHeader('content-type', 'text/css');
      response.end('.hidden { display: none; }');
      return;
    case '/dir/pic.png':
      response.setHeader('content-type', 'image/png');
      response.end(PNG);
      return;
    case '/gzip':
      response.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      response.end(gzipSync('<p>Inflated from gzip</p>'));
      return;
    case '/to-metadata':
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    case '/loop':
      response.writeHead(302, { location: '/loop' }).end();
      return;
    case '/big':
      html(`<p>${'x'.repeat(200_000)}</p>`);
      return;
    case '/script':
      html(`<p>Static text</p><script>
document.body.insertAdjacentHTML('beforeend', '<p>Script ran</p>');
fetch('http://169.254.169.254/latest/meta-data/').catch(() => {});
</script>`);
      return;
    default:
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
  }
}

describeWithEngine('chromium', AVAILABLE, CHROMIUM_INSTALL, 'chromium converter: URL capture', () => {
  const blocked: string[] = [];
  const converter = withOptionsParsed(
    createChromiumConverter({
      allowPrivateAddresses: true,
      onBlocked: (what) => blocked.push(what),
    }),
  );
  let server: Server;
  let origin = '';
  const requested: string[] = [];
  let connections = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      requested.push(request.url ?? '');
      answer(request, response);
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await converter.close();
    await new Promise((resolve) => server.close(resolve));
  });

  async function urlContext(ws: Workspace, url: string, to: string, options: Record<string, unknown> = {}) {
    const inputPath = join(ws.inputs, `page-${Math.random().toString(36).slice(2)}.url`);
    await writeFile(inputPath, urlFileContent(url));
    return context(ws, 'url', to, { inputPath, options, outputPath: join(ws.outputs, `out.${to}`) });
  }

  it('captures a page after a redirect, with its stylesheet and image; a metadata-address image is left out', async () => {
    const ws = await workspace();
    blocked.length = 0;
    requested.length = 0;
    const ctx = await urlContext(ws, `${origin}/start`, 'pdf', { paper: 'Letter' });
    await converter.convert(ctx);
    const text = await pdfText(ctx.outputPath);
    expect(text).toContain('Captured from the web');
    // style.css resolved against /dir/page, the redirect's target, and applied.
    expect(text).not.toContain('Hidden by the stylesheet');
    expect(requested).toEqual(
      expect.arrayContaining(['/start', '/dir/page', '/dir/style.css', '/dir/pic.png']),
    );
    const images = (await run('pdfimages', ['-list', ctx.outputPath])).stdout;
    expect(images).toMatch(/^\s+1\s+0\s+image\s+2\s+2\s/m);
    expect(blocked).toEqual(['http://169.254.169.254/latest/meta-data/']);
  });

  it('inflates a gzip-encoded page, and takes screenshots', async () => {
    const ws = await workspace();
    const ctx = await urlContext(ws, `${origin}/gzip`, 'pdf');
    await converter.convert(ctx);
    expect(await pdfText(ctx.outputPath)).toContain('Inflated from gzip');
    const shot = await urlContext(ws, `${origin}/dir/page`, 'webp', {
      width: 800,
      height: 600,
      fullPage: false,
    });
    await converter.convert(shot);
    const meta = await sharp(await readFile(shot.outputPath)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 800, 600]);
  });

  it('fails a page that redirects to 169.254.169.254 as UNSAFE_INPUT naming the address', async () => {
    const ws = await workspace();
    const error = await expectCode(
      converter.convert(await urlContext(ws, `${origin}/to-metadata`, 'pdf')),
      'UNSAFE_INPUT',
    );
    expect(error.message).toContain('169.254.169.254');
    expect(error.message).toContain('linkLocal');
    await expectNoLeftovers(ws);
  });

  it('runs no script by default; with javascript on, the script runs and its fetch to a metadata address is refused', async () => {
    const ws = await workspace();
    const off = await urlContext(ws, `${origin}/script`, 'pdf');
    await converter.convert(off);
    expect(await pdfText(off.outputPath)).not.toContain('Script ran');
    blocked.length = 0;
    const on = await urlContext(ws, `${origin}/script`, 'pdf', { javascript: true, waitFor: 'networkidle' });
    await converter.convert(on);
    expect(await pdfText(on.outputPath)).toContain('Script ran');
    expect(blocked).toContain('http://169.254.169.254/latest/meta-data/');
  });

  it.each([
    ['a 404 page', '/missing', 'answered 404'],
    ['a redirect loop', '/loop', 'more than 10 redirects'],
  ])('fails %s as URL_UNREACHABLE', async (_, path, reason) => {
    const ws = await workspace();
    const error = await expectCode(
      converter.convert(await urlContext(ws, `${origin}${path}`, 'pdf')),
      'URL_UNREACHABLE',
    );
    expect(error.message).toContain(reason);
    await expectNoLeftovers(ws);
  });

  it('fails a refused connection and a host that does not resolve as URL_UNREACHABLE', async () => {
    const ws = await workspace();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await expectCode(
      converter.convert(await urlContext(ws, `http://127.0.0.1:${port}/`, 'pdf')),
      'URL_UNREACHABLE',
    );
    expect(refused.message).toContain('refused');
    // .invalid never resolves (RFC 2606).
    const unknown = await expectCode(
      converter.convert(await urlContext(ws, 'http://no-such-host.invalid/', 'pdf')),
      'URL_UNREACHABLE',
    );
    expect(unknown.message).toContain('no-such-host.invalid');
  });

  it('refuses file:, data: and javascript: URLs as UNSAFE_INPUT', async () => {
    const ws = await workspace();
    for (const url of ['file:///etc/passwd', 'data:text/html,<p>x</p>', 'javascript:alert(1)']) {
      const error = await expectCode(converter.convert(await urlContext(ws, url, 'pdf')), 'UNSAFE_INPUT');
      expect(error.message).toContain('scheme');
    }
    // Not a URL file at all.
    const inputPath = join(ws.inputs, 'notes.url');
    await writeFile(inputPath, 'just some words\nand more');
    await expectCode(converter.convert(context(ws, 'url', 'pdf', { inputPath })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it('fails a page past the response cap as INPUT_LIMIT_EXCEEDED', async () => {
    const ws = await workspace();
    const capped = withOptionsParsed(
      createChromiumConverter({ allowPrivateAddresses: true, maxResponseBytes: 100_000 }),
    );
    await expectCode(capped.convert(await urlContext(ws, `${origin}/big`, 'pdf')), 'INPUT_LIMIT_EXCEEDED');
    await capped.close();
    await expectNoLeftovers(ws);
  });

  it('refuses loopback without the allowance, before any connection', async () => {
    const ws = await workspace();
    const before = connections;
    const strict = withOptionsParsed(createChromiumConverter());
    const error = await expectCode(
      strict.convert(await urlContext(ws, `${origin}/dir/page`, 'pdf')),
      'UNSAFE_INPUT',
    );
    expect(error.message).toContain('127.0.0.1');
    expect(error.message).toContain('loopback');
    // 'localhost' is checked after DNS, like any name.
    const named = await expectCode(
      strict.convert(await urlContext(ws, origin.replace('127.0.0.1', 'localhost'), 'pdf')),
      'UNSAFE_INPUT',
    );
    expect(named.message).toContain('localhost resolves to');
    await strict.close();
    // A subresource is checked like the page: the fetcher refuses loopback by itself.
    const fetcher = new WebFetcher(
      { maxResponseBytes: 1000, maxTotalBytes: 1000, maxRedirects: 1 },
      false,
      new AbortController().signal,
    );
    await expectCode(
      fetcher.fetch({ url: `${origin}/dir/style.css`, method: 'GET', headers: {} }),
      'UNSAFE_INPUT',
    );
    expect(connections).toBe(before);
  });

  it('converts a .url file through the engine, detected by its name, and lists the sources in GET /api/formats', async () => {
    const ws = await workspace();
    const engine = createEngine({
      converters: [createChromiumConverter({ allowPrivateAddresses: true })],
      tempDir: ws.temp,
    });
    const input = join(ws.inputs, 'page.url');
    await writeFile(
      input,
      `[DEFAULT]\r\nBASEURL=${origin}/dir/page\r\n[InternetShortcut]\r\nURL=${origin}/dir/page\r\n`,
    );
    const report = await engine.convertFile(input, join(ws.outputs, 'page.pdf'));
    expect(report.path).toEqual(['url', 'pdf']);
    expect(await pdfText(join(ws.outputs, 'page.pdf'))).toContain('Captured from the web');
    const { formats } = await describeFormats(engine);
    for (const name of ['url', 'htmlzip']) {
      const format = formats.find((entry) => entry.name === name);
      expect(format?.targets.map((target) => target.format).sort(), name).toEqual([
        'jpg',
        'pdf',
        'png',
        'webp',
      ]);
      expect(format?.targets.find((target) => target.format === 'pdf')).toMatchObject({
        converters: ['chromium'],
      });
    }
    await engine.close();
  });
});
