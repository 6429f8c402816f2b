// Regenerates fixtures/fixture.pages, an Apple Pages '09 (Pages 4) document, from scratch: run from
// the repository root with `node scripts/make-pages-fixture.mjs`. Like make-keynote-fixture.mjs it
// writes the iWork '09 XML format by hand (no Mac, no Pages): a zip holding index.xml, whose root
// is sl:document in the http://developer.apple.com/namespaces/sl namespace (libetonyek's
// PAG1Parser recognises a Pages '09 document by it). The body text is an sf:text-storage of kind
// "body" holding sf:text-body > sf:section > sf:layout > sf:p paragraphs, as Pages writes it; no
// styles are needed for the text to come through. Check it with LibreOffice:
//   soffice --headless --convert-to pdf fixtures/fixture.pages
// gives one page with the two paragraphs. The output is byte-for-byte reproducible.
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import yazl from 'yazl';

const MTIME = new Date('2024-01-01T00:00:00Z');
const PARAGRAPHS = ['fileconv fixture', 'The quick brown fox jumps over the lazy dog.'];

const escapeXml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const index =
  '<?xml version="1.0"?>\n' +
  '<sl:document xmlns:sl="http://developer.apple.com/namespaces/sl" xmlns:sf="http://developer.apple.com/namespaces/sf" xmlns:sfa="http://developer.apple.com/namespaces/sfa" sl:version="92008102400">' +
  '<sf:text-storage sf:kind="body" sfa:ID="SFWPStorage-0"><sf:text-body><sf:section><sf:layout>' +
  PARAGRAPHS.map((text) => `<sf:p>${escapeXml(text)}</sf:p>`).join('') +
  '</sf:layout></sf:section></sf:text-body></sf:text-storage></sl:document>\n';

const zip = new yazl.ZipFile();
zip.addBuffer(Buffer.from(index), 'index.xml', { mtime: MTIME });
zip.end();
const out = createWriteStream('fixtures/fixture.pages');
zip.outputStream.pipe(out);
await finished(out);
console.log('fixtures/fixture.pages');
