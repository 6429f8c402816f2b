/**
 * LibreOffice's PDF export options (issue 31), each result read back by a tool that did not write
 * it: pages and page sizes with pdfinfo, the PDF/A claim, output intent, fonts and encryption with
 * qpdf and pdffonts (test/helpers/pdf-checks.ts), form fields, bookmarks, comments and PDF/UA
 * tagging with qpdf --json, images (size, encoding, bytes) with pdfimages. The inputs are written
 * here as flat ODF (three headed pages, a text field; a noise picture and a comment) and converted
 * to docx and odt by the converter itself. The options' schema is checked without LibreOffice.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import { createLibreOfficeConverter } from '../../src/converters/libreoffice/index.js';
import { LIBREOFFICE } from '../../src/converters/libreoffice/registration.js';
import { parseConversionOptions } from '../../src/core/options.js';
import { REDACTED, withoutWriteOnly } from '../../src/core/secret-options.js';
import { output, pdfPages } from '../helpers/content-readers.js';
import { describeWithEngine } from '../helpers/engines.js';
import { catalogOf, expectPdfA, qpdfObjects } from '../helpers/pdf-checks.js';
import { type Workspace, withOptionsParsed } from './converter-harness.js';
import {
  contextFor,
  DOC_TEXT,
  expectCode,
  fixture,
  LO_AVAILABLE,
  LO_INSTALL,
  passwordOdt,
  readPdf,
  workspace,
} from './libreoffice-helpers.js';

/** Three pages, each opened by a heading (so three bookmarks); page one holds a text field named "customer". */
const FORM_FODT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 xmlns:form="urn:oasis:names:tc:opendocument:xmlns:form:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
 xmlns:ooo="http://openoffice.org/2004/office"
 office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
 <office:automatic-styles>
  <style:style style:name="Break" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/></style:style>
 </office:automatic-styles>
 <office:body><office:text>
  <office:forms form:automatic-focus="false" form:apply-design-mode="false">
   <form:form form:name="Form">
    <form:text form:name="customer" form:id="control1" form:control-implementation="ooo:com.sun.star.form.component.TextField"/>
   </form:form>
  </office:forms>
  <text:h text:outline-level="1">Page one</text:h>
  <text:p><draw:control draw:control="control1" text:anchor-type="as-char" svg:width="5cm" svg:height="0.8cm"/></text:p>
  <text:h text:style-name="Break" text:outline-level="1">Page two</text:h>
  <text:h text:style-name="Break" text:outline-level="1">Page three</text:h>
 </office:text></office:body>
