/**
 * Byte-level detection cases: text sniffing, containers built in memory (OLE compound files,
 * zip packages, ISO BMFF brands), truncated heads, and the compatibility table of detect.ts.
 * Detection of the real fixture files is tested in formats.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DETECTION_BYTES, detectFormat, isContentCompatible } from '../src/core/formats/index.js';

const fixture = (name: string) =>
  new Uint8Array(readFileSync(join(import.meta.dirname, '..', 'fixtures', name)));
const utf8 = (text: string) => new TextEncoder().encode(text);
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** A zip of stored entries (local file headers only, which is all detection reads). */
function zipOf(entries: [name: string, data: Uint8Array | string][]): Uint8Array {
  return concat(
    ...entries.flatMap(([name, content]) => {
      const data = typeof content === 'string' ? utf8(content) : content;
      const header = Buffer.alloc(30);
      header.writeUInt32LE(0x04034b50, 0);
      header.writeUInt16LE(20, 4);
      header.writeUInt32LE(data.length, 18);
      header.writeUInt32LE(data.length, 22);
      header.writeUInt16LE(Buffer.byteLength(name), 26);
      return [header, utf8(name), data];
    }),
  );
}

interface Entry {
  name: string;
  type: 1 | 2 | 5; // storage, stream, root
  child?: number;
  left?: number;
  right?: number;
}

/** A version 3 compound file (512-byte sectors): FAT in sector 0, the directory from sector 1 on. */
function compoundFileOf(entries: Entry[]): Uint8Array {
  const none = 0xffffffff;
  const directorySectors = Math.ceil(entries.length / 4);
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header);
  header.writeUInt16LE(0x3e, 0x18);
  header.writeUInt16LE(3, 0x1a);
  header.writeUInt16LE(0xfffe, 0x1c);
  header.writeUInt16LE(9, 0x1e);
  header.writeUInt16LE(6, 0x20);
  header.writeUInt32LE(1, 0x2c); // one FAT sector
  header.writeUInt32LE(1, 0x30); // directory starts in sector 1
  header.writeUInt32LE(0x1000, 0x38);
  header.writeUInt32LE(0xfffffffe, 0x3c);
  header.writeUInt32LE(0xfffffffe, 0x44);
  for (let i = 0; i < 109; i++) header.writeUInt32LE(i === 0 ? 0 : none, 0x4c + i * 4);
  const fat = Buffer.alloc(512, 0xff);
  fat.writeUInt32LE(0xfffffffd, 0); // sector 0 is the FAT itself
  for (let s = 1; s <= directorySectors; s++)
    fat.writeUInt32LE(s === directorySectors ? 0xfffffffe : s + 1, s * 4);
  const directory = Buffer.alloc(512 * directorySectors);
  entries.forEach((entry, i) => {
    const at = i * 128;
    directory.write(`${entry.name}\0`, at, 'utf16le');
    directory.writeUInt16LE((entry.name.length + 1) * 2, at + 0x40);
    directory[at + 0x42] = entry.type;
    directory.writeUInt32LE(entry.left ?? none, at + 0x44);
    directory.writeUInt32LE(entry.right ?? none, at + 0x48);
    directory.writeUInt32LE(entry.child ?? none, at + 0x4c);
  });
  return concat(header, fat, directory);
}

/** An ftyp box with the given major and compatible brands, followed by some padding. */
function ftypOf(major: string, compatible: string[]): Uint8Array {
  const box = Buffer.alloc(16 + compatible.length * 4);
  box.writeUInt32BE(box.length, 0);
  box.write(`ftyp${major}`, 4, 'latin1');
  compatible.forEach((brand, i) => {
    box.write(brand, 16 + i * 4, 'latin1');
  });
  return concat(box, Buffer.from([0, 0, 0, 8, 0x6d, 0x65, 0x74, 0x61])); // an empty 'meta' box
}

