/**
 * The Chromium converter's capture options (issue 31, item 2), against loopback servers with
 * private addresses allowed: a page that prints the Cookie, X- header and User-Agent it received
 * shows them in the PDF's text; extra headers and domain-less cookies stay at the page's origin,
 * a cookie with a domain goes to that host only; failOnHttpStatusCodes fails a listed status as
 * URL_UNREACHABLE (details.status) and prints an error page not listed; failOnResourceHttpStatusCodes
 * fails a page whose image answered 404; tagged and outline reach the PDF (pdfinfo, qpdf). The
 * schema refuses a header the connection sets itself and a cookie value that could split the
 * header, without echoing the value, and marks the values writeOnly in the JSON Schema.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CHROMIUM_INSTALL,
  chromiumPdfOptionsSchema,
  createChromiumConverter,
} from '../../src/converters/chromium/index.js';
import { urlFileContent } from '../../src/core/formats/index.js';
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

/** A server on loopback that records each request's headers and answers with `answer`. */
async function startServer(answer: (path: string, headers: IncomingHttpHeaders) => [number, string]) {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    seen.push({ path, headers: request.headers });
    const [status, body] = answer(path, request.headers);
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, seen, port: (server.address() as AddressInfo).port };
}

describeWithEngine('chromium', AVAILABLE, CHROMIUM_INSTALL, 'chromium converter: capture options', () => {
  const converter = withOptionsParsed(createChromiumConverter({ allowPrivateAddresses: true }));
  let site: Awaited<ReturnType<typeof startServer>>;
  let other: Awaited<ReturnType<typeof startServer>>;
  let origin = '';

  beforeAll(async () => {
    // Another origin (localhost, not 127.0.0.1): where the page's image points.
    other = await startServer(() => [200, 'ok']);
    site = await startServer((path, headers) => {
      switch (path) {
        case '/echo':
          return [
            200,
            `<p>Cookie [${headers.cookie ?? ''}]</p><p>Token [${headers['x-token'] ?? ''}]</p>
<p>Agent [${headers['user-agent'] ?? ''}]</p><img src="http://localhost:${other.port}/pic.png">`,
          ];
        case '/broken-image':
          return [200, '<p>Page with a broken image</p><img src="/nowhere.png">'];
        case '/headings':
          return [200, '<h1>First chapter</h1><p>Text</p><h2>A section</h2><p>More</p>'];
        default:
          return [404, '<p>Nothing here (error page)</p>'];
      }
    });
    origin = `http://127.0.0.1:${site.port}`;
  });
  afterAll(async () => {
    await converter.close();
    await new Promise((resolve) => site.server.close(resolve));
    await new Promise((resolve) => other.server.close(resolve));
  });

  async function capture(ws: Workspace, path: string, options: Record<string, unknown>) {
    const inputPath = join(ws.inputs, `page-${Math.random().toString(36).slice(2)}.url`);
    await writeFile(inputPath, urlFileContent(`${origin}${path}`));
    return context(ws, 'url', 'pdf', { inputPath, options, outputPath: join(ws.outputs, 'out.pdf') });
  }

  it('sends the cookies, headers and User-Agent to the page, and the page prints them', async () => {
    const ws = await workspace();
    site.seen.length = 0;
    other.seen.length = 0;
    const ctx = await capture(ws, '/echo', {
      cookies: [
        { name: 'session', value: 'abc123' },
        { name: 'wide', value: 'w1', domain: 'localhost' },
        { name: 'elsewhere', value: 'p1', path: '/admin' },
      ],
      extraHttpHeaders: { 'X-Token': 'tok-42' },
      userAgent: 'fileconv-test-agent/1.0',
    });
    await converter.convert(ctx);
    const text = await pdfText(ctx.outputPath);
    expect(text).toContain('Cookie [session=abc123]');
    expect(text).toContain('Token [tok-42]');
    expect(text).toContain('Agent [fileconv-test-agent/1.0]');
    // The image at the other origin got the cookie whose domain names it, and nothing else.
    const image = other.seen.find((request) => request.path === '/pic.png');
    expect(image?.headers.cookie).toBe('wide=w1');
    expect(image?.headers['x-token']).toBeUndefined();
    expect(image?.headers['user-agent']).toBe('fileconv-test-agent/1.0');
  });

  it('failOnHttpStatusCodes: [404] fails a 404 page as URL_UNREACHABLE; a status not listed prints the error page', async () => {
    const ws = await workspace();
    const error = await expectCode(
      converter.convert(await capture(ws, '/missing', { failOnHttpStatusCodes: [404] })),
      'URL_UNREACHABLE',
    );
    expect(error.details).toMatchObject({ status: 404 });
    await expectNoLeftovers(ws);
    const printed = await capture(ws, '/missing', { failOnHttpStatusCodes: [599] });
    await converter.convert(printed);
    expect(await pdfText(printed.outputPath)).toContain('Nothing here (error page)');
  });

  it('failOnResourceHttpStatusCodes: [499] fails a page whose image answered 404; without it the page prints', async () => {
    const ws = await workspace();
    const error = await expectCode(
      converter.convert(await capture(ws, '/broken-image', { failOnResourceHttpStatusCodes: [499] })),
      'URL_UNREACHABLE',
    );
    expect(error.details).toMatchObject({ status: 404, url: `${origin}/nowhere.png` });
    const printed = await capture(ws, '/broken-image', {});
    await converter.convert(printed);
    expect(await pdfText(printed.outputPath)).toContain('Page with a broken image');
  });

  it('writes a tagged PDF by default, untagged when asked, and an outline of the headings when asked', async () => {
    const ws = await workspace();
    const plain = await capture(ws, '/headings', {});
    await converter.convert(plain);
    expect((await run('pdfinfo', [plain.outputPath])).stdout).toMatch(/^Tagged:\s+yes/m);
    expect(await outlineTitles(plain.outputPath)).toEqual([]);
    const untagged = await capture(ws, '/headings', { tagged: false });
    await converter.convert(untagged);
    expect((await run('pdfinfo', [untagged.outputPath])).stdout).toMatch(/^Tagged:\s+no/m);
    const outlined = await capture(ws, '/headings', { outline: true });
    await converter.convert(outlined);
    expect(await outlineTitles(outlined.outputPath)).toEqual(expect.arrayContaining(['First chapter']));
  });
});

