/**
 * Hostile and broken inputs through the LibreOffice pool: documents linking remote and local
 * resources (an HTTP listener must see no request, a linked local image must not reach the PDF),
 * decompression bombs refused before LibreOffice opens anything, a zip of random files named
 * .docx and a truncated xlsx (CORRUPT_INPUT), and a password-protected document
 * (PASSWORD_PROTECTED), each leaving nothing behind.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import yazl from 'yazl';
import { createLibreOfficeConverter } from '../../src/converters/libreoffice/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  contextFor,
  DOC_TEXT,
  docxWithPicture,
  encryptedOdt,
  expectCode,
  expectNoLeftovers,
  fixture,
  LO_AVAILABLE,
  LO_INSTALL,
  pdfImageCount,
  readPdf,
  recordingServer,
  workspace,
} from './libreoffice-helpers.js';

let dir: string;
let listener: Awaited<ReturnType<typeof recordingServer>>;
let png: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileconv-lo-safety-'));
  listener = await recordingServer();
  png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#c02020' } })
    .png()
    .toBuffer();
});
afterAll(async () => {
  listener?.server.close();
  await rm(dir, { recursive: true, force: true });
});

async function zipOf(path: string, entries: Record<string, Buffer>): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries)) zip.addBuffer(data, name);
  zip.end();
  const parts: Buffer[] = [];
  for await (const chunk of zip.outputStream) parts.push(chunk as Buffer);
  await writeFile(path, Buffer.concat(parts));
}

describeWithEngine('LibreOffice', LO_AVAILABLE, LO_INSTALL, 'libreoffice safety', () => {
  const converter = withOptionsParsed(createLibreOfficeConverter({ poolSize: 2 }));
  afterAll(() => converter.close());

  it('embeds an image that is inside the docx (the control for the tests below)', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'embedded.docx');
    await docxWithPicture(input, { png });
    const ctx = contextFor(ws, input, 'docx', 'pdf');
    await converter.convert(ctx);
    expect(await pdfImageCount(ctx.outputPath)).toBe(1);
  });

  it.each(['r:link', 'r:embed'] as const)(
    'never fetches an external image a docx links with %s',
    async (attribute) => {
      const ws = await workspace();
      const input = join(ws.inputs, 'linked.docx');
      await docxWithPicture(input, { url: `http://127.0.0.1:${listener.port}/x.png`, attribute });
      const ctx = contextFor(ws, input, 'docx', 'pdf');
      await converter.convert(ctx);
      const { text } = await readPdf(ctx.outputPath);
      for (const line of DOC_TEXT) expect(text).toContain(line);
      expect(listener.requests).toEqual([]);
    },
  );

  it('never embeds a local file a docx links to', async () => {
    const ws = await workspace();
    const secret = join(dir, 'secret.png');
    await writeFile(secret, png);
    const input = join(ws.inputs, 'local.docx');
    await docxWithPicture(input, { url: `file://${secret}`, attribute: 'r:link' });
    const ctx = contextFor(ws, input, 'docx', 'pdf');
    await converter.convert(ctx);
    expect(await pdfImageCount(ctx.outputPath)).toBe(0);
  });

  it('never fetches what an HTML page references: images, stylesheets, frames, objects', async () => {
    const ws = await workspace();
    const base = `http://127.0.0.1:${listener.port}`;
    const input = join(ws.inputs, 'page.html');
    await writeFile(
      input,
      `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="${base}/style.css">
<style>@import url("${base}/import.css");</style></head><body><p>fileconv page</p>
<img src="${base}/image.png"><iframe src="${base}/frame.html"></iframe><embed src="${base}/embed.svg">
<object data="${base}/object.png"></object><p style="background-image:url(${base}/bg.png)">background</p>
<table background="${base}/table.png"><tr><td>cell</td></tr></table></body></html>`,
    );
    const ctx = contextFor(ws, input, 'html', 'pdf');
    await converter.convert(ctx);
    expect((await readPdf(ctx.outputPath)).text).toContain('fileconv page');
    expect(listener.requests).toEqual([]);
  });

  it('refuses a decompression bomb before LibreOffice opens it', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'bomb.docx');
    const docx = await readFile(fixture('fixture.docx'));
    // A valid docx plus one 64 MB part of zeros: it deflates about 1000:1.
    await zipOf(input, { 'word/padding.bin': Buffer.alloc(64 * 1024 * 1024), 'inner.docx': docx });
    const error = await expectCode(
      converter.convert(contextFor(ws, input, 'docx', 'pdf')),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(error.details).toMatchObject({ reason: 'zip-bomb' });
    await expectNoLeftovers(ws);
  });

  it('fails a zip of random files named .docx with CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'random.docx');
    const noise = (size: number) =>
      Buffer.from(Array.from({ length: size }, (_, i) => (i * 7919 + 13) % 251));
    await zipOf(input, { 'a.bin': noise(4096), 'b/c.dat': noise(1000), 'readme.txt': Buffer.from('hello') });
    const error = await expectCode(converter.convert(contextFor(ws, input, 'docx', 'pdf')), 'CORRUPT_INPUT');
    expect(error.message).toMatch(/LibreOffice could not open/);
    await expectNoLeftovers(ws);
  });

  it('fails a truncated xlsx with CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'truncated.xlsx');
    const bytes = await readFile(fixture('fixture.xlsx'));
    await writeFile(input, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expectCode(converter.convert(contextFor(ws, input, 'xlsx', 'pdf')), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it('fails a password-protected document with PASSWORD_PROTECTED, without waiting for a password', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'encrypted.odt');
    await encryptedOdt(input);
    const error = await expectCode(
      converter.convert(contextFor(ws, input, 'odt', 'pdf')),
      'PASSWORD_PROTECTED',
    );
    expect(error.message).toMatch(/password/);
    await expectNoLeftovers(ws);
    // The worker is fine afterwards.
    await converter.convert(contextFor(ws, fixture('fixture.odt'), 'odt', 'pdf'));
  });

  it('fails an empty file with CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'empty.rtf');
    await writeFile(input, '');
    await expectCode(converter.convert(contextFor(ws, input, 'rtf', 'pdf')), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });
});
