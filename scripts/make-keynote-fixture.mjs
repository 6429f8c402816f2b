// Regenerates fixtures/fixture.key, a two-slide Apple Keynote '09 (Keynote 5) presentation, from
// scratch: run from the repository root with `node scripts/make-keynote-fixture.mjs`.
// Check it with LibreOffice, which imports Keynote through libetonyek:
//   soffice -env:UserInstallation=file:///tmp/keyprof --headless --convert-to pdf --outdir /tmp/keyout fixtures/fixture.key
// gives a 2-page PDF, "fileconv fixture" on page 1 and "Second slide" on page 2.
// The output is byte-for-byte reproducible (fixed timestamps, no randomness).
//
// Why the old XML format: Keynote 2-5 (iWork '05-'09) save a zip, or a directory bundle, holding
// index.apxl, an XML document; Keynote 6+ (2013) saves protobuf+snappy .iwa streams, which
// libetonyek reads only partly and which would need a protobuf schema to write. No Mac or Keynote
// is involved: everything below is written by hand, and each element is there because
// libetonyek's KEY2Parser (src/lib/KEY2Parser.cpp, KEY2Token.gperf, IWORK*Element.cpp) reads it.
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import yazl from 'yazl';

const OUT = 'fixtures/fixture.key';
const WIDTH = 1024;
const HEIGHT = 768;
const SLIDES = [
  { title: 'fileconv fixture', body: 'A Keynote presentation generated for tests.' },
  { title: 'Second slide', body: 'Two slides, two text boxes each.' },
];

const NS = {
  key: 'http://developer.apple.com/namespaces/keynote2', // KEY2Token NS_URI_KEY: presentation, slides, themes
  sf: 'http://developer.apple.com/namespaces/sf', // IWORKToken NS_URI_SF: shared drawing/text elements
  sfa: 'http://developer.apple.com/namespaces/sfa', // IWORKToken NS_URI_SFA: ID, IDREF, w, h, x, y
};

const escapeXml = (s) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** An sf:size-like element: IWORKSizeElement reads sfa:w and sfa:h. */
const size = (tag, w, h) => `<${tag} sfa:w="${w}" sfa:h="${h}"/>`;

/**
 * A rectangular text box. libetonyek's DrawablesElement hands sf:shape to IWORKShapeContext, which
 * reads:
 * - sf:path: required. Without it IWORKCollector::collectShape logs "the path is empty" and the
 *   shape is output with no outline, and its text with it: tried with LibreOffice 7.4.7 /
 *   libetonyek 0.1.10, the PDF then has two blank pages. sf:scalar-path with sf:type="0" is a
 *   rounded rectangle (collectRoundedRectanglePath) whose sf:scalar is the corner radius, 0 here;
 *   its sf:size is the path's own extent.
 * - sf:geometry (IWORKGeometryElement): sf:naturalSize, sf:size and sf:position place the shape on
 *   the slide. Optional for the text to come through, but without it every box sits at the origin.
 * - sf:text > sf:text-storage > sf:text-body > sf:p: the text (IWORKTextElement,
 *   IWORKTextStorageElement, IWORKTextBodyElement); each sf:p is a paragraph whose character
 *   content is the text. sf:kind="textbox" is what Keynote writes for a free text box.
 * No sf:style: without a graphic style the shape has no fill and no stroke, and the text uses
 * LibreOffice's default character style, which is all a fixture needs.
 */
function textBox(id, x, y, w, h, text) {
  return `<sf:shape sfa:ID="${id}">
  <sf:geometry>${size('sf:naturalSize', w, h)}${size('sf:size', w, h)}<sf:position sfa:x="${x}" sfa:y="${y}"/></sf:geometry>
  <sf:path><sf:scalar-path sf:type="0" sf:scalar="0">${size('sf:size', w, h)}</sf:scalar-path></sf:path>
  <sf:text><sf:text-storage sf:kind="textbox"><sf:text-body><sf:p>${escapeXml(text)}</sf:p></sf:text-body></sf:text-storage></sf:text>
</sf:shape>`;
}

