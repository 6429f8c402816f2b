/**
 * Tells the two Kindle formats apart from their bytes. Both are Palm database files of type
 * 'BOOKMOBI' (all file-type checks); the MOBI header inside the first record says which: its file
 * version is 8 for a KF8 book (what .azw3 holds) and 6 or lower for a Mobipocket one. A "joint"
 * file (calibre's 'both', Amazon's older downloads) carries a MOBI 6 book with a KF8 one behind
 * it: its first header says 6, so it is a mobi, which old and new readers both open.
 */
import type { FormatName } from './types.js';

/** Offset of the first record's offset in the Palm database header (after 78 bytes of header). */
const FIRST_RECORD_ENTRY = 78;
/** Within record 0: the 16-byte PalmDOC header, then 'MOBI', its length, type, encoding, id, version. */
const MOBI_MAGIC_AT = 16;
const MOBI_VERSION_AT = 36;

/** 'azw3' for a KF8-only book, else 'mobi' (also when the header lies beyond the head or is odd). */
export function mobiKind(head: Uint8Array): FormatName {
  if (head.length < FIRST_RECORD_ENTRY + 4) return 'mobi';
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const record0 = view.getUint32(FIRST_RECORD_ENTRY);
  if (record0 + MOBI_VERSION_AT + 4 > head.length) return 'mobi';
  const magic = String.fromCharCode(...head.subarray(record0 + MOBI_MAGIC_AT, record0 + MOBI_MAGIC_AT + 4));
  if (magic !== 'MOBI') return 'mobi';
  return view.getUint32(record0 + MOBI_VERSION_AT) === 8 ? 'azw3' : 'mobi';
}
