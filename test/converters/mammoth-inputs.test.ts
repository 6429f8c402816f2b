import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import mammoth from 'mammoth';
import { describe, expect, it } from 'vitest';
import { createMammothConverter } from '../../src/converters/mammoth/index.js';
import { readZip, zipBytes } from '../helpers/zip.js';
import { inflatingDocx } from '../hostile/inflating-docx.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const converter = withOptionsParsed(createMammothConverter());

async function writeZip(path: string, entries: Map<string, Buffer>): Promise<void> {
  await writeFile(path, await zipBytes(entries));
}

interface Extras {
  /** Relationship elements added to word/_rels/document.xml.rels. */
  relationships?: string;
  /** Paragraph XML added before the section properties. */
  body?: string;
  /** Further zip entries. */
  files?: Record<string, Buffer>;
}

/** fixture.docx with `extras` spliced into its XML, written to the workspace as `name`. */
async function craftDocx(ws: Workspace, name: string, extras: Extras): Promise<string> {
  const entries = await readZip(fixture('fixture.docx'));
  const edit = (entry: string, marker: string, insert: string | undefined) => {
    const xml = entries.get(entry)?.toString('utf8') ?? '';
    expect(xml).toContain(marker);
    entries.set(entry, Buffer.from(xml.replace(marker, `${insert ?? ''}${marker}`)));
  };
  edit('word/_rels/document.xml.rels', '</Relationships>', extras.relationships);
  edit('word/document.xml', '<w:sectPr>', extras.body);
  edit('[Content_Types].xml', '</Types>', '<Default Extension="png" ContentType="image/png"/>');
  for (const [file, data] of Object.entries(extras.files ?? {})) entries.set(file, data);
  const path = join(ws.inputs, name);
  await writeZip(path, entries);
  return path;
}

const IMAGE_RELATIONSHIP = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/image';

/** A paragraph holding one picture whose blip is `blip` (r:embed or r:link). */
const picture = (blip: string, alt: string) =>
  `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="9525" cy="9525"/><wp:docPr id="7" name="${alt}" descr="${alt}"/>` +
  '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">' +
  '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
  '<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
  `<pic:blipFill><a:blip ${blip}/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;

/** The smallest PNG: one transparent pixel. */
const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

describe('images and links', () => {
  it('embeds images as data: URIs, or drops them on request, and never into text', async () => {
    const ws = await workspace();
    const input = await craftDocx(ws, 'image.docx', {
      relationships: `<Relationship Id="rIdPic" Type="${IMAGE_RELATIONSHIP}" Target="media/pixel.png"/>`,
      body: picture('r:embed="rIdPic"', 'a pixel'),
      files: { 'word/media/pixel.png': PIXEL_PNG },
    });
    const embedded = context(ws, 'docx', 'html', {
      inputPath: input,
      outputPath: join(ws.outputs, 'a.html'),
    });
    await converter.convert(embedded);
    expect(await readFile(embedded.outputPath, 'utf8')).toContain(
      `<img alt="a pixel" src="data:image/png;base64,${PIXEL_PNG.toString('base64')}" />`,
    );
    const dropped = context(ws, 'docx', 'md', {
      inputPath: input,
      outputPath: join(ws.outputs, 'b.md'),
      options: { images: 'drop' },
    });
    await converter.convert(dropped);
    expect(await readFile(dropped.outputPath, 'utf8')).not.toContain('data:image');
  });

  it('never fetches an external image, nor links the output to it', async () => {
    const requests: string[] = [];
    const server = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL_PNG);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const ws = await workspace();
      const target = `http://127.0.0.1:${port}/x.png`;
      const input = await craftDocx(ws, 'tracker.docx', {
        relationships: `<Relationship Id="rIdExt" Type="${IMAGE_RELATIONSHIP}" Target="${target}" TargetMode="External"/>`,
        body: picture('r:link="rIdExt"', 'tracker'),
      });
      for (const to of ['html', 'md', 'txt']) {
        const ctx = context(ws, 'docx', to, { inputPath: input });
        await converter.convert(ctx);
        const output = await readFile(ctx.outputPath, 'utf8');
        expect(output).not.toContain(`127.0.0.1:${port}`);
        expect(output).not.toContain('<img');
        expect(output).toContain('The end of the fixture.');
      }
      // Give a stray request time to arrive before declaring that none did.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(requests).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('never reads a local file an image links to', async () => {
    const ws = await workspace();
    const secret = join(ws.inputs, 'secret.png');
    await writeFile(secret, PIXEL_PNG);
    const input = await craftDocx(ws, 'local.docx', {
      relationships: `<Relationship Id="rIdFile" Type="${IMAGE_RELATIONSHIP}" Target="file://${secret}" TargetMode="External"/>`,
      body: picture('r:link="rIdFile"', 'local'),
    });
    // The control: mammoth with external file access on does read it, so the link is well made.
    const unsafe = await mammoth.convertToHtml({ path: input }, { externalFileAccess: true });
    expect(unsafe.value).toContain(PIXEL_PNG.toString('base64'));
    const ctx = context(ws, 'docx', 'html', { inputPath: input });
    await converter.convert(ctx);
    const html = await readFile(ctx.outputPath, 'utf8');
    expect(html).not.toContain('data:image');
    expect(html).not.toContain(PIXEL_PNG.toString('base64'));
  });

  it('neutralises links whose URL would run script, and keeps ordinary links', async () => {
    const ws = await workspace();
    const hyperlink = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink';
    const input = await craftDocx(ws, 'links.docx', {
      relationships:
        `<Relationship Id="rIdJs" Type="${hyperlink}" Target="javascript:alert(1)" TargetMode="External"/>` +
        `<Relationship Id="rIdWeb" Type="${hyperlink}" Target="https://example.com/" TargetMode="External"/>`,
      body:
        '<w:p><w:hyperlink r:id="rIdJs"><w:r><w:t>click me</w:t></w:r></w:hyperlink></w:p>' +
        '<w:p><w:hyperlink r:id="rIdWeb"><w:r><w:t>example</w:t></w:r></w:hyperlink></w:p>',
    });
    const ctx = context(ws, 'docx', 'html', { inputPath: input });
    await converter.convert(ctx);
    const html = await readFile(ctx.outputPath, 'utf8');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('<a href="#">click me</a>');
    expect(html).toContain('<a href="https://example.com/">example</a>');
  });
});

