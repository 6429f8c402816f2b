/**
 * Detection of the office formats file-type has no signature for (src/formats/detect-office.ts),
 * on crafted bytes: what must be recognised, and the near misses that must stay what they are
 * (a semicolon CSV starting 'ID;', XML that is not flat ODF, a dBase-like header that does not
 * add up). The real fixtures are checked in formats.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { detectFormat, isContentCompatible } from '../src/core/formats/index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const text = (value: string) => new TextEncoder().encode(value);

async function zipOf(entries: Record<string, string>): Promise<Uint8Array> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries)) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  const parts: Buffer[] = [];
  for await (const chunk of zip.outputStream) parts.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(parts));
}

describe('text office formats', () => {
  it('tells SYLK by its first two records, and leaves a semicolon CSV starting with ID as text', async () => {
    expect(await detectFormat(text('ID;PWXL;N;E\r\nC;Y1;X1;K"name"\r\nE\r\n'))).toBe('slk');
    expect(await detectFormat(text('ID;Price;Name\n1;2.5;pen\n'))).toBe('txt');
    // Declared csv, it is still read as csv.
    expect(isContentCompatible('csv', 'slk')).toBe(true);
  });

  it('tells flat ODF by the root element and its office:mimetype, whatever the prefix', async () => {
    const flat = (prefix: string, mime: string) =>
      text(
        `<?xml version="1.0"?>\n<!-- made by hand -->\n<${prefix}:document xmlns:${prefix}="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ${prefix}:version="1.3" ${prefix}:mimetype="${mime}"><${prefix}:body/></${prefix}:document>`,
      );
    expect(await detectFormat(flat('office', 'application/vnd.oasis.opendocument.text'))).toBe('fodt');
    expect(await detectFormat(flat('o', 'application/vnd.oasis.opendocument.spreadsheet'))).toBe('fods');
    expect(await detectFormat(flat('office', 'application/vnd.oasis.opendocument.presentation'))).toBe(
      'fodp',
    );
    // A flat drawing has no format of its own here; other XML naming ODF's namespace is not ODF.
    expect(await detectFormat(flat('office', 'application/vnd.oasis.opendocument.graphics'))).not.toBe(
      'fodt',
    );
    expect(
      await detectFormat(
        text(
          '<notes xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"><office:document/></notes>',
        ),
      ),
    ).not.toMatch(/^fod/);
  });

  it('tells Excel 2003 XML by its Workbook root in the spreadsheet namespace', async () => {
    const workbook =
      '<?xml version="1.0"?>\n<?mso-application progid="Excel.Sheet"?>\n<ss:Workbook xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet"><ss:Worksheet ss:Name="A"/></ss:Workbook>';
    expect(await detectFormat(text(workbook))).toBe('xmlss');
    expect(await detectFormat(text('<?xml version="1.0"?><Workbook><Sheet/></Workbook>'))).not.toBe('xmlss');
  });
});

describe('binary office formats', () => {
  it('tells a dBase table by a header that adds up, and nothing less', async () => {
    const dbf = readFileSync(join(FIXTURES, 'fixture.dbf'));
    expect(await detectFormat(dbf)).toBe('dbf');
    const wrongLength = Buffer.from(dbf);
    wrongLength[10] = (wrongLength[10] ?? 0) + 1; // the record length no longer matches the fields
    expect(await detectFormat(wrongLength)).toBeUndefined();
    const badType = Buffer.from(dbf);
    badType[32 + 11] = 0x5a; // 'Z' is no field type
    expect(await detectFormat(badType)).toBeUndefined();
  });

  it('tells EMF by its header record and WMF with or without the placeable header', async () => {
    const emf = readFileSync(join(FIXTURES, 'fixture.emf'));
    expect(await detectFormat(emf)).toBe('emf');
    const wmf = readFileSync(join(FIXTURES, 'fixture.wmf'));
    expect(await detectFormat(wmf)).toBe('wmf');
    // Without its 22-byte placeable header a WMF starts with the METAHEADER: type 1, 9 words, 0x0300.
    expect(await detectFormat(wmf.subarray(22))).toBe('wmf');
    const notEmf = Buffer.from(emf);
    notEmf.write('XEMF', 40, 'latin1');
    expect(await detectFormat(notEmf)).not.toBe('emf');
  });
});

describe('zip office formats', () => {
  it('tells a PowerPoint slide show by its content type, and OpenOffice.org 1 files by their mimetype', async () => {
    const show = await zipOf({
      '[Content_Types].xml':
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml"/></Types>',
      'ppt/presentation.xml': '<p:presentation/>',
    });
    expect(await detectFormat(show)).toBe('ppsx');
    expect(isContentCompatible('ppsx', 'pptx')).toBe(true);
    for (const [mime, name] of [
      ['application/vnd.sun.xml.writer', 'sxw'],
      ['application/vnd.sun.xml.calc', 'sxc'],
      ['application/vnd.sun.xml.impress', 'sxi'],
    ] as const) {
      const zip = new yazl.ZipFile();
      zip.addBuffer(Buffer.from(mime), 'mimetype', { compress: false });
      zip.addBuffer(Buffer.from('<office:document-content/>'), 'content.xml');
      zip.end();
      const parts: Buffer[] = [];
      for await (const chunk of zip.outputStream) parts.push(chunk as Buffer);
      expect(await detectFormat(new Uint8Array(Buffer.concat(parts)))).toBe(name);
    }
  });
});
