import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CHROMIUM_INSTALL, createChromiumConverter } from '../../src/converters/chromium/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { zipBytes } from '../helpers/zip.js';
import {
  CHROMIUM_FOUND,
  dejaVuFace,
  expectSize,
  pdfInfo,
  pdfText,
  run,
  wordBoxes,
} from './chromium-helpers.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const AVAILABLE = CHROMIUM_FOUND;

/**
 * A face no fallback would pick for normal-weight upright text (condensed, bold, italic), read
 * from the dejavu-fonts-ttf dev dependency at test time: so the font in the PDF can only be the
 * zip's.
 */
const FONT = dejaVuFace('DejaVuSerifCondensed-BoldItalic.ttf');

/** A 2x2 red PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8DAwMDAxMDAAAAjhgMBGyuxGwAAAABJRU5ErkJggg==',
  'base64',
);

const STYLE = `@font-face { font-family: 'ZipFace'; src: url('../fonts/zip-face.ttf') format('truetype'); }
@page { margin: 30mm; }
body { margin: 0; font-family: sans-serif; }
.grid { display: grid; grid-template-columns: 1fr 1fr 1fr; gap: 8px; }
.flex { display: flex; justify-content: space-between; }
.face { font-family: 'ZipFace'; font-size: 18px; }
.hidden { display: none; }
`;

const PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="css/style.css"></head><body>
<div class="grid"><div>Grid cell alpha</div><div>Grid cell beta</div><div>Grid cell gamma</div></div>
<div class="flex"><span>Flex left</span><span>Flex right</span></div>
<p class="face">Zipped face text</p>
<p class="hidden">Hidden by the stylesheet</p>
<img src="images/red.png" width="40" height="40">
</body></html>`;

function site(page = PAGE, prefix = ''): Map<string, Buffer> {
  return new Map([
    [`${prefix}index.html`, Buffer.from(page)],
    [`${prefix}css/style.css`, Buffer.from(STYLE)],
    [`${prefix}fonts/zip-face.ttf`, FONT],
    [`${prefix}images/red.png`, PNG],
  ]);
}

async function zipContext(
  ws: Workspace,
  entries: ReadonlyMap<string, Buffer>,
  to: string,
  options: Record<string, unknown> = {},
) {
  const inputPath = join(ws.inputs, `site-${Math.random().toString(36).slice(2)}.zip`);
  await writeFile(inputPath, await zipBytes(entries));
  return context(ws, 'htmlzip', to, { inputPath, options, outputPath: join(ws.outputs, `out.${to}`) });
}

describeWithEngine('chromium', AVAILABLE, CHROMIUM_INSTALL, 'chromium converter: zipped pages', () => {
  const blocked: string[] = [];
  const converter = withOptionsParsed(createChromiumConverter({ onBlocked: (what) => blocked.push(what) }));
  afterAll(() => converter.close());

  it('renders grid, flexbox, the zip’s web font, its image and @page margins to an A4 PDF', async () => {
    const ws = await workspace();
    const ctx = await zipContext(ws, site(), 'pdf');
    await converter.convert(ctx);
    const info = await pdfInfo(ctx.outputPath);
    expect(info.pages).toBe(1);
    expectSize(info.size, [595.28, 841.89]);
    const text = await pdfText(ctx.outputPath);
    expect(text).toMatch(/Grid cell alpha\s+Grid cell beta\s+Grid cell gamma/);
    expect(text).toMatch(/Flex left\s+Flex right/);
    expect(text).toContain('Zipped face text');
    expect(text).not.toContain('Hidden by the stylesheet'); // the stylesheet was applied
    const fonts = (await run('pdffonts', [ctx.outputPath])).stdout;
    // Subset prefix, the font's own name, then ... emb(edded) yes.
    expect(fonts).toMatch(/\+DejaVuSerifCondensed-BoldItalic\s.*\syes/);
    // @page { margin: 30mm }: no word starts left of or above 85 pt.
    const boxes = await wordBoxes(ctx.outputPath);
    expect(boxes.length).toBeGreaterThan(5);
    const left = Math.min(...boxes.map((box) => box.xMin));
    const top = Math.min(...boxes.map((box) => box.yMin));
    expect(left).toBeGreaterThan(84);
    expect(left).toBeLessThan(90);
    expect(top).toBeGreaterThan(84);
    const images = (await run('pdfimages', ['-list', ctx.outputPath])).stdout;
    expect(images).toMatch(/^\s+1\s+0\s+image\s+2\s+2\s/m);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('prints Letter when asked, and finds index.html in the zip’s one top folder', async () => {
    const ws = await workspace();
    const ctx = await zipContext(ws, site(PAGE, 'my-site/'), 'pdf', { paper: 'Letter' });
    await converter.convert(ctx);
    expectSize((await pdfInfo(ctx.outputPath)).size, [612, 792]);
    expect(await pdfText(ctx.outputPath)).toContain('Zipped face text');
    const fonts = (await run('pdffonts', [ctx.outputPath])).stdout;
    expect(fonts).toContain('DejaVuSerifCondensed-BoldItalic');
  });

  it('puts page numbers in a footer of a two-page zipped page', async () => {
    const ws = await workspace();
    const page = `<link rel="stylesheet" href="css/style.css"><p>First page</p><p style="break-before: page">Second page</p>`;
    const footer =
      '<div style="font-size: 10px; width: 100%; text-align: center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';
    const ctx = await zipContext(ws, site(page), 'pdf', { footerTemplate: footer });
    await converter.convert(ctx);
    expect((await pdfInfo(ctx.outputPath)).pages).toBe(2);
    const text = await pdfText(ctx.outputPath);
    expect(text).toContain('Page 1 of 2');
    expect(text).toContain('Page 2 of 2');
  });

  it('takes a screenshot of a zipped page', async () => {
    const ws = await workspace();
    const ctx = await zipContext(ws, site(), 'png', { width: 640, height: 480, fullPage: false });
    await converter.convert(ctx);
    const { stdout } = await run('identify', ['-format', '%m %w %h', ctx.outputPath]);
    expect(stdout).toBe('PNG 640 480');
  });

  it('gives a page climbing out of the zip with ../ nothing of the machine, and renders the rest', async () => {
    const ws = await workspace();
    blocked.length = 0;
    const page = `<p>Still here</p>
<img src="../../etc/passwd">
<img src="/etc/passwd">
<img src="%2e%2e/%2e%2e/etc/passwd">
<img src="..%2f..%2fetc%2fpasswd">
<link rel="stylesheet" href="../../../../etc/passwd">
<iframe src="../../etc/passwd"></iframe>
<iframe src="file:///etc/passwd"></iframe>
<object data="../../etc/hostname"></object>`;
    const ctx = await zipContext(ws, site(page), 'pdf');
    await converter.convert(ctx);
    const text = await pdfText(ctx.outputPath);
    expect(text).toContain('Still here');
    expect(text).not.toContain('root:');
    expect(blocked).toEqual(
      expect.arrayContaining(['http://fileconv.invalid/etc/passwd', 'http://fileconv.invalid/etc/hostname']),
    );
    // Whatever was asked for, only the zip's origin was ever looked up.
    for (const what of blocked) expect(what).toMatch(/^(http:\/\/fileconv\.invalid\/|file:)/);
  });

  it('refuses a zip without index.html (CORRUPT_INPUT), starting no page', async () => {
    const ws = await workspace();
    const entries = new Map([
      ['one/index.html', Buffer.from('<p>one</p>')],
      ['two/index.html', Buffer.from('<p>two</p>')],
    ]);
    const error = await expectCode(converter.convert(await zipContext(ws, entries, 'pdf')), 'CORRUPT_INPUT');
    expect(error.message).toContain('index.html');
    await expectCode(
      converter.convert(await zipContext(ws, new Map([['page.html', Buffer.from('<p>x</p>')]]), 'pdf')),
      'CORRUPT_INPUT',
    );
    await expectNoLeftovers(ws);
  });

  it('applies the zip-bomb rules: entries, inflated size, and an entry larger than its header says', async () => {
    const ws = await workspace();
    const few = withOptionsParsed(createChromiumConverter({ zip: { maxEntries: 3 } }));
    const error = await expectCode(few.convert(await zipContext(ws, site(), 'pdf')), 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ reason: 'zip-bomb' });
    await few.close();
    const small = withOptionsParsed(createChromiumConverter({ zip: { maxUncompressedBytes: 10_000 } }));
    await expectCode(small.convert(await zipContext(ws, site(), 'pdf')), 'INPUT_LIMIT_EXCEEDED');
    await small.close();
    // An entry whose header declares 5 bytes but inflates to 200 KB: caught when the page asks for it.
    const liar = await zipBytes(
      new Map([
        ['index.html', Buffer.from('<link rel="stylesheet" href="big.css"><p>x</p>')],
        ['big.css', Buffer.alloc(200_000, 0x20)],
      ]),
    );
    // The last central directory record is big.css's; its uncompressed size sits at +24.
    const directory = liar.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    liar.writeUInt32LE(5, directory + 24);
    const inputPath = join(ws.inputs, 'liar.zip');
    await writeFile(inputPath, liar);
    const lying = context(ws, 'htmlzip', 'pdf', { inputPath, outputPath: join(ws.outputs, 'liar.pdf') });
    const bomb = await expectCode(converter.convert(lying), 'INPUT_LIMIT_EXCEEDED');
    expect(bomb.details).toMatchObject({ reason: 'zip-bomb' });
    await expectNoLeftovers(ws);
  });
});
