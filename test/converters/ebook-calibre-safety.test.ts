/**
 * The calibre converter against bad and hostile e-books: truncated books, a file lying about its
 * format, an EPUB zip bomb (refused before calibre starts), a book calibre itself cannot read
 * (its traceback mapped to CORRUPT_INPUT), and an EPUB that tries to fetch from the network and
 * read files outside itself while rendered to PDF. Nothing may be left behind.
 */
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CALIBRE_INSTALL, createCalibreConverter } from '../../src/converters/calibre/index.js';
import { findTool } from '../../src/kit/command-tools.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';
import { epubOf, pdfText } from './ebook-helpers.js';

const available = (await findTool('ebook-convert')) !== undefined;

describeWithEngine('calibre', available, CALIBRE_INSTALL, 'calibre converter on bad input', () => {
  const converter = withOptionsParsed(createCalibreConverter());

  async function input(ws: Workspace, name: string, bytes: Uint8Array): Promise<string> {
    const path = join(ws.inputs, name);
    await writeFile(path, bytes);
    return path;
  }

  async function refused(
    from: string,
    to: string,
    bytes: Uint8Array,
    code: Parameters<typeof expectCode>[1],
  ) {
    const ws = await workspace();
    const inputPath = await input(ws, `bad.${from}`, bytes);
    const error = await expectCode(converter.convert(context(ws, from, to, { inputPath })), code);
    await expectNoLeftovers(ws);
    return error;
  }

  it('refuses truncated books before calibre reads them (it would convert what it could)', async () => {
    const half = async (format: string) => {
      const bytes = await readFile(fixture(`fixture.${format}`));
      return bytes.subarray(0, bytes.length >> 1);
    };
    for (const format of ['mobi', 'azw3']) {
      const error = await refused(format, 'epub', await half(format), 'CORRUPT_INPUT');
      expect(error.details).toMatchObject({ reason: 'truncated' });
    }
    expect((await refused('fb2', 'epub', await half('fb2'), 'CORRUPT_INPUT')).message).toMatch(/truncated/);
    expect((await refused('epub', 'mobi', await half('epub'), 'CORRUPT_INPUT')).details).toMatchObject({
      reason: 'zip',
    });
  });

  it('refuses a file lying about its format', async () => {
    const png = await readFile(fixture('fixture.png'));
    for (const from of ['mobi', 'azw3', 'fb2', 'epub']) await refused(from, 'txt', png, 'CORRUPT_INPUT');
  });

  it('refuses an EPUB zip bomb by the zip-safety rules, before calibre starts', async () => {
    const bomb = await epubOf('<p>bomb</p>', {
      extra: new Map([['OEBPS/zeros.css', Buffer.alloc(40 * 1024 * 1024)]]),
    });
    expect(bomb.length).toBeLessThan(100_000);
    const error = await refused('epub', 'mobi', bomb, 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ reason: 'zip-bomb' });
  });

  it("maps calibre's own refusal of a damaged book to CORRUPT_INPUT, its traceback cut to the error", async () => {
    // A whole Palm database whose record table fits, but whose text claims a compression method
    // that does not exist: calibre's MOBI reader raises.
    const bytes = Buffer.from(await readFile(fixture('fixture.mobi')));
    bytes.writeUInt16BE(9, bytes.readUInt32BE(78));
    const error = await refused('mobi', 'epub', bytes, 'CORRUPT_INPUT');
    expect(error.message).toMatch(/ebook-convert.*failed converting mobi to epub/);
    expect(error.message).toMatch(/Unknown compression algorithm/);
    expect(error.message).not.toMatch(/Traceback|File "\//);
  });

  it('answers a DRM-locked book with PASSWORD_PROTECTED', async () => {
    // The PalmDOC header's encryption field (record 0, offset 12): 2 is Mobipocket DRM.
    const bytes = Buffer.from(await readFile(fixture('fixture.mobi')));
    bytes.writeUInt16BE(2, bytes.readUInt32BE(78) + 12);
    expect((await refused('mobi', 'pdf', bytes, 'PASSWORD_PROTECTED')).message).toMatch(/DRM/);
  });

  it('renders an EPUB to PDF without fetching from the network or reading files outside the book', async () => {
    const hits: string[] = [];
    const server = createServer((request, response) => {
      hits.push(request.url ?? '');
      response.end('FETCHED-FROM-NETWORK');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    afterAll(() => server.close());
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ws = await workspace();
    const secret = await input(
      ws,
      'secret.xhtml',
      Buffer.from('<html><body><p>OUTSIDE-SECRET</p></body></html>'),
    );
    const epub = await epubOf(
      `<p>Inside the book.</p><img src="${origin}/image.png"/><iframe src="file://${secret}"></iframe>
       <img src="file://${fixture('fixture.png')}"/><p id="js"></p>`,
      {
        head: `<link rel="stylesheet" href="${origin}/style.css"/><script>
          fetch('${origin}/script').catch(function () {});
          document.addEventListener('DOMContentLoaded', function () { document.body.append('JS-WROTE-THIS'); });
        </script>`,
        // A manifest item pointing out of the book: calibre must not take the file in.
        manifest: `<item id="out" href="../../../../../../../../..${secret}" media-type="application/xhtml+xml"/>`,
      },
    );
    const inputPath = await input(ws, 'hostile.epub', epub);
    const ctx = context(ws, 'epub', 'pdf', { inputPath });
    await converter.convert(ctx);
    const text = await pdfText(ctx.outputPath);
    expect(text).toContain('Inside the book.');
    expect(text).not.toContain('OUTSIDE-SECRET');
    expect(text).not.toContain('FETCHED-FROM-NETWORK');
    expect(hits).toEqual([]);
  });
});
