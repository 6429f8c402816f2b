/**
 * Recognises text content from its leading bytes: plain text, HTML, SVG, RTF, FictionBook and URL
 * files (an Internet shortcut, or one http(s) URL alone: url-file.ts), office formats written as
 * text (detect-office.ts), subtitles and generic XML (detect-data-text.ts). file-type only knows binary
 * signatures, so these are sniffed here (used by detect.ts).
 *
 * "Text" means: decodable (UTF-8, UTF-16 with a byte-order mark, or a legacy 8-bit encoding such
 * as Windows-1252, which is what Excel on Windows writes CSV in) and free of the C0 control
 * characters that text never contains (NUL and friends; tab, line breaks, form feed and ESC are
 * fine; strict UTF-8 or UTF-16 may carry a stray one in 100 characters). Binary formats hit a control byte within their first few hundred bytes, so the 8-bit
 * fallback does not let binary through in practice.
 */
import { sniffSubRip, sniffSubStation, sniffXml } from './detect-data-text.js';
import { officeTextKind } from './detect-office.js';
import type { FormatName } from './types.js';
import { parseUrlFile } from './url-file.js';

/** Text formats sniffText can name; everything else that is text is 'txt'. */
export type SniffedText = 'txt' | 'html' | 'svg' | 'rtf' | 'url' | 'fb2' | 'srt' | 'ass' | 'ssa' | 'xml';

/** Control characters allowed in text: \t \n \v \f \r and ESC (ANSI colours in logs). */
const ALLOWED_CONTROLS = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b]);

// Tags that start an HTML document per the WHATWG MIME sniffing standard ("text/html" patterns).
const HTML_ROOT = /^<(?:html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p)[\s/>]/i;
// SVG is XML and therefore case-sensitive; the root may carry a namespace prefix (<svg:svg>).
const SVG_ROOT = /^<(?:[A-Za-z_][\w.-]*:)?svg[\s/>]/;
const HTML_DOCTYPE = /^<!doctype\s+html[\s>]/i;
// A FictionBook e-book is XML whose root is <FictionBook> (case-sensitive, like all XML).
const FICTIONBOOK_ROOT = /^<(?:[A-Za-z_][\w.-]*:)?FictionBook[\s/>]/;

function startsWithBytes(head: Uint8Array, bytes: readonly number[]): boolean {
  return bytes.every((byte, i) => head[i] === byte);
}

/**
 * Stray controls tolerated in text that decodes as strict UTF-8 or UTF-16: one in 100 characters.
 * Real text files carry the odd one (a 0x01 pasted from a terminal, a form feed's cousin); a
 * binary file is neither valid UTF-8 nor that sparse in them. Never NUL, and never in text that
 * decodes only as an 8-bit encoding (every byte does, binary included).
 */
const STRAY_CONTROLS_PER_CHAR = 1 / 100;

/** Decodes the head as text, or returns undefined when it is not text. A truncated last character is ignored. */
export function decodeText(head: Uint8Array): string | undefined {
  let text: string;
  let strict = true;
  if (startsWithBytes(head, [0xff, 0xfe]) || startsWithBytes(head, [0xfe, 0xff])) {
    const encoding = head[0] === 0xff ? 'utf-16le' : 'utf-16be';
    try {
      // stream: true holds back a code unit cut off by the head's end instead of failing on it.
      text = new TextDecoder(encoding, { fatal: true }).decode(head.subarray(2), { stream: true });
    } catch {
      return undefined;
    }
  } else {
    try {
      // ignoreBOM: false (the default) strips a UTF-8 byte-order mark.
      text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    } catch {
      // 'latin1' is windows-1252 in the WHATWG Encoding standard: every byte decodes.
      text = new TextDecoder('latin1').decode(head);
      strict = false;
    }
  }
  let strays = 0;
  const tolerated = strict ? Math.floor(text.length * STRAY_CONTROLS_PER_CHAR) : 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 || ALLOWED_CONTROLS.has(code)) continue;
    if (code === 0 || ++strays > tolerated) return undefined;
  }
  return text;
}

/** Index just past the end of a <!DOCTYPE ...> (internal subset included), or -1 when cut off. */
function skipDoctype(text: string, start: number): number {
  const close = text.indexOf('>', start);
  const subset = text.indexOf('[', start);
  if (subset !== -1 && (close === -1 || subset < close)) {
    const subsetEnd = text.indexOf(']', subset);
    const end = subsetEnd === -1 ? -1 : text.indexOf('>', subsetEnd);
    return end === -1 ? -1 : end + 1;
  }
  return close === -1 ? -1 : close + 1;
}

/** Which markup the document's root element is, after skipping the XML prolog, comments and doctype. */
function markupRoot(text: string): 'html' | 'svg' | 'fb2' | undefined {
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end === -1) return undefined;
      i = end + 2;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end === -1) return undefined;
      i = end + 3;
    } else if (text.slice(i, i + 9).toLowerCase() === '<!doctype') {
      if (HTML_DOCTYPE.test(text.slice(i, i + 64))) return 'html';
      i = skipDoctype(text, i);
      if (i === -1) return undefined;
    } else {
      break;
    }
  }
  const root = text.slice(i, i + 64);
  if (SVG_ROOT.test(root)) return 'svg';
  if (FICTIONBOOK_ROOT.test(root)) return 'fb2';
  if (HTML_ROOT.test(root)) return 'html';
  return undefined;
}

/**
 * 'rtf', 'svg', 'html', 'fb2' or 'url' when the text says so, an office format written as text (flat
 * ODF, Excel 2003 XML, SYLK: detect-office.ts), 'txt' for any other text, undefined for non-text.
 */
export function sniffText(head: Uint8Array): SniffedText | FormatName | undefined {
  if (head.length === 0) return undefined;
  const text = decodeText(head);
  if (text === undefined) return undefined;
  if (text.startsWith('{\\rtf')) return 'rtf';
  const office = officeTextKind(text);
  if (office) return office;
  const subtitles = sniffSubRip(text) ?? sniffSubStation(text);
  if (subtitles) return subtitles;
  // Generic XML last: a specific XML vocabulary (svg, html, fb2, flat ODF) has been recognised before it.
  return markupRoot(text) ?? sniffXml(text) ?? (parseUrlFile(text) === undefined ? 'txt' : 'url');
}
