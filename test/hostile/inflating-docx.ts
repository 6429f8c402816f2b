/**
 * fixture.docx with `paragraphs` ordinary numbered paragraphs added to its body: a small file
 * (repetitive text, within the zip-bomb ratio) whose document tree takes hundreds of MB once a
 * library parses it. 400,000 paragraphs: a 2.4 MB docx, 34 MB of XML, more than 512 MB of heap.
 */
import yauzl from 'yauzl';
import yazl from 'yazl';
import { fixture } from '../helpers/temp.js';

function zipEntries(path: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const entries = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(entries));
      zip.readEntry();
    });
  });
}

export async function inflatingDocx(paragraphs: number): Promise<Buffer> {
  const entries = await zipEntries(fixture('fixture.docx'));
  const xml = entries.get('word/document.xml')!.toString('utf8');
  const body = Array.from(
    { length: paragraphs },
    (_, index) =>
      `<w:p><w:r><w:t>Paragraph ${index} of an ordinary report, line ${index * 7}.</w:t></w:r></w:p>`,
  ).join('');
  entries.set('word/document.xml', Buffer.from(xml.replace('<w:sectPr>', `${body}<w:sectPr>`)));
  const zip = new yazl.ZipFile();
  for (const [name, data] of entries) zip.addBuffer(data, name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
