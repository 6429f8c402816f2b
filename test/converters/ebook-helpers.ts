/**
 * For the e-book converter tests: EPUBs built in memory, and the independent readers the outputs
 * are checked with (calibre's ebook-meta for a book's title and author, bsdtar for a zip's
 * listing, pdftotext, mammoth for DOCX, fileconv's detection for the format from the bytes).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { DETECTION_BYTES, detectFormat } from '../../src/core/formats/index.js';
import { zipBytes } from '../helpers/zip.js';

export const run = promisify(execFile);

/** Title and author as calibre's ebook-meta reads them (a program apart from ebook-convert). */
export async function bookMeta(path: string): Promise<{ title: string; author: string }> {
  // ebook-meta picks its reader by extension, like ebook-convert; the outputs are named out.<to>.
  const { stdout } = await run('ebook-meta', [path], {
    env: {
      ...process.env,
      QT_QPA_PLATFORM: 'offscreen',
      CALIBRE_CONFIG_DIRECTORY: '/nonexistent-ebook-test',
    },
  });
  return {
    title: /^Title\s*:\s*(.*)$/m.exec(stdout)?.[1]?.trim() ?? '',
    author: /^Author\(s\)\s*:\s*(.*)$/m.exec(stdout)?.[1]?.trim() ?? '',
  };
}

/** Entry names of a zip, as bsdtar (libarchive) lists them. */
export async function zipNames(path: string): Promise<string[]> {
  return (await run('bsdtar', ['-tf', path])).stdout.split('\n').filter(Boolean);
}

export async function pdfText(path: string): Promise<string> {
  return (await run('pdftotext', [path, '-'])).stdout;
}

export async function detectFile(path: string): Promise<string | undefined> {
  return detectFormat((await readFile(path)).subarray(0, DETECTION_BYTES));
}

const CONTAINER = `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`;

/** An EPUB 3 of one chapter `body` (XHTML body content), plus `manifest` items and other entries. */
export async function epubOf(
  body: string,
  { head = '', manifest = '', extra = new Map<string, Buffer>() } = {},
): Promise<Buffer> {
  const opf = `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">test</dc:identifier>
<dc:title>Crafted</dc:title><dc:language>en</dc:language></metadata>
<manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>
<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>${manifest}</manifest>
<spine><itemref idref="c"/></spine></package>`;
  const chapter = `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>c</title>${head}</head><body>${body}</body></html>`;
  const nav = `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>nav</title></head>
<body><nav epub:type="toc"><ol><li><a href="c.xhtml">c</a></li></ol></nav></body></html>`;
  return zipBytes(
    new Map([
      ['mimetype', Buffer.from('application/epub+zip')],
      ['META-INF/container.xml', Buffer.from(CONTAINER)],
      ['OEBPS/content.opf', Buffer.from(opf)],
      ['OEBPS/c.xhtml', Buffer.from(chapter)],
      ['OEBPS/nav.xhtml', Buffer.from(nav)],
      ...extra,
    ]),
  );
}