</office:document>
`;

/** The same three pages without the form (a form's widget font is not embedded, so no PDF/A). */
const PLAIN_FODT = FORM_FODT.replace(/<office:forms[\s\S]*<\/office:forms>/, '').replace(
  /<text:p><draw:control[^>]*\/><\/text:p>/,
  '<text:p>Plain text.</text:p>',
);

/**
 * The three pages with a 1200 x 1200 px noise picture (hard to compress, so quality shows) printed
 * 2 inches wide on page one, and a comment.
 */
async function pictureFodt(): Promise<string> {
  const noise = { type: 'gaussian', mean: 128, sigma: 40 } as const;
  const png = await sharp({ create: { width: 1200, height: 1200, channels: 3, background: 'black', noise } })
    .png()
    .toBuffer();
  const picture =
    '<text:p><draw:frame draw:name="picture" text:anchor-type="as-char" svg:width="2in" svg:height="2in">' +
    `<draw:image><office:binary-data>${png.toString('base64')}</office:binary-data></draw:image></draw:frame></text:p>` +
    '<text:p>Noted<office:annotation><text:p>A reviewer note</text:p></office:annotation> text.</text:p>';
  return PLAIN_FODT.replace('<text:h text:style-name="Break"', `${picture}<text:h text:style-name="Break"`);
}

/** The PDF's images as pdfimages -list sees them: pixel width, encoding ('jpeg', 'image' for Flate), bytes. */
async function imagesOf(path: string): Promise<{ width: number; enc: string; bytes: number }[]> {
  const rows = (await output('pdfimages', ['-list', path])).split('\n').slice(2).filter(Boolean);
  return rows.map((row) => {
    const cells = row.trim().split(/\s+/);
    const size = /^([\d.]+)([KMG]?)B?$/.exec(cells[14] ?? '');
    const scale = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[size?.[2] ?? ''] ?? 1;
    return { width: Number(cells[3]), enc: cells[8] ?? '', bytes: Number(size?.[1]) * scale };
  });
}

/** How many comment annotations (/Subtype /Text) the PDF holds. */
function commentCount(path: string): number {
  return Object.values(qpdfObjects(path)).filter((object) => object.value?.['/Subtype'] === '/Text').length;
}

/** Page width and height in points, from pdfinfo (the first page). */
async function pageSize(path: string): Promise<{ width: number; height: number }> {
  const match = /^Page size:\s+([\d.]+) x ([\d.]+) pts/m.exec(await output('pdfinfo', [path]));
  return { width: Number(match?.[1]), height: Number(match?.[2]) };
}

/** The names of the PDF's form fields (the AcroForm's /T entries), as qpdf lists the objects. */
function fieldNames(path: string): string[] {
  const objects = qpdfObjects(path);
  return Object.values(objects)
    .map((object) => object.value)
    .filter((value) => value?.['/FT'] !== undefined)
    .map((value) => String(value?.['/T']).replace(/^u:/, ''));
}

it('declares the PDF export options as a strict schema, refusing what LibreOffice does not take', () => {
  const parse = (to: string, options: Record<string, unknown>) => () =>
    parseConversionOptions(LIBREOFFICE, to, options);
  expect(
    parse('pdf', {
      pageRanges: '1-2,5-',
      pdfa: '2b',
      pdfua: true,
      landscape: true,
      exportFormFields: false,
      exportBookmarks: false,
      exportNotes: true,
      losslessImages: true,
      quality: 75,
      maxImageResolution: 300,
      password: 'pw',
      singlePageSheets: true,
    }),
  ).not.toThrow();
  for (const bad of [
    { pdfa: '4b' },
    { pageRanges: 'first' },
    { quality: 0 },
    { maxImageResolution: 100 },
    { landscape: 'yes' },
    { orientation: 'landscape' },
  ]) {
    expect(parse('pdf', bad), JSON.stringify(bad)).toThrow(/Invalid options for pdf/);
  }
  // The export options belong to PDF; the password opens any input.
  // One page as a number, as the CLI's `--set pageRanges=2` sends it, is that page.
  expect(parseConversionOptions(LIBREOFFICE, 'pdf', { pageRanges: 2 })).toEqual({ pageRanges: '2' });
  expect(parse('pdf', { pageRanges: 0 })).toThrow(/Invalid options for pdf/);
  expect(parse('docx', { pageRanges: '1' })).toThrow(/Invalid options for docx/);
  expect(parse('docx', { password: 'pw' })).not.toThrow();
  expect(parse('csv', { password: 'pw', delimiter: ';' })).not.toThrow();
  // The password is a secret: writeOnly in the JSON Schema, so a finished job keeps none.
  for (const to of ['pdf', 'docx', 'csv']) {
    const schema = LIBREOFFICE.optionsSchema!(to);
    expect(z.toJSONSchema(schema, { io: 'input' }).properties?.password).toMatchObject({ writeOnly: true });
    expect(withoutWriteOnly(schema, { password: 'pw' })).toEqual({ password: REDACTED });
  }
});

describeWithEngine('LibreOffice', LO_AVAILABLE, LO_INSTALL, 'libreoffice PDF export options', () => {
  const converter = withOptionsParsed(createLibreOfficeConverter({ poolSize: 2 }));
  afterAll(() => converter.close());
  // The inputs are made once, in a dir of their own (a test's workspace is removed after it).
  let made: string;
  const inputs = { docx: '', odt: '', plainDocx: '', picture: '' };
  let ws: Workspace;

  beforeAll(async () => {
    made = await mkdtemp(join(tmpdir(), 'fileconv-lo-options-'));
    const form = join(made, 'form.fodt');
    const plain = join(made, 'plain.fodt');
    await writeFile(form, FORM_FODT);
    await writeFile(plain, PLAIN_FODT);
    inputs.picture = join(made, 'picture.fodt');
    await writeFile(inputs.picture, await pictureFodt());
    for (const [source, to, name] of [
      [form, 'docx', 'docx'],
      [form, 'odt', 'odt'],
      [plain, 'docx', 'plainDocx'],
    ] as const) {
      const outputPath = join(made, `${name}.${to}`);
      await converter.convert({ ...contextFor(await workspace(), source, 'fodt', to), outputPath });
      inputs[name] = outputPath;
    }
  });
  afterAll(() => rm(made, { recursive: true, force: true }));
  beforeEach(async () => {
    ws = await workspace();
  });
  // Every conversion's scratch is gone once it returns, failed or not.
  afterEach(async () => {
    expect(await readdir(ws.temp)).toEqual([]);
  });

  async function toPdf(input: string, from: string, options: Record<string, unknown>, name: string) {
    const ctx = { ...contextFor(ws, input, from, 'pdf', name), options };
    await converter.convert(ctx);
    return ctx.outputPath;
  }

  it('exports only the pages of pageRanges', async () => {
    expect(await pdfPages(await toPdf(inputs.docx, 'docx', {}, 'all.pdf'))).toBe(3);
    const one = await toPdf(inputs.docx, 'docx', { pageRanges: '1' }, 'one.pdf');
    expect(await pdfPages(one)).toBe(1);
    expect((await readPdf(one)).text).toContain('Page one');
    const second = await toPdf(inputs.docx, 'docx', { pageRanges: '2' }, 'second.pdf');
    expect((await readPdf(second)).text).toContain('Page two');
    expect((await readPdf(second)).text).not.toContain('Page one');
    // Open ranges as the PDF operations write them: "2-" to the end, "-2" from the start.
    expect(await pdfPages(await toPdf(inputs.docx, 'docx', { pageRanges: '2-' }, 'tail.pdf'))).toBe(2);
    expect(await pdfPages(await toPdf(inputs.docx, 'docx', { pageRanges: '-2' }, 'head.pdf'))).toBe(2);
    expect(await pdfPages(await toPdf(inputs.docx, 'docx', { pageRanges: 'all' }, 'every.pdf'))).toBe(3);
  });

  it('refuses pageRanges that select no page of the document with INVALID_OPTIONS', async () => {
    const error = await expectCode(
      converter.convert({
        ...contextFor(ws, inputs.docx, 'docx', 'pdf', 'none.pdf'),
        options: { pageRanges: '5' },
      }),
      'INVALID_OPTIONS',
    );
    expect(error.message).toMatch(/pageRanges: no page of the document is in "5"/);
  });

  it('writes PDF/A (1b, 2b, 3b): the XMP claims it, fonts are embedded, nothing is encrypted', async () => {
    const plain = await toPdf(inputs.plainDocx, 'docx', {}, 'plain.pdf');
    expect(catalogOf(qpdfObjects(plain))?.['/OutputIntents']).toBeUndefined();
    for (const level of ['1b', '2b', '3b'] as const) {
      const archived = await toPdf(inputs.plainDocx, 'docx', { pdfa: level }, `pdfa-${level}.pdf`);
      // LibreOffice 7.4 writes PDF/A-1 as 1a (tagged), which is 1b and more.
      expectPdfA(archived, level, level === '1b' ? 'A' : 'B');
      expect(await pdfPages(archived)).toBe(3);
    }
  });

  it('exports an odt form field as a PDF form field, and only its look with exportFormFields: false', async () => {
    const fields = await toPdf(inputs.odt, 'odt', {}, 'fields.pdf');
    expect(fieldNames(fields)).toEqual(['customer']);
    const flat = await toPdf(inputs.odt, 'odt', { exportFormFields: false }, 'flat.pdf');
    expect(fieldNames(flat)).toEqual([]);
    expect(await pdfPages(flat)).toBe(3);
  });

  it('exports headings as bookmarks unless exportBookmarks is false', async () => {
    const outlines = (path: string) => catalogOf(qpdfObjects(path))?.['/Outlines'];
    expect(outlines(await toPdf(inputs.docx, 'docx', {}, 'marks.pdf'))).toBeDefined();
    expect(
      outlines(await toPdf(inputs.docx, 'docx', { exportBookmarks: false }, 'nomarks.pdf')),
    ).toBeUndefined();
  });

  it('turns portrait pages landscape: a document by its page styles, a spreadsheet too', async () => {
    const portrait = await pageSize(await toPdf(inputs.odt, 'odt', {}, 'portrait.pdf'));
    expect(portrait.width).toBeLessThan(portrait.height);
    const landscape = await pageSize(await toPdf(inputs.odt, 'odt', { landscape: true }, 'landscape.pdf'));
    expect(landscape).toEqual({ width: portrait.height, height: portrait.width });
    const sheet = await pageSize(
      await toPdf(fixture('fixture.xlsx'), 'xlsx', { landscape: true }, 'sheet.pdf'),
    );
    expect(sheet.width).toBeGreaterThan(sheet.height);
  });

  it('opens a password-protected odt with password, and refuses a wrong one with PASSWORD_PROTECTED', async () => {
    const locked = join(ws.inputs, 'locked.odt');
    await passwordOdt(locked, 's3cret pw');
    await expectCode(
      converter.convert(contextFor(ws, locked, 'odt', 'pdf', 'none.pdf')),
      'PASSWORD_PROTECTED',
    );
    await expectCode(
      converter.convert({
        ...contextFor(ws, locked, 'odt', 'pdf', 'wrong.pdf'),
        options: { password: 'nope' },
      }),
      'PASSWORD_PROTECTED',
    );
    const opened = await toPdf(locked, 'odt', { password: 's3cret pw' }, 'opened.pdf');
    for (const line of DOC_TEXT) expect((await readPdf(opened)).text).toContain(line);
    // Not only to PDF: the password opens the input whatever the target.
    const text = {
      ...contextFor(ws, locked, 'odt', 'txt', 'opened.txt'),
      options: { password: 's3cret pw' },
    };
    await converter.convert(text);
    expect(await readFile(text.outputPath, 'utf8')).toContain(DOC_TEXT[1]);
  });

  it('downsamples, compresses and keeps images as maxImageResolution, quality and losslessImages say', async () => {
    const picture = (options: Record<string, unknown>, name: string) =>
      toPdf(inputs.picture, 'fodt', options, name).then(imagesOf);
    const [sharpest] = await picture({ quality: 100 }, 'q100.pdf');
    const [coarse] = await picture({ quality: 10 }, 'q10.pdf');
    const [small] = await picture({ maxImageResolution: 75 }, 'dpi75.pdf');
    const [lossless] = await picture({ losslessImages: true }, 'lossless.pdf');
    expect(sharpest?.enc).toBe('jpeg');
    expect(coarse?.enc).toBe('jpeg');
    expect(coarse!.bytes).toBeLessThan(sharpest!.bytes / 4);
    // 2 inches at 75 DPI: 150 px of the 1200.
    expect(small?.width).toBe(150);
    expect(sharpest!.width).toBeGreaterThan(150);
    expect(lossless?.enc).toBe('image'); // Flate, not JPEG
  });

  it('exports comments only with exportNotes, and tags PDF/UA with pdfua', async () => {
    expect(commentCount(await toPdf(inputs.picture, 'fodt', {}, 'plain.pdf'))).toBe(0);
    expect(commentCount(await toPdf(inputs.picture, 'fodt', { exportNotes: true }, 'notes.pdf'))).toBe(1);
    const accessible = await toPdf(inputs.docx, 'docx', { pdfua: true }, 'ua.pdf');
    const objects = qpdfObjects(accessible);
    const catalog = catalogOf(objects);
    expect(catalog?.['/StructTreeRoot']).toBeDefined();
    const metadataRef = String(catalog?.['/Metadata']).split(' ')[0];
    const xmp = await output('qpdf', [`--show-object=${metadataRef}`, '--filtered-stream-data', accessible]);
    expect(xmp).toMatch(/pdfuaid:part(>|=')1/);
  });

  it('puts each sheet on one page of its own size with singlePageSheets', async () => {
    const paged = await toPdf(fixture('fixture.xlsx'), 'xlsx', {}, 'paged.pdf');
    const single = await toPdf(fixture('fixture.xlsx'), 'xlsx', { singlePageSheets: true }, 'single.pdf');
    expect(await pdfPages(single)).toBe(2);
    // An A4 page for the small sheet by default; a page as large as its cells with the option.
    expect((await pageSize(single)).height).toBeLessThan((await pageSize(paged)).height / 4);
  });
});

describeWithEngine(
  'LibreOffice',
  LO_AVAILABLE,
  LO_INSTALL,
  'libreoffice PDF export options (cold mode)',
  () => {
    const converter = withOptionsParsed(createLibreOfficeConverter({ mode: 'cold' }));
    afterAll(() => converter.close());

    it('passes the export options to a cold soffice, and refuses what only the pool can apply', async () => {
      const ws = await workspace();
      const input = join(ws.inputs, 'plain.fodt');
      await writeFile(input, PLAIN_FODT);
      const ctx = {
        ...contextFor(ws, input, 'fodt', 'pdf', 'cold.pdf'),
        options: { pageRanges: '2', pdfa: '2b' },
      };
      await converter.convert(ctx);
      expect(await pdfPages(ctx.outputPath)).toBe(1);
      expectPdfA(ctx.outputPath, '2b');
      const error = await expectCode(
        converter.convert({
          ...contextFor(ws, input, 'fodt', 'pdf', 'turned.pdf'),
          options: { landscape: true },
        }),
        'ENGINE_UNAVAILABLE',
      );
      expect(error.message).toMatch(/landscape need the warm pool/);
      expect(await readdir(ws.temp)).toEqual([]);
    });
  },
);