/**
 * key:page (PageElement) holds sf:size and sf:layers; each sf:layer (LayerElement) becomes a
 * layer of the slide, and its sf:drawables (DrawablesElement) hold the shapes. Drawables placed
 * directly under key:page or key:slide are ignored: only this nesting is read.
 */
function page(layerId, drawables) {
  return `<key:page>${size('sf:size', WIDTH, HEIGHT)}<sf:layers><sf:layer sfa:ID="${layerId}"><sf:drawables>${drawables}</sf:drawables></sf:layer></sf:layers></key:page>`;
}

const MASTER_ID = 'BGMasterSlide-0';

const slides = SLIDES.map(
  // key:slide (SlideElement): one page of the output. key:master-ref (an sfa:IDREF, resolved by
  // IWORKRefContext) ties it to the master slide defined in the theme, as every real Keynote slide is.
  (slide, i) => `<key:slide sfa:ID="BGSlide-${i + 1}">
<key:master-ref sfa:IDREF="${MASTER_ID}"/>
${page(`BGSlideLayer-${i + 1}`, textBox(`BGShape-${i + 1}-title`, 62, 60, 900, 120, slide.title) + textBox(`BGShape-${i + 1}-body`, 62, 240, 900, 400, slide.body))}
</key:slide>`,
).join('\n');

// The document. PresentationElement reads, in this order:
// - The root must be key:presentation in the keynote2 namespace (XMLDocument, probeKeynote2XML).
// - key:version on the root: one of the version strings in KEY2Token.gperf, 2004102100 (Keynote 2),
//   2005112100 (3), 72007061400 (4), 92008102400 (5, i.e. Keynote '09). It picks the dialect:
//   version 2 keeps slide text in key:bullets and placeholders, 3+ in drawables with accumulated
//   transforms (setAccumulateTransformTo(version > 2)). libetonyek 0.1.10 still imported a copy
//   with a made-up version string, but older releases' detection rejects it, so use a real one.
// - key:size: the slide size in points (collectPresentationSize); LibreOffice's page size.
// - key:metadata: title/authors as key:string elements under key:title/key:authors (MetadataElement).
// - key:theme-list > key:theme > key:master-slides > key:master-slide: the master the slides refer
//   to (MasterSlidesElement stores it by sfa:ID). It has an empty layer; a master's drawables would
//   be drawn on every slide.
// - key:slide-list > key:slide: the slides, in order (SlideListElement).
const apxl = `<?xml version="1.0" encoding="UTF-8"?>
<key:presentation xmlns:key="${NS.key}" xmlns:sf="${NS.sf}" xmlns:sfa="${NS.sfa}" key:version="92008102400" sfa:ID="BGShow-0">
${size('key:size', WIDTH, HEIGHT)}
<key:metadata>
<key:title><key:string sfa:string="fileconv fixture"/></key:title>
<key:authors><key:string sfa:string="fileconv"/></key:authors>
</key:metadata>
<key:theme-list>
<key:theme sfa:ID="BGTheme-0">
${size('key:size', WIDTH, HEIGHT)}
<key:master-slides>
<key:master-slide sfa:ID="${MASTER_ID}" key:name="Blank">
${page('BGMasterLayer-0', '')}
</key:master-slide>
</key:master-slides>
</key:theme>
</key:theme-list>
<key:slide-list>
${slides}
</key:slide-list>
</key:presentation>
`;

// The package: a plain zip whose first entry is index.apxl. libetonyek looks the entry up by name
// (EtonyekDocument.cpp detect(): index.apxl, else index.apxl.gz), so the order does not matter to
// it; putting it first lets fileconv's detection (zipPackageKind) see the name in the first local
// header. Keynote '09 saved its single-file format exactly like this (uncompressed XML in a zip);
// the bundle format gzips it as index.apxl.gz instead. Fixed mtime: reproducible output.
const zip = new yazl.ZipFile();
const mtime = new Date(Date.UTC(2009, 0, 6, 12, 0, 0));
zip.addBuffer(Buffer.from(apxl, 'utf8'), 'index.apxl', { mtime, mode: 0o100644, compress: true });
zip.end();
await finished(zip.outputStream.pipe(createWriteStream(OUT)));
console.log(`wrote ${OUT}`);