describe('detectFormat on text', () => {
  it.each([
    ['plain ASCII', 'hello world\n', 'txt'],
    ['JSON', '{"a": [1, 2]}', 'txt'],
    ['XML that is not SVG', '<?xml version="1.0"?><rss version="2.0"></rss>', 'xml'],
    ['XML without a declaration', '<rss version="2.0"></rss>', 'txt'],
    ['SubRip', '1\r\n00:00:01,000 --> 00:00:02,500\r\nHello\r\n', 'srt'],
    ['SubRip after blank lines', '\n\n12\n0:00:01.000 --> 0:00:02.500\nHello\n', 'srt'],
    ['ASS', '[Script Info]\nScriptType: v4.00+\n\n[V4+ Styles]\n', 'ass'],
    ['SSA', '[Script Info]\r\nTitle: x\r\nScriptType: v4.00\r\n', 'ssa'],
    ['SSA without a ScriptType', '[Script Info]\nTitle: x\n\n[V4 Styles]\n', 'ssa'],
    ['WebVTT', 'WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n', 'vtt'],
    ['iCalendar', 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\n', 'ics'],
    ['vCard', 'BEGIN:VCARD\r\nVERSION:3.0\r\n', 'vcf'],
    [
      'SVG after an XML declaration (not generic XML)',
      '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>',
      'svg',
    ],
    ['YAML', 'people:\n  - name: Ada\n', 'txt'],
    ['RTF', '{\\rtf1\\ansi hello}', 'rtf'],
    ['HTML doctype', '<!DOCTYPE html><title>x</title>', 'html'],
    ['lower-case doctype after a comment', '<!-- hi -->\n<!doctype html>\n<html>', 'html'],
    ['HTML without doctype', '\n  <html lang="en"><body></body></html>', 'html'],
    ['HTML fragment', '<p>Hello</p>', 'html'],
    [
      'XHTML',
      '<?xml version="1.0"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x.dtd">',
      'html',
    ],
    ['bare SVG', '<svg xmlns="http://www.w3.org/2000/svg"/>', 'svg'],
    [
      'SVG after prolog, comment and doctype with internal subset',
      '<?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x" [\n<!ENTITY a "b">\n]>\n<svg width="1"></svg>',
      'svg',
    ],
    ['namespaced SVG root', '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>', 'svg'],
    ['a tag that merely starts like svg', '<svgfoo/>', 'txt'],
    ['CSV', 'a,b\n1,2\n', 'txt'],
    ['Markdown opening with HTML', '<p align="center"><img src="x.png"></p>\n# Title\n', 'html'],
  ])('%s', async (_what, text, expected) => {
    expect(await detectFormat(utf8(text))).toBe(expected);
  });

  it('reads UTF-8 with a BOM, UTF-16 with a BOM and Windows-1252 as text', async () => {
    expect(await detectFormat(concat(Buffer.from([0xef, 0xbb, 0xbf]), utf8('<svg/>')))).toBe('svg');
    expect(await detectFormat(Buffer.from('\ufeffname\tvalue\r\n', 'utf16le'))).toBe('txt');
    expect(await detectFormat(Buffer.from('caf\xe9,cr\xe8me\n', 'latin1'))).toBe('txt');
  });

  it('ignores a multi-byte character cut off at the end of the head', async () => {
    const text = utf8('日本語のテキスト');
    expect(await detectFormat(text.subarray(0, text.length - 1))).toBe('txt');
  });

  it('does not call binary bytes text', async () => {
    expect(await detectFormat(Uint8Array.from([0x00, 0x01, 0x02, 0x03, 0x41, 0x42]))).toBeUndefined();
    expect(await detectFormat(utf8('text with a NUL\0 inside'))).toBeUndefined();
    // Controls thicker than one in 100 characters, or in text that is no valid UTF-8.
    expect(await detectFormat(utf8(`${'words '.repeat(10)}\x01\x02`))).toBeUndefined();
    expect(await detectFormat(Buffer.from(`caf\xe9 ${'words '.repeat(40)}\x01`, 'latin1'))).toBeUndefined();
  });

  it('takes valid UTF-8 text with a stray control character as text (a real file had two 0x01)', async () => {
    const line = 'Grüße aus dem Handbuch, Kapitel 3: Installation und Betrieb.\n';
    expect(await detectFormat(utf8(`${line.repeat(4)}\x01${line.repeat(3)}\x01${line}`))).toBe('txt');
  });

  it('keeps text that happens to look like an MPEG transport stream', async () => {
    const text = `G${'x'.repeat(187)}G${'y'.repeat(400)}`;
    expect(await detectFormat(utf8(text))).toBe('txt');
  });

  it('returns undefined for empty input', async () => {
    expect(await detectFormat(new Uint8Array())).toBeUndefined();
  });
});

describe('detectFormat on binary heads', () => {
  it('finds a PDF header after leading junk', async () => {
    expect(await detectFormat(utf8('%PDF-1.7\n%\xe2\xe3\n'))).toBe('pdf');
    expect(await detectFormat(concat(Uint8Array.from([0, 1, 2, 3]), utf8('%PDF-1.4\n')))).toBe('pdf');
  });

  it('recognises a TIFF whose first IFD lies beyond the head', async () => {
    const head = new Uint8Array(4096);
    head.set([0x49, 0x49, 0x2a, 0x00, 0x00, 0x00, 0x10, 0x00]); // IFD at 1 MiB
    expect(await detectFormat(head)).toBe('tiff');
  });

  it('tells HEIC, HEIF and AVIF apart by their ftyp brands', async () => {
    expect(await detectFormat(ftypOf('heic', ['mif1', 'heic']))).toBe('heic');
    expect(await detectFormat(ftypOf('mif1', ['mif1', 'heic']))).toBe('heic');
    expect(await detectFormat(ftypOf('mif1', ['mif1', 'miaf']))).toBe('heif');
    expect(await detectFormat(ftypOf('mif1', ['mif1', 'miaf', 'avif']))).toBe('avif');
    expect(await detectFormat(ftypOf('avif', ['mif1', 'avif']))).toBe('avif');
  });

  it('does not take any IFF file for AIFF', async () => {
    const ilbm = concat(utf8('FORM'), Uint8Array.from([0, 0, 0, 40]), utf8('ILBMBMHD'), new Uint8Array(40));
    expect(await detectFormat(ilbm)).toBeUndefined();
  });

  it('reads a real file from a truncated head', async () => {
    const wav = fixture('fixture.wav');
    expect(await detectFormat(wav.subarray(0, 64))).toBe('wav');
    expect(DETECTION_BYTES).toBeGreaterThanOrEqual(4100); // file-type's own sample size
  });
});

describe('detectFormat on OLE compound files', () => {
  const root = (child: number): Entry => ({ name: 'Root Entry', type: 5, child });

  it.each([
    ['WordDocument', 'doc'],
    ['Workbook', 'xls'],
    ['Book', 'xls'],
    ['PowerPoint Document', 'ppt'],
  ])('a root stream named %s makes it %s', async (stream, expected) => {
    const file = compoundFileOf([
      root(1),
      { name: stream, type: 2, right: 2 },
      { name: 'SummaryInformation', type: 2 },
    ]);
    expect(await detectFormat(file)).toBe(expected);
  });

  it('looks only at the root: a Word file with an embedded workbook is a Word file', async () => {
    const entries: Entry[] = [
      root(1),
      { name: 'ObjectPool', type: 1, child: 3, right: 2 },
      { name: 'WordDocument', type: 2 },
      { name: 'Workbook', type: 2 },
    ];
    expect(await detectFormat(compoundFileOf(entries))).toBe('doc');
    const embeddedOnly = [
      root(1),
      { name: 'ObjectPool', type: 1 as const, child: 2 },
      { name: 'Workbook', type: 2 as const },
    ];
    expect(await detectFormat(compoundFileOf(embeddedOnly))).toBe('cfb');
  });

  it('follows the directory across sectors', async () => {
    const filler = Array.from(
      { length: 6 },
      (_, i): Entry => ({ name: `Stream${i}`, type: 2, right: i + 2 }),
    );
    const entries = [root(1), ...filler, { name: 'Workbook', type: 2 as const }];
    expect(await detectFormat(compoundFileOf(entries))).toBe('xls');
  });

  it("answers 'cfb' when the directory is not within the head", async () => {
    const file = compoundFileOf([root(1), { name: 'WordDocument', type: 2 }]);
    expect(await detectFormat(file.subarray(0, 1024))).toBe('cfb');
    expect(isContentCompatible('doc', 'cfb')).toBe(true);
    expect(isContentCompatible('xls', 'doc')).toBe(false);
  });
});

describe('detectFormat on zip packages', () => {
  it.each([
    ['application/vnd.oasis.opendocument.text', 'odt'],
    ['application/vnd.oasis.opendocument.spreadsheet', 'ods'],
    ['application/vnd.oasis.opendocument.presentation', 'odp'],
    ['application/epub+zip', 'epub'],
  ])('a mimetype entry of %s makes it %s', async (mime, expected) => {
    expect(
      await detectFormat(
        zipOf([
          ['mimetype', mime],
          ['content.xml', '<x/>'],
        ]),
      ),
    ).toBe(expected);
  });

  it.each([
    ['word/document.xml', 'docx'],
    ['xl/workbook.xml', 'xlsx'],
    ['ppt/presentation.xml', 'pptx'],
    ['index.apxl', 'key'],
    ['Index/Document.iwa', 'iwork'],
  ])('finds %s past a large first entry (%s)', async (entry, expected) => {
    // Beyond file-type's 4100-byte sample, within DETECTION_BYTES; [Content_Types].xml comes last.
    const zip = zipOf([
      ['[trash]/0000.dat', new Uint8Array(20_000).fill(7)],
      [entry, 'x'],
      ['[Content_Types].xml', '<Types/>'],
    ]);
    expect(await detectFormat(zip.subarray(0, DETECTION_BYTES))).toBe(expected);
  });

  it("answers 'zip' for a zip with no telling entry, which no package format accepts", async () => {
    const detected = await detectFormat(zipOf([['notes.txt', 'hello']]));
    expect(detected).toBe('zip');
    expect(isContentCompatible('zip', detected)).toBe(true);
    // A package is a zip all the same: declared 'zip', it is repacked as an archive.
    expect(isContentCompatible('zip', 'docx')).toBe(true);
    for (const declared of ['docx', 'xlsx', 'key', 'epub'])
      expect(isContentCompatible(declared, detected)).toBe(false);
    expect(isContentCompatible('key', 'iwork')).toBe(true);
  });
});

describe('isContentCompatible', () => {
  it('rejects text named as an image, and anything undetected or empty', async () => {
    expect(isContentCompatible('png', await detectFormat(fixture('fixture.txt')))).toBe(false);
    expect(isContentCompatible('png', await detectFormat(new Uint8Array()))).toBe(false);
    expect(isContentCompatible('txt', undefined)).toBe(false);
    expect(isContentCompatible('nope', 'nope')).toBe(false);
  });

  it.each([
    ['heif', 'heic', true],
    ['heic', 'heif', true],
    ['avif', 'heic', false],
    ['m4v', 'mp4', true],
    ['mov', 'mp4', true],
    ['m4a', 'mp4', true],
    ['mp4', '3gp', true],
    ['ogv', 'ogg', true],
    ['opus', 'ogg', true],
    ['webm', 'mkv', true],
    ['wma', 'wmv', true],
    ['mp3', 'aac', false],
    ['mpeg', 'ts', false],
    ['txt', 'txt', true],
    ['csv', 'txt', true],
    ['tsv', 'txt', true],
    ['md', 'txt', true],
    ['md', 'html', true],
    ['txt', 'html', true],
    ['html', 'txt', false],
    ['csv', 'html', false],
    ['svg', 'txt', false],
    ['png', 'jpg', false],
    ['docx', 'zip', false],
    ['jpeg', 'jpg', true], // declared by alias
  ])('declared %s, detected %s: %s', (declared, detected, expected) => {
    expect(isContentCompatible(declared, detected)).toBe(expected);
  });
});

describe('the common-signature fast path', () => {
  it('answers what file-type answers for JPEG, PNG, GIF and WebP, and leaves JPEG-LS to it', async () => {
    const { fileTypeFromBuffer } = await import('file-type');
    const heads: Uint8Array[] = [
      fixture('fixture.jpg'),
      fixture('fixture.png'),
      fixture('fixture.gif'),
      fixture('fixture.webp'),
      // JPEG-LS shares JPEG's first three bytes; file-type calls it jls, which is no format of ours.
      concat(new Uint8Array([0xff, 0xd8, 0xff, 0xf7]), new Uint8Array(60)),
      // RIFF that is not WebP.
      concat(utf8('RIFF'), new Uint8Array(4), utf8('WAVEfmt '), new Uint8Array(40)),
    ];
    const names: Record<string, string> = {
      jpg: 'jpg',
      png: 'png',
      apng: 'png',
      gif: 'gif',
      webp: 'webp',
      wav: 'wav',
    };
    for (const head of heads) {
      const expected = (await fileTypeFromBuffer(head))?.ext;
      expect(await detectFormat(head)).toBe(expected === undefined ? undefined : names[expected]);
    }
  });
});