/** The PDF's outline (bookmark) titles, read by qpdf. */
async function outlineTitles(path: string): Promise<string[]> {
  const { stdout } = await run('qpdf', ['--json', '--json-key=outlines', path]);
  const titles: string[] = [];
  const walk = (items: { title: string; kids: unknown[] }[]) => {
    for (const item of items) {
      titles.push(item.title);
      walk(item.kids as never);
    }
  };
  walk((JSON.parse(stdout) as { outlines: never }).outlines);
  return titles;
}

it('refuses a header the connection sets and a cookie value that splits the header, without echoing the value', () => {
  const host = chromiumPdfOptionsSchema.safeParse({ extraHttpHeaders: { Host: 'evil.example' } });
  expect(host.success).toBe(false);
  expect(JSON.stringify(host.error?.issues)).not.toContain('evil.example');
  const split = chromiumPdfOptionsSchema.safeParse({ cookies: [{ name: 'a', value: 'x;admin=1' }] });
  expect(split.success).toBe(false);
  expect(JSON.stringify(split.error?.issues)).not.toContain('admin=1');
  const lineBreak = chromiumPdfOptionsSchema.safeParse({ extraHttpHeaders: { 'X-A': 'a\r\nX-B: b' } });
  expect(lineBreak.success).toBe(false);
  const described = JSON.stringify(
    z.toJSONSchema(chromiumPdfOptionsSchema, { io: 'input', unrepresentable: 'any' }),
  );
  expect(described.match(/"writeOnly":true/g)).toHaveLength(2);
});
