/**
 * Checks an e-book before calibre opens it. calibre is lenient where a service must not be: it
 * converts what it can of a truncated MOBI or FictionBook and exits 0, so a cut-off upload would
 * come back as a shorter book with no word of what was lost. And it inflates an EPUB without a
 * bound of its own, so EPUBs pass the zip-bomb rules every zip package passes (zip-safety.ts).
 *
 * - epub: assertSafeZip (entries, inflated size, ratio; a truncated zip has no central directory).
 * - mobi, azw3: a Palm database 'BOOKMOBI' whose record table fits the file, in order.
 * - fb2: XML whose root is <FictionBook> and whose end still holds </FictionBook>.
 */
import { open, stat } from 'node:fs/promises';
import { FileconvError } from '../../core/errors.js';
import { assertNotEmpty } from '../../core/file-size.js';
import { sniffText } from '../../core/formats/detect-text.js';
import type { FormatName } from '../../core/formats/types.js';
import { assertSafeZip, type ZipLimits } from '../../kit/zip-safety.js';

const PALM_HEADER_BYTES = 78;
const RECORD_ENTRY_BYTES = 8;
/** Enough of the head to sniff the XML root, and of the tail to find the closing tag after trailing space. */
const XML_PROBE_BYTES = 4096;

function corrupt(message: string, reason: string): FileconvError {
  return new FileconvError('CORRUPT_INPUT', message, { details: { reason } });
}

async function readAt(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** A MOBI/KF8 book is a Palm database: its record table must fit the file, offsets rising. */
async function checkPalmBook(path: string, size: number, format: FormatName): Promise<void> {
  const header = await readAt(path, 0, PALM_HEADER_BYTES);
  if (header.length < PALM_HEADER_BYTES || header.toString('latin1', 60, 68) !== 'BOOKMOBI') {
    throw corrupt(`The file is not a ${format} book (no Mobipocket database header).`, 'mobi-header');
  }
  const records = header.readUInt16BE(76);
  const table = await readAt(path, PALM_HEADER_BYTES, records * RECORD_ENTRY_BYTES);
  if (records === 0 || table.length < records * RECORD_ENTRY_BYTES) {
    throw corrupt(`The ${format} book is truncated: its record table is incomplete.`, 'truncated');
  }
  let previous = PALM_HEADER_BYTES + records * RECORD_ENTRY_BYTES;
  for (let i = 0; i < records; i++) {
    const offset = table.readUInt32BE(i * RECORD_ENTRY_BYTES);
    if (offset < previous || offset > size) {
      throw corrupt(
        `The ${format} book is truncated or damaged: record ${i} of ${records} lies outside the file.`,
        'truncated',
      );
    }
    previous = offset;
  }
}

/** Text of `bytes`, honouring a UTF-16 byte-order mark seen at the file's start. */
function decodeTail(bytes: Buffer, utf16: 'utf-16le' | 'utf-16be' | undefined): string {
  if (utf16) return new TextDecoder(utf16).decode(bytes.subarray(bytes.length % 2));
  return bytes.toString('latin1');
}

/** FictionBook is one XML document: the root must be <FictionBook> and its end tag present. */
async function checkFictionBook(path: string, size: number): Promise<void> {
  const head = await readAt(path, 0, XML_PROBE_BYTES);
  if (sniffText(head) !== 'fb2') {
    throw corrupt('The file is not a FictionBook (no <FictionBook> root element).', 'fb2-root');
  }
  const utf16 =
    head[0] === 0xff && head[1] === 0xfe
      ? 'utf-16le'
      : head[0] === 0xfe && head[1] === 0xff
        ? 'utf-16be'
        : undefined;
  const tail = await readAt(path, Math.max(0, size - XML_PROBE_BYTES), XML_PROBE_BYTES);
  if (!/<\/(?:[A-Za-z_][\w.-]*:)?FictionBook\s*>\s*$/.test(decodeTail(tail, utf16))) {
    throw corrupt('The FictionBook is truncated: it does not end with </FictionBook>.', 'truncated');
  }
}

/**
 * CORRUPT_INPUT (empty, truncated, not the declared format), INPUT_LIMIT_EXCEEDED (a zip bomb),
 * PASSWORD_PROTECTED (an encrypted zip entry); INTERNAL when the input file is missing.
 */
export async function checkEbookInput(
  path: string,
  format: FormatName,
  zipLimits: Partial<ZipLimits>,
  signal: AbortSignal,
): Promise<void> {
  const size = await stat(path).then(
    (info) => info.size,
    (error: unknown) => {
      throw new FileconvError('INTERNAL', 'The conversion input file is missing', { cause: error });
    },
  );
  assertNotEmpty(size);
  if (format === 'epub') await assertSafeZip(path, zipLimits, signal);
  else if (format === 'mobi' || format === 'azw3') await checkPalmBook(path, size, format);
  else if (format === 'fb2') await checkFictionBook(path, size);
}
