/**
 * What the LibreOffice tests share: whether LibreOffice runs here, reading results back (PDF text
 * and pages with pdf.js, workbooks with exceljs), crafted inputs (zips rewritten entry by entry),
 * a listener that records every HTTP request, and process liveness from /proc.
 */
import { createCipheriv, createHash, pbkdf2Sync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { createLibreOfficeConverter, LIBREOFFICE_INSTALL } from '../../src/converters/libreoffice/index.js';
import type { ConvertContext } from '../../src/core/ports/index.js';
import { readZip } from '../helpers/zip.js';
import { context, FIXTURES, type Workspace, withOptionsParsed } from './converter-harness.js';

export { context, expectCode, expectNoLeftovers, FIXTURES, fixture, workspace } from './converter-harness.js';

const probe = withOptionsParsed(createLibreOfficeConverter());
const availability = await probe.available();
await probe.close();

/** LibreOffice with the warm pool (python3-uno): what CI installs. */
export const LO_AVAILABLE = availability.ok && /warm pool/.test(availability.version ?? '');
export const LO_INSTALL = LIBREOFFICE_INSTALL;
export const LO_VERSION = availability.version;

/** The fixtures' text (scripts/office/fixture.fodt, .fods, .fodp). */
export const DOC_TEXT = ['fileconv fixture', 'The quick brown fox jumps over the lazy dog.', 'Привет мир'];
/** The rows of the spreadsheet fixtures' two sheets. */
export const DATA_ROWS = [
  ['name', 'value', 'note'],
  ['alpha', '1', 'comma, inside'],
  ['beta', '2.5', 'line with "quotes"'],
  ['gamma', '-3', 'café'],
];
export const SECOND_ROWS = [
  ['city', 'population'],
  ['Paris', '2102650'],
  ['Москва', '13010112'],
];

/** Page count and the text of every page, joined, as pdf.js extracts it. */
export async function readPdf(path: string): Promise<{ pages: number; text: string }> {
  const doc = await getDocument({ data: new Uint8Array(await readFile(path)), verbosity: 0 }).promise;
  try {
    const texts: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      texts.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
    }
    return { pages: doc.numPages, text: texts.join('\n').replace(/\s+/g, ' ') };
  } finally {
    await doc.destroy();
  }
}

/** Every cell of every sheet of an xlsx, as text rows: { Data: [['name', 'value', 'note'], ...] }. */
export async function readWorkbook(path: string): Promise<Record<string, string[][]>> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const sheets: Record<string, string[][]> = {};
  for (const sheet of workbook.worksheets) {
    const rows: string[][] = [];
    sheet.eachRow((row) => {
      const values = Array.isArray(row.values) ? row.values.slice(1) : [];
      rows.push(values.map((value) => (value === null || value === undefined ? '' : String(value))));
    });
    sheets[sheet.name] = rows;
  }
  return sheets;
}

/** A context for `inputPath`, writing `out.<to>` (or `name`) in the workspace. */
export function contextFor(ws: Workspace, inputPath: string, from: string, to: string, name = `out.${to}`) {
  return context(ws, from, to, { inputPath, outputPath: join(ws.outputs, name) });
}

/** Converts `ctx`'s output onward to text with `converter` (docx/odt/... read back). */
export async function textOf(
  converter: { convert(ctx: ConvertContext): Promise<unknown> },
  ws: Workspace,
  path: string,
  from: string,
): Promise<string> {
  const back = contextFor(ws, path, from, 'txt', `back-${from}.txt`);
  await converter.convert(back);
  return readFile(back.outputPath, 'utf8');
}

type Edit = (name: string, data: Buffer) => Buffer | undefined;

/**
 * Copies the zip `from` to `to`, passing each entry through `edit` (undefined drops it), then
 * adds `extra` entries; entries in `stored` are written without compression.
 */
