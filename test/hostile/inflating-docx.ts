/**
 * fixture.docx with `paragraphs` ordinary numbered paragraphs added to its body: a small file
 * (repetitive text, within the zip-bomb ratio) whose document tree takes hundreds of MB once a
 * library parses it. 400,000 paragraphs: a 2.4 MB docx, 34 MB of XML, more than 512 MB of heap.
 */
import { fixture } from '../helpers/temp.js';
import { readZip, zipBytes } from '../helpers/zip.js';

export async function inflatingDocx(paragraphs: number): Promise<Buffer> {
  const entries = await readZip(fixture('fixture.docx'));
  const xml = entries.get('word/document.xml')!.toString('utf8');
  const body = Array.from(
    { length: paragraphs },
    (_, index) =>
      `<w:p><w:r><w:t>Paragraph ${index} of an ordinary report, line ${index * 7}.</w:t></w:r></w:p>`,
  ).join('');
  entries.set('word/document.xml', Buffer.from(xml.replace('<w:sectPr>', `${body}<w:sectPr>`)));
  return zipBytes(entries);
}
