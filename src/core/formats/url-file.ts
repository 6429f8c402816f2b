/**
 * The 'url' format: a file that names one web page to capture. Two shapes are read: an Internet
 * shortcut as Windows writes it (an INI file whose [InternetShortcut] section has `URL=...`,
 * often after a [DEFAULT] section) and plain text holding one http(s) URL and nothing else.
 * Detection (detect-text.ts) and the Chromium converter read URL files with the same function,
 * so what is detected as a URL is exactly what gets fetched; an HTTP layer that takes
 * `{ "url": ... }` writes the job's input with urlFileContent.
 */
import { FileconvError } from '../errors.js';

/** Longest URL accepted, in characters (browsers and servers give up near here too). */
export const MAX_URL_LENGTH = 8192;

const SECTION = /^\[([^\]]*)\]$/;
const KEY_VALUE = /^([^=;[]+)=(.*)$/;
/** A bare URL line: the scheme is http(s) so that ordinary text ('note: call back') is never taken for one. */
const BARE_WEB_URL = /^https?:\/\/\S+$/i;

/**
 * The URL a URL file names, as written (not yet checked for scheme or address: the converter
 * does that); undefined when the text is not a URL file. A shortcut's URL may have any scheme,
 * so a shortcut to file:/// is recognised and then refused, not read as plain text.
 */
export function parseUrlFile(text: string): string | undefined {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\n|\r/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (lines.length === 0) return undefined;
  if (lines.length === 1) {
    const only = lines[0]!;
    return only.length <= MAX_URL_LENGTH && BARE_WEB_URL.test(only) ? only : undefined;
  }
  return shortcutUrl(lines);
}

/** `URL=` of the [InternetShortcut] section, when every line is INI (sections, keys, ; comments). */
function shortcutUrl(lines: readonly string[]): string | undefined {
  let section: string | undefined;
  let url: string | undefined;
  for (const line of lines) {
    if (line.startsWith(';')) continue;
    const header = SECTION.exec(line);
    if (header) {
      section = header[1]!.trim().toLowerCase();
      continue;
    }
    const pair = KEY_VALUE.exec(line);
    if (!pair) return undefined;
    if (section === 'internetshortcut' && pair[1]!.trim().toLowerCase() === 'url' && url === undefined) {
      url = pair[2]!.trim();
    }
  }
  return url !== undefined && url !== '' && url.length <= MAX_URL_LENGTH ? url : undefined;
}

/**
 * The content of a URL file for `url` (an Internet shortcut), for hosts that accept a URL and
 * hand the converter a file. Throws INVALID_REQUEST for text that is not an absolute URL; the
 * scheme and the address are judged when the page is fetched.
 */
export function urlFileContent(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch (error) {
    throw new FileconvError('INVALID_REQUEST', `Not an absolute URL: ${JSON.stringify(url.slice(0, 200))}`, {
      cause: error,
    });
  }
  if (parsed.href.length > MAX_URL_LENGTH) {
    throw new FileconvError('INVALID_REQUEST', `The URL is longer than ${MAX_URL_LENGTH} characters.`);
  }
  // The WHATWG serialisation percent-encodes line breaks, so the value cannot end the INI line early.
  return `[InternetShortcut]\r\nURL=${parsed.href}\r\n`;
}