export async function rewriteZip(
  from: string,
  to: string,
  edit: Edit,
  extra: Record<string, Buffer> = {},
  stored: ReadonlySet<string> = new Set(),
): Promise<void> {
  const source = await yauzl.openPromise(from);
  const output = new yazl.ZipFile();
  for await (const entry of source.eachEntry()) {
    if (entry.fileName.endsWith('/')) {
      output.addEmptyDirectory(entry.fileName);
      continue;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of await source.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    const data = edit(entry.fileName, Buffer.concat(chunks));
    if (data) output.addBuffer(data, entry.fileName, { compress: !stored.has(entry.fileName) });
  }
  source.close();
  for (const [name, data] of Object.entries(extra)) output.addBuffer(data, name);
  output.end();
  const parts: Buffer[] = [];
  for await (const chunk of output.outputStream) parts.push(chunk as Buffer);
  await writeFile(to, Buffer.concat(parts));
}

/**
 * fixture.docx with a picture whose image is `target`: a URL (a relationship with
 * TargetMode="External", referenced by `attribute`) or, for `{ png }`, the image embedded as
 * word/media/x.png (the positive control: that one must show in the PDF).
 */
export async function docxWithPicture(
  to: string,
  target: { url: string; attribute: 'r:link' | 'r:embed' } | { png: Buffer },
): Promise<void> {
  const attribute = 'url' in target ? target.attribute : 'r:embed';
  const picture =
    '<w:p><w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="Picture 1"/>' +
    '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
    '<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="1" name="x.png"/><pic:cNvPicPr/></pic:nvPicPr>' +
    `<pic:blipFill><a:blip ${attribute}="rIdPicture"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    '<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr>' +
    '</pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>';
  const type = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/image';
  const relationship =
    'url' in target
      ? `<Relationship Id="rIdPicture" Type="${type}" Target="${target.url}" TargetMode="External"/>`
      : `<Relationship Id="rIdPicture" Type="${type}" Target="media/x.png"/>`;
  const insert = (data: Buffer, before: string, text: string) =>
    Buffer.from(data.toString('utf8').replace(before, `${text}${before}`));
  await rewriteZip(
    join(FIXTURES, 'fixture.docx'),
    to,
    (name, data) => {
      if (name === 'word/document.xml')
        return Buffer.from(data.toString('utf8').replace('<w:body>', `<w:body>${picture}`));
      if (name === 'word/_rels/document.xml.rels') return insert(data, '</Relationships>', relationship);
      if (name === '[Content_Types].xml')
        return insert(data, '</Types>', '<Default Extension="png" ContentType="image/png"/>');
      return data;
    },
    'png' in target ? { 'word/media/x.png': target.png } : {},
  );
}

/** How many images the pages of a PDF paint (pdf.js operator lists). */
export async function pdfImageCount(path: string): Promise<number> {
  const doc = await getDocument({ data: new Uint8Array(await readFile(path)), verbosity: 0 }).promise;
  try {
    let count = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const { fnArray } = await (await doc.getPage(n)).getOperatorList();
      count += fnArray.filter(
        (op) => op === OPS.paintImageXObject || op === OPS.paintInlineImageXObject,
      ).length;
    }
    return count;
  } finally {
    await doc.destroy();
  }
}

/**
 * fixture.odt with content.xml declared encrypted (AES-256, PBKDF2) in the manifest, as
 * LibreOffice writes a password-protected document: it must ask for a password before anything.
 */
export async function encryptedOdt(to: string): Promise<void> {
  const b64 = (bytes: number) =>
    Buffer.from(Array.from({ length: bytes }, (_, i) => (i * 37) % 256)).toString('base64');
  const encryption =
    `<manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" manifest:checksum="${b64(32)}">` +
    `<manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" manifest:initialisation-vector="${b64(16)}"/>` +
    '<manifest:start-key-generation manifest:start-key-generation-name="http://www.w3.org/2000/09/xmldsig#sha256" manifest:key-size="32"/>' +
    `<manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:key-size="32" manifest:iteration-count="100000" manifest:salt="${b64(16)}"/>` +
    '</manifest:encryption-data>';
  await rewriteZip(
    join(FIXTURES, 'fixture.odt'),
    to,
    (name, data) => {
      if (name === 'content.xml')
        return Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) % 256));
      if (name !== 'META-INF/manifest.xml') return data;
      return encryptedInManifest(data, 4096, encryption);
    },
    {},
    new Set(['content.xml', 'mimetype']),
  );
}

/** An ODF manifest whose content.xml entry declares `encryption` (encryption-data XML) and its plain `size`. */
function encryptedInManifest(manifest: Buffer, size: number, encryption: string): Buffer {
  return Buffer.from(
    manifest
      .toString('utf8')
      .replace(
        /<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text\/xml"\/>/,
        `<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml" manifest:size="${size}">${encryption}</manifest:file-entry>`,
      ),
  );
}

/**
 * fixture.odt really encrypted with `password`, as LibreOffice encrypts a document (ODF 1.2:
 * content.xml deflated, then AES-256-CBC under a PBKDF2-HMAC-SHA1 key of SHA-256(password); the
 * manifest's checksum, SHA-256 of the first 1024 deflated bytes, is how LibreOffice tells a wrong
 * password). Checked against a document LibreOffice 7.4 saved with a password: the same steps
 * decrypt it and give its checksum.
 */
export async function passwordOdt(to: string, password: string): Promise<void> {
  const salt = randomBytes(16);
  const iv = randomBytes(16);
  const iterations = 1000;
  const startKey = createHash('sha256').update(password, 'utf8').digest();
  const key = pbkdf2Sync(startKey, salt, iterations, 32, 'sha1');
  let size = 0;
  let checksum = '';
  const encrypt = (content: Buffer) => {
    size = content.length;
    const deflated = deflateRawSync(content);
    checksum = createHash('sha256').update(deflated.subarray(0, 1024)).digest('base64');
    // PKCS#7 padding is one of the W3C paddings LibreOffice reads (the last byte counts them).
    const cipher = createCipheriv('aes-256-cbc', key, iv);
    return Buffer.concat([cipher.update(deflated), cipher.final()]);
  };
  const encryption = () =>
    `<manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" manifest:checksum="${checksum}">` +
    `<manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" manifest:initialisation-vector="${iv.toString('base64')}"/>` +
    '<manifest:start-key-generation manifest:start-key-generation-name="http://www.w3.org/2000/09/xmldsig#sha256" manifest:key-size="32"/>' +
    `<manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:key-size="32" manifest:iteration-count="${iterations}" manifest:salt="${salt.toString('base64')}"/>` +
    '</manifest:encryption-data>';
  const content = (await readZip(join(FIXTURES, 'fixture.odt'))).get('content.xml');
  if (!content) throw new Error('fixture.odt has no content.xml');
  const encrypted = encrypt(content);
  await rewriteZip(
    join(FIXTURES, 'fixture.odt'),
    to,
    (name, data) => {
      if (name === 'content.xml') return encrypted;
      if (name !== 'META-INF/manifest.xml') return data;
      return encryptedInManifest(data, size, encryption());
    },
    {},
    new Set(['content.xml', 'mimetype']),
  );
}

/** An HTTP listener on 127.0.0.1 that records every request it sees. */
export async function recordingServer(): Promise<{ port: number; requests: string[]; server: Server }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, requests, server };
}

/** Whether `pid` is a live process (a zombie counts as gone: it runs nothing and holds no memory). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
