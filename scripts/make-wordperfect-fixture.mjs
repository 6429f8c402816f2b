// Regenerates fixtures/fixture.wpd, a WordPerfect 5.1 document, from scratch: run from the
// repository root with `node scripts/make-wordperfect-fixture.mjs`. No WordPerfect is involved and
// no packaged tool writes the format (libwpd, which LibreOffice reads it with, only reads), so the
// bytes are laid out here from the WordPerfect 5.1 file format as Corel's developer documentation
// describes it and libwpd (WPXHeader.cpp, WP5Parser.cpp) reads it:
//   0   FF 'WPC'            the WordPerfect Corporation signature every WP 5-12 file starts with
//   4   uint32 LE           offset of the document area
//   8   product type 1      WordPerfect
//   9   file type 10        a document (graphics files say 0x16)
//   10  major 0, minor 1    WordPerfect 5.1
//   12  uint16 0            not encrypted
//   14  uint16 0            reserved
//   16  index header        0xFFFB, no index entries, no next block (no styles, fonts, printer)
//   32  the text            characters 0x20-0x7E are themselves; 0x0A is a hard return
// Check it with LibreOffice: soffice --headless --convert-to pdf fixtures/fixture.wpd gives one
// page with the two lines below. The output is byte-for-byte reproducible.
import { writeFileSync } from 'node:fs';

const LINES = ['fileconv fixture', 'The quick brown fox jumps over the lazy dog.'];
const DOCUMENT_OFFSET = 32;

const header = Buffer.alloc(16);
header.write('\xffWPC', 0, 'latin1');
header.writeUInt32LE(DOCUMENT_OFFSET, 4);
header.set([1, 10, 0, 1], 8);
const index = Buffer.alloc(DOCUMENT_OFFSET - 16);
index.writeUInt16LE(0xfffb, 0);
const text = Buffer.from(LINES.map((line) => `${line}\n`).join(''), 'latin1');

writeFileSync('fixtures/fixture.wpd', Buffer.concat([header, index, text]));
console.log('fixtures/fixture.wpd');
