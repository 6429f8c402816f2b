/**
 * Office formats file-type has no signature for, told from their leading bytes: flat OpenDocument
 * XML (fodt, fods, fodp), Excel 2003 XML (xmlss) and SYLK (slk) among text; WordPerfect (wpd),
 * dBase tables (dbf) and Windows metafiles (emf, wmf) among binaries. Used by detect-text.ts and detect.ts.
 *
 * Each check asks for structure, not a loose keyword: the root element of an XML document, the
 * first two records of SYLK, a dBase header whose field descriptors add up to its record length.
 */
import type { FormatName } from './types.js';

/** Flat ODF names its document type on the root element: office:mimetype="...". */
const FLAT_ODF: Readonly<Record<string, FormatName>> = {
  'application/vnd.oasis.opendocument.text': 'fodt',
  'application/vnd.oasis.opendocument.spreadsheet': 'fods',
  'application/vnd.oasis.opendocument.presentation': 'fodp',
};
const ODF_OFFICE_NS = 'urn:oasis:names:tc:opendocument:xmlns:office:1.0';
const XMLSS_NS = 'urn:schemas-microsoft-com:office:spreadsheet';

/** The start tag of the document's root element (after the prolog, comments and doctype), or undefined. */
function rootStartTag(text: string): string | undefined {
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
    const skip = text.startsWith('<?', i) ? '?>' : text.startsWith('<!', i) ? '>' : undefined;
    if (skip === undefined) break;
    const end = text.indexOf(skip, i + 2);
    if (end === -1) return undefined;
    i = end + skip.length;
  }
  if (text.charAt(i) !== '<') return undefined;
  const end = text.indexOf('>', i);
  return end === -1 ? undefined : text.slice(i, end + 1);
}

/** fodt/fods/fodp from the root element, xmlss from its namespace or processing instruction. */
function xmlKind(text: string): FormatName | undefined {
  const root = rootStartTag(text);
  if (root === undefined) return undefined;
  // <office:document xmlns:office="urn:oasis..." office:mimetype="..."> (the prefix is the writer's choice).
  const odf = /^<([\w.-]+):document\s/.exec(root);
  if (odf && root.includes(`xmlns:${odf[1]}="${ODF_OFFICE_NS}"`)) {
    const mimetype = new RegExp(`\\s${odf[1]}:mimetype="([^"]+)"`).exec(root)?.[1];
    return mimetype === undefined ? undefined : FLAT_ODF[mimetype];
  }
  // Excel writes <?mso-application progid="Excel.Sheet"?> before a <Workbook> in the XMLSS namespace.
  if (/^<(?:[\w.-]+:)?Workbook[\s>]/.test(root) && root.includes(`="${XMLSS_NS}"`)) return 'xmlss';
  return undefined;
}

/**
 * SYLK: an ID record first ('ID;P' and the writer's name), then records that start with their
 * type and a semicolon. Excel itself takes any text starting 'ID;' for SYLK; the second record is
 * checked too, so a semicolon-separated CSV whose first column is called ID stays text.
 */
const SYLK = /^ID;P[^\r\n]*\r?\n(?:C|F|B|P|O|E|NN|NU|NE|W);/;

/** The office format a text is, or undefined for other text. */
export function officeTextKind(text: string): FormatName | undefined {
  if (text.startsWith('ID;P')) return SYLK.test(text) ? 'slk' : undefined;
  return text.includes('<') ? xmlKind(text) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Binary: dBase tables, Windows metafiles

/** dBase III+, IV, 5 and FoxPro/Visual FoxPro version bytes. */
const DBF_VERSIONS = new Set([
  0x02, 0x03, 0x04, 0x05, 0x30, 0x31, 0x32, 0x43, 0x63, 0x83, 0x8b, 0xcb, 0xf5, 0xfb,
]);
/** Field types of dBase and FoxPro descriptors ('0' is Visual FoxPro's hidden null-flags field). */
const DBF_FIELD_TYPES = new Set('CNFLDMBGPIYTV@+O0Q'.split('').map((c) => c.charCodeAt(0)));
const DBF_DESCRIPTOR = 32;
const DBF_TERMINATOR = 0x0d;

/**
 * A dBase table: a version byte, a plausible date, then 32-byte field descriptors ending in 0x0D
 * whose names are ASCII, whose types are known and whose lengths add up, with the deletion flag
 * byte, to the record length in the header. The whole header must lie within the head.
 */
function isDbase(head: Uint8Array): boolean {
  if (head.length < 65 || !DBF_VERSIONS.has(head[0] ?? 0)) return false;
  const month = head[2] ?? 0;
  const day = head[3] ?? 0;
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  const data = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const headerLength = data.getUint16(8, true);
  const recordLength = data.getUint16(10, true);
  let fieldsLength = 1; // the deletion flag that starts every record
  let at = DBF_DESCRIPTOR;
  for (; at < head.length && head[at] !== DBF_TERMINATOR; at += DBF_DESCRIPTOR) {
    if (at + DBF_DESCRIPTOR > head.length) return false;
    const name = head.subarray(at, at + 11);
    const nameEnd = name.indexOf(0) === -1 ? 11 : name.indexOf(0);
    if (nameEnd === 0 || !name.subarray(0, nameEnd).every((c) => c > 0x20 && c < 0x7f)) return false;
    if (!DBF_FIELD_TYPES.has(head[at + 11] ?? 0)) return false;
    fieldsLength += head[at + 16] ?? 0;
  }
  const fields = (at - DBF_DESCRIPTOR) / DBF_DESCRIPTOR;
  return fields > 0 && at < head.length && headerLength >= at + 1 && fieldsLength === recordLength;
}

/** EMF: an EMR_HEADER record (type 1) whose signature at offset 40 is ' EMF'. */
function isEmf(head: Uint8Array): boolean {
  if (head.length < 88) return false;
  const data = new DataView(head.buffer, head.byteOffset, head.byteLength);
  return data.getUint32(0, true) === 1 && data.getUint32(40, true) === 0x464d4520;
}

/**
 * WMF: the placeable header's key (D7 CD C6 9A), or a bare METAHEADER: type 1 or 2, a header of 9
 * words, version 0x0100 or 0x0300.
 */
function isWmf(head: Uint8Array): boolean {
  if (head.length < 18) return false;
  const data = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (data.getUint32(0, true) === 0x9ac6cdd7) return true;
  const type = data.getUint16(0, true);
  const version = data.getUint16(4, true);
  return (
    (type === 1 || type === 2) && data.getUint16(2, true) === 9 && (version === 0x100 || version === 0x300)
  );
}

/**
 * WordPerfect 5-12: 'FF WPC', then at offset 8 the product (1, WordPerfect) and file type (10, a
 * document; WordPerfect graphics share the signature with type 0x16).
 */
function isWordPerfect(head: Uint8Array): boolean {
  return (
    head.length >= 16 &&
    [0xff, 0x57, 0x50, 0x43, 0x01, 0x0a].every((byte, i) => head[i < 4 ? i : i + 4] === byte)
  );
}

/** wpd, dbf, emf or wmf from a binary head; undefined for anything else. */
export function officeBinaryKind(head: Uint8Array): FormatName | undefined {
  if (isWordPerfect(head)) return 'wpd';
  if (isEmf(head)) return 'emf';
  if (isWmf(head)) return 'wmf';
  if (isDbase(head)) return 'dbf';
  return undefined;
}
