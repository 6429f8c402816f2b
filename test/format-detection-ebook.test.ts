/**
 * Detection of the e-book formats from bytes built in memory: MOBI against KF8 (AZW3) by the MOBI
 * header's version, FictionBook among XML and text, and what each accepts when declared.
 * The real fixtures (made by calibre) are detected in formats.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DETECTION_BYTES, detectFormat, isContentCompatible } from '../src/core/formats/index.js';
import { zipBytes } from './helpers/zip.js';

const fixture = (name: string) =>
  new Uint8Array(readFileSync(join(import.meta.dirname, '..', 'fixtures', name)));
const utf8 = (text: string) => new TextEncoder().encode(text);

/** A Palm database 'BOOKMOBI' whose record 0 (at `record0`) holds a MOBI header of `version`. */
function palmBook(version: number, record0 = 96, size = 512): Uint8Array {
  const bytes = Buffer.alloc(size);
  bytes.write('BOOKMOBI', 60, 'latin1');
  bytes.writeUInt16BE(1, 76);
  bytes.writeUInt32BE(record0, 78);
  if (record0 + 40 <= size) {
    bytes.write('MOBI', record0 + 16, 'latin1');
    bytes.writeUInt32BE(232, record0 + 20);
    bytes.writeUInt32BE(version, record0 + 36);
  }
  return new Uint8Array(bytes);
}

describe('Kindle books', () => {
  it('tells KF8 (azw3) from MOBI 6 by the header version', async () => {
    expect(await detectFormat(palmBook(8))).toBe('azw3');
    expect(await detectFormat(palmBook(6))).toBe('mobi');
    expect(await detectFormat(palmBook(4))).toBe('mobi');
  });

  it("answers 'mobi' when the header lies beyond the head or is not a MOBI header", async () => {
    expect(await detectFormat(palmBook(8, 100_000))).toBe('mobi');
    const noMagic = palmBook(8);
    noMagic.set(utf8('XXXX'), 96 + 16);
    expect(await detectFormat(noMagic)).toBe('mobi');
  });

  it('reads the fixtures calibre wrote', async () => {
    expect(await detectFormat(fixture('fixture.mobi'))).toBe('mobi');
    expect(await detectFormat(fixture('fixture.azw3'))).toBe('azw3');
  });

  it('accepts mobi and azw3 for each other (a joint file holds both books), nothing else', () => {
    expect(isContentCompatible('azw3', 'mobi')).toBe(true);
    expect(isContentCompatible('mobi', 'azw3')).toBe(true);
    expect(isContentCompatible('prc', 'mobi')).toBe(true);
    expect(isContentCompatible('epub', 'mobi')).toBe(false);
    expect(isContentCompatible('mobi', 'epub')).toBe(false);
  });
});

describe('FictionBook', () => {
  it('is XML whose root is <FictionBook>, with or without a prolog and comments', async () => {
    const root = '<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0"><body/></FictionBook>';
    expect(await detectFormat(utf8(root))).toBe('fb2');
    expect(await detectFormat(utf8(`<?xml version="1.0" encoding="UTF-8"?>\n<!-- a book -->\n${root}`))).toBe(
      'fb2',
    );
    expect(await detectFormat(utf8(`<?xml version="1.0"?><fb:FictionBook xmlns:fb="x"/>`))).toBe('fb2');
  });

  it('is found in a windows-1251 book too (the root name is ASCII)', async () => {
    const prolog = utf8('<?xml version="1.0" encoding="windows-1251"?>\n<FictionBook><body><p>');
    const cyrillic = new Uint8Array([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // "Привет" in cp1251
    expect(await detectFormat(new Uint8Array([...prolog, ...cyrillic]))).toBe('fb2');
  });

  it('is not any XML: other roots and a lower-case name are not FictionBook', async () => {
    expect(await detectFormat(utf8('<?xml version="1.0"?><book><title>x</title></book>'))).not.toBe('fb2');
    expect(await detectFormat(utf8('<?xml version="1.0"?><fictionbook/>'))).not.toBe('fb2');
    expect(await detectFormat(utf8('FictionBook is a format.'))).toBe('txt');
  });

  it('is accepted as fb2 and as plain text, not as html', () => {
    expect(isContentCompatible('fb2', 'fb2')).toBe(true);
    expect(isContentCompatible('txt', 'fb2')).toBe(true);
    expect(isContentCompatible('fb2', 'txt')).toBe(false);
    expect(isContentCompatible('html', 'fb2')).toBe(false);
  });
});

describe('EPUB', () => {
  const CONTAINER =
    '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">' +
    '<rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>';

  it("is told by META-INF/container.xml when 'mimetype' is not the first entry (Sphinx's books)", async () => {
    // The layout of Debian's developers-reference.epub: container.xml first, then pages and
    // pictures, mimetype deflated last, far beyond the head detection reads.
    const picture = randomBytes(256 * 1024); // incompressible, as a PNG is
    const book = await zipBytes(
      new Map([
        ['META-INF/container.xml', Buffer.from(CONTAINER)],
        ['_static/picture.png', picture],
        ['index.xhtml', Buffer.from('<html xmlns="http://www.w3.org/1999/xhtml"><body>hi</body></html>')],
        ['content.opf', Buffer.from('<package/>')],
        ['mimetype', Buffer.from('application/epub+zip')],
      ]),
    );
    expect(book.indexOf('mimetype')).toBeGreaterThan(DETECTION_BYTES);
    expect(await detectFormat(book.subarray(0, DETECTION_BYTES))).toBe('epub');
  });

  it('still tells ODF by its mimetype, which comes first there', async () => {
    expect(await detectFormat(fixture('fixture.odt'))).toBe('odt');
    expect(await detectFormat(fixture('fixture.epub'))).toBe('epub');
  });
});