describe('broken and hostile inputs', () => {
  it('calls a text file named .docx corrupt', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'text.docx');
    await writeFile(input, 'this is not a zip, just text\n');
    await expectCode(converter.convert(context(ws, 'docx', 'html', { inputPath: input })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it('calls a zip of random files renamed .docx corrupt', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'random.docx');
    await writeZip(
      input,
      new Map([
        ['a.txt', Buffer.from('hello')],
        ['b/c.bin', Buffer.from([0, 1, 2, 255])],
      ]),
    );
    for (const to of ['html', 'md', 'txt']) {
      await expectCode(converter.convert(context(ws, 'docx', to, { inputPath: input })), 'CORRUPT_INPUT');
    }
    await expectNoLeftovers(ws);
  });

  it('calls another Office package (xlsx) and broken document XML corrupt', async () => {
    const ws = await workspace();
    const xlsx = context(ws, 'docx', 'html', { inputPath: fixture('fixture.xlsx') });
    const error = await expectCode(converter.convert(xlsx), 'CORRUPT_INPUT');
    expect(error.message).toMatch(/not a readable Word/);
    const entries = await readZip(fixture('fixture.docx'));
    entries.set('word/document.xml', Buffer.from('<w:document><w:body><w:p>'));
    const broken = join(ws.inputs, 'broken.docx');
    await writeZip(broken, entries);
    await expectCode(converter.convert(context(ws, 'docx', 'txt', { inputPath: broken })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it('refuses a legacy .doc (OLE) renamed .docx, and a zip beyond the factory zip limits', async () => {
    const ws = await workspace();
    const strict = withOptionsParsed(createMammothConverter({ zip: { maxUncompressedBytes: 1000 } }));
    await expectCode(strict.convert(context(ws, 'docx', 'html')), 'INPUT_LIMIT_EXCEEDED');
    const cfb = join(ws.inputs, 'legacy.docx');
    await writeFile(cfb, await readFile(fixture('fixture.doc')));
    const error = await expectCode(
      converter.convert(context(ws, 'docx', 'html', { inputPath: cfb })),
      'CORRUPT_INPUT',
    );
    expect(error.message).toMatch(/compound file/);
    await expectNoLeftovers(ws);
  });

  it('refuses a document part past its cap from the zip directory, before mammoth reads it', async () => {
    const ws = await workspace();
    // 400,000 ordinary paragraphs: a 2.4 MB docx whose document.xml inflates to 34 MB, within
    // every zip-bomb limit, past the 24 MiB part cap (parsed, it would take over 512 MB of heap).
    const input = join(ws.inputs, 'large.docx');
    await writeFile(input, await inflatingDocx(400_000));
    const heapBefore = process.memoryUsage().heapUsed;
    const error = await expectCode(
      converter.convert(context(ws, 'docx', 'md', { inputPath: input })),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(error.details).toMatchObject({ reason: 'part-too-large', entry: 'word/document.xml' });
    // Refused from the declared size: nothing was inflated into this heap (a fact of this run).
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 1024 * 1024);
    await expectNoLeftovers(ws);
    // A host that wants such documents raises the cap; the option reaches the check.
    const lenient = withOptionsParsed(
      createMammothConverter({ zip: { maxXmlEntryBytes: 64 * 1024 * 1024 } }),
    );
    const strict = withOptionsParsed(createMammothConverter({ zip: { maxXmlEntryBytes: 1000 } }));
    const small = join(ws.inputs, 'small.docx');
    await writeFile(small, await inflatingDocx(1_000));
    await expectCode(
      strict.convert(context(ws, 'docx', 'txt', { inputPath: small })),
      'INPUT_LIMIT_EXCEEDED',
    );
    const ctx = context(ws, 'docx', 'txt', { inputPath: small });
    await lenient.convert(ctx);
    expect((await readFile(ctx.outputPath, 'utf8')).length).toBeGreaterThan(1_000);
  });
});
