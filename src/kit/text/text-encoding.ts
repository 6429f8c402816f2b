/**
 * Which encoding a text input is in. Detection accepts UTF-8, UTF-16 with a byte-order mark and
 * 8-bit text (src/formats/detect-text.ts), so the converters must read all three: reading every
 * input as UTF-8 turned a UTF-16LE Hindi file into garbage and a Windows-1252 page's accented
 * letters into U+FFFD.
 *
 * The rules, in order: a byte-order mark; UTF-16 without one, told by the zero bytes of ASCII
 * text in every other position; valid UTF-8; the charset an HTML page declares in its head; else
 * Windows-1252 (what the WHATWG Encoding standard and browsers take unlabelled 8-bit text for).
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

export interface TextEncoding {
  /** A label TextDecoder accepts ('utf-8', 'utf-16le', 'windows-1252', ...). */
  encoding: string;
  /** Bytes of byte-order mark at the start, skipped when decoding. */
  bom: number;
}

/** Bytes sniffed: enough for an HTML head's meta charset and a fair sample of the text. */
const SNIFF_BYTES = 64 * 1024;

function startsWith(head: Uint8Array, bytes: readonly number[]): boolean {
  return bytes.every((byte, i) => head[i] === byte);
}

/** 'utf-16le' or 'utf-16be' when most code units of the head have one zero byte on the same side. */
function bomlessUtf16(head: Uint8Array): string | undefined {
  const units = Math.floor(Math.min(head.length, 4096) / 2);
  if (units < 2) return undefined;
  let zeroHigh = 0;
  let zeroLow = 0;
  for (let i = 0; i < units; i++) {
    const first = head[2 * i];
    const second = head[2 * i + 1];
    if (first !== 0 && second === 0) zeroHigh++;
    if (first === 0 && second !== 0) zeroLow++;
  }
  if (zeroHigh / units > 0.4 && zeroLow === 0) return 'utf-16le';
  if (zeroLow / units > 0.4 && zeroHigh === 0) return 'utf-16be';
  return undefined;
}

function isUtf8(head: Uint8Array): boolean {
  try {
    // stream: true tolerates a character cut off by the end of the sample.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** The encoding TextDecoder knows by `label`, or undefined. */
function knownEncoding(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}

/**
 * The encoding an XML declaration names (`<?xml version="1.0" encoding="IBM866"?>`, which must
 * open the file), if TextDecoder knows it.
 */
export function xmlDeclaredEncoding(head: Uint8Array): string | undefined {
  const text = new TextDecoder('latin1').decode(head.subarray(0, 1024));
  return knownEncoding(/^<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z][\w.:-]*)["']/.exec(text)?.[1]);
}

/**
 * The charset an HTML page declares (<meta charset> or http-equiv content), or an XHTML page's
 * XML declaration, if TextDecoder knows it.
 */
function declaredCharset(head: Uint8Array): string | undefined {
  const text = new TextDecoder('latin1').decode(head.subarray(0, 4096));
  const meta = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(text)?.[1];
  return knownEncoding(meta) ?? xmlDeclaredEncoding(head);
}

/** The encoding a byte-order mark at the start of `head` names, or undefined without one. */
export function byteOrderMark(head: Uint8Array): TextEncoding | undefined {
  if (startsWith(head, [0xef, 0xbb, 0xbf])) return { encoding: 'utf-8', bom: 3 };
  if (startsWith(head, [0xff, 0xfe])) return { encoding: 'utf-16le', bom: 2 };
  if (startsWith(head, [0xfe, 0xff])) return { encoding: 'utf-16be', bom: 2 };
  return undefined;
}

/** The encoding of text whose first bytes are `head` (see the rules above). */
export function sniffEncoding(head: Uint8Array): TextEncoding {
  const marked = byteOrderMark(head);
  if (marked) return marked;
  const utf16 = bomlessUtf16(head);
  if (utf16) return { encoding: utf16, bom: 0 };
  if (isUtf8(head)) return { encoding: 'utf-8', bom: 0 };
  // A page that declares UTF-8 but is not (the sample failed above) is still read as 8-bit text.
  const declared = declaredCharset(head);
  if (declared && declared !== 'utf-8') return { encoding: declared, bom: 0 };
  return { encoding: 'windows-1252', bom: 0 };
}

/** The encoding of the file at `path`, from its first bytes. */
export async function fileEncoding(path: string): Promise<TextEncoding> {
  const handle = await open(path, 'r');
  try {
    const head = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
    return sniffEncoding(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** `bytes` (a whole file) decoded as `encoding`, the byte-order mark dropped; invalid sequences become U+FFFD. */
export function decodeAll(bytes: Uint8Array, { encoding, bom }: TextEncoding): string {
  return new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes.subarray(bom));
}

/**
 * The file at `path` decoded chunk by chunk (a stream: never the whole file at once), the
 * byte-order mark dropped. `onBytes` hears how many bytes were read so far (progress).
 */
export async function* decodedChunks(
  path: string,
  { encoding, bom }: TextEncoding,
  onBytes?: (bytesRead: number) => void,
): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding, { ignoreBOM: true });
  const input = createReadStream(path, { start: bom });
  let read = bom;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      read += chunk.length;
      onBytes?.(read);
      const text = decoder.decode(chunk, { stream: true });
      if (text !== '') yield text;
    }
    const rest = decoder.decode();
    if (rest !== '') yield rest;
  } finally {
    input.destroy();
  }
}
