// Regenerates fixtures/fixture.vsdx, a one-page Visio 2013 drawing, from scratch: run from the
// repository root with `node scripts/make-visio-fixture.mjs`. No Visio is involved and no packaged
// tool writes the format (libvisio, which LibreOffice reads it with, only reads), so the package
// is laid out here after Microsoft's [MS-VSDX] specification: an OPC zip whose
// [Content_Types].xml names visio/document.xml as application/vnd.ms-visio.drawing.main+xml,
// relationships from the package to the document, from the document to pages/pages.xml and from
// that to each page; a page holds shapes, each with its cells (position, size), a Geometry
// section (the outline, row by row) and its text. Check it with LibreOffice:
//   soffice --headless --convert-to pdf fixtures/fixture.vsdx
// gives one page with both texts. The output is byte-for-byte reproducible (fixed timestamps).
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import yazl from 'yazl';

const MTIME = new Date('2024-01-01T00:00:00Z');
const MAIN = 'http://schemas.microsoft.com/office/visio/2012/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const REL = 'http://schemas.microsoft.com/visio/2010/relationships';
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

const relationships = (id, type, target) =>
  `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="${id}" Type="${type}" Target="${target}"/></Relationships>`;

/** A rectangle of `w` x `h` inches centred at (`x`, `y`) with `text` in it; Visio measures in inches from the bottom left. */
function rectangle(id, x, y, w, h, text) {
  const cell = (name, value) => `<Cell N="${name}" V="${value}"/>`;
  const row = (type, ix, px, py) => `<Row T="${type}" IX="${ix}">${cell('X', px)}${cell('Y', py)}</Row>`;
  return (
    `<Shape ID="${id}" Type="Shape">` +
    cell('PinX', x) +
    cell('PinY', y) +
    cell('Width', w) +
    cell('Height', h) +
    cell('LocPinX', w / 2) +
    cell('LocPinY', h / 2) +
    `<Section N="Geometry" IX="0">${row('MoveTo', 1, 0, 0)}${row('LineTo', 2, w, 0)}${row('LineTo', 3, w, h)}${row('LineTo', 4, 0, h)}${row('LineTo', 5, 0, 0)}</Section>` +
    `<Text>${text}</Text></Shape>`
  );
}

const page = `${XML}<PageContents xmlns="${MAIN}" xmlns:r="${R}"><Shapes>${rectangle(1, 4.25, 8, 5, 1, 'fileconv diagram')}${rectangle(2, 4.25, 5, 5, 1, 'A Visio shape with text.')}</Shapes></PageContents>`;

const ENTRIES = {
  '[Content_Types].xml': `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/visio/document.xml" ContentType="application/vnd.ms-visio.drawing.main+xml"/><Override PartName="/visio/pages/pages.xml" ContentType="application/vnd.ms-visio.pages+xml"/><Override PartName="/visio/pages/page1.xml" ContentType="application/vnd.ms-visio.page+xml"/></Types>`,
  '_rels/.rels': relationships('rId1', `${REL}/document`, 'visio/document.xml'),
  'visio/document.xml': `${XML}<VisioDocument xmlns="${MAIN}" xmlns:r="${R}"/>`,
  'visio/_rels/document.xml.rels': relationships('rId1', `${REL}/pages`, 'pages/pages.xml'),
  'visio/pages/pages.xml': `${XML}<Pages xmlns="${MAIN}" xmlns:r="${R}"><Page ID="0" NameU="Page-1" Name="Page-1"><PageSheet><Cell N="PageWidth" V="8.5"/><Cell N="PageHeight" V="11"/></PageSheet><Rel r:id="rId1"/></Page></Pages>`,
  'visio/pages/_rels/pages.xml.rels': relationships('rId1', `${REL}/page`, 'page1.xml'),
  'visio/pages/page1.xml': page,
};

const zip = new yazl.ZipFile();
for (const [name, data] of Object.entries(ENTRIES)) zip.addBuffer(Buffer.from(data), name, { mtime: MTIME });
zip.end();
const out = createWriteStream('fixtures/fixture.vsdx');
zip.outputStream.pipe(out);
await finished(out);
console.log('fixtures/fixture.vsdx');
