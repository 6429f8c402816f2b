// Regenerates fixtures/fixture.sxw, .sxc and .sxi: OpenOffice.org 1.x (StarOffice XML) documents,
// written from scratch by this script. LibreOffice 7.4 still reads the format but no longer writes
// it, and no other writer is packaged here, so the files are written from the format's spec, the
// "OpenOffice.org XML File Format 1.0" (2002): a zip whose first entry 'mimetype' is stored
// uncompressed and names the type, a META-INF/manifest.xml, and content.xml in the
// http://openoffice.org/2000/* namespaces with office:class saying what the document is.
// Run from the repository root with `node scripts/make-staroffice-fixtures.mjs`. Check with
//   soffice --headless --convert-to pdf --outdir /tmp/sx fixtures/fixture.sxw   (and .sxc, .sxi)
// The output is byte-for-byte reproducible (fixed timestamps).
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import yazl from 'yazl';

const MTIME = new Date('2024-01-01T00:00:00Z');
const NS = [
  'xmlns:office="http://openoffice.org/2000/office"',
  'xmlns:style="http://openoffice.org/2000/style"',
  'xmlns:text="http://openoffice.org/2000/text"',
  'xmlns:table="http://openoffice.org/2000/table"',
  'xmlns:draw="http://openoffice.org/2000/drawing"',
  'xmlns:presentation="http://openoffice.org/2000/presentation"',
  'xmlns:fo="http://www.w3.org/1999/XSL/Format"',
  'xmlns:svg="http://www.w3.org/2000/svg"',
].join(' ');

const escapeXml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const p = (text) => `<text:p>${escapeXml(text)}</text:p>`;

/** content.xml of a document of `kind` (office:class) with `body` inside office:body. */
const content = (kind, body) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content ${NS} office:class="${kind}" office:version="1.0"><office:body>${body}</office:body></office:document-content>\n`;

const manifest = (mime) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="http://openoffice.org/2001/manifest">
 <manifest:file-entry manifest:media-type="${mime}" manifest:full-path="/"/>
 <manifest:file-entry manifest:media-type="text/xml" manifest:full-path="content.xml"/>
</manifest:manifest>
`;

// The same words as the other office fixtures (scripts/office/fixture.fodt, .fods, .fodp).
const text = `<text:h text:level="1">fileconv fixture</text:h>${p('The quick brown fox jumps over the lazy dog.')}${p('Привет мир')}`;

const cell = (value) =>
  typeof value === 'number'
    ? `<table:table-cell table:value-type="float" table:value="${value}">${p(String(value))}</table:table-cell>`
    : `<table:table-cell table:value-type="string">${p(value)}</table:table-cell>`;
const sheet = (name, rows) =>
  `<table:table table:name="${name}">${rows.map((row) => `<table:table-row>${row.map(cell).join('')}</table:table-row>`).join('')}</table:table>`;
const sheets =
  sheet('Data', [
    ['name', 'value', 'note'],
    ['alpha', 1, 'comma, inside'],
    ['beta', 2.5, 'line with "quotes"'],
    ['gamma', -3, 'café'],
  ]) +
  sheet('Second', [
    ['city', 'population'],
    ['Paris', 2102650],
    ['Москва', 13010112],
  ]);

/** A slide: a text box with the title and one with the body (draw:text-box, as Impress 1.x wrote them). */
const slide = (n, title, body) =>
  `<draw:page draw:name="page${n}" draw:master-page-name="Default">` +
  `<draw:text-box svg:x="2cm" svg:y="1.5cm" svg:width="24cm" svg:height="3cm">${p(title)}</draw:text-box>` +
  `<draw:text-box svg:x="2cm" svg:y="6cm" svg:width="24cm" svg:height="8cm">${p(body)}</draw:text-box>` +
  '</draw:page>';
const slides =
  slide(1, 'fileconv fixture', 'A presentation in the StarOffice XML format.') +
  slide(2, 'Second slide', 'Привет from slide two.');

const DOCUMENTS = [
  ['sxw', 'application/vnd.sun.xml.writer', content('text', text)],
  ['sxc', 'application/vnd.sun.xml.calc', content('spreadsheet', sheets)],
  ['sxi', 'application/vnd.sun.xml.impress', content('presentation', slides)],
];

for (const [extension, mime, body] of DOCUMENTS) {
  const zip = new yazl.ZipFile();
  // The spec's rule: 'mimetype' first and stored, so its name and type sit at fixed offsets.
  zip.addBuffer(Buffer.from(mime), 'mimetype', { compress: false, mtime: MTIME });
  zip.addBuffer(Buffer.from(body), 'content.xml', { mtime: MTIME });
  zip.addBuffer(Buffer.from(manifest(mime)), 'META-INF/manifest.xml', { mtime: MTIME });
  zip.end();
  const out = createWriteStream(`fixtures/fixture.${extension}`);
  zip.outputStream.pipe(out);
  await finished(out);
  console.log(`fixtures/fixture.${extension}`);
}
