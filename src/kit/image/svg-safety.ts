/**
 * Refuses SVG documents that would make the renderer reach outside the file: external images,
 * stylesheets, XInclude, fonts and XML external entities. Runs on the text BEFORE any parser sees
 * it, so nothing is ever fetched or read. Only same-document references (`#id`) and inline
 * `data:` URLs are allowed; an SVG inside a data: URL is vetted the same way.
 *
 * This is a conservative scanner, not an XML parser: it looks at the whole text (comments and
 * CDATA included), so it cannot be fooled by markup that a parser would read differently, at the
 * price of rare false positives (a URL inside a comment in an href-like attribute is refused
 * too). Escapes are decoded first (XML character references, CSS backslash escapes) so
 * `&#104;ttp:` or `u\72l(` cannot smuggle a reference past it.
 *
 * Hyperlinks are not resource loads: the href of an `<a>` element (doxygen and graphviz write
 * `<a xlink:href="page.html">` on every node) is never fetched by a renderer, so it may point
 * anywhere. The element an href belongs to is the tag opened by the nearest `<` before it; that
 * holds only while every `<` in the decoded text is markup, so a document that spells a `<` as
 * an escape (it could then hide one inside an attribute value) gets no such allowance.
 */
import { FileconvError } from '../../core/errors.js';

/** A DOCTYPE that merely names the public SVG DTD: harmless, stripped before rendering. */
const PLAIN_DOCTYPE = /<!DOCTYPE\s+svg\s+PUBLIC\s+"[^"[\]<>]*"(?:\s+"[^"[\]<>]*")?\s*>/gi;

/** Decodes the escapes a parser would decode, so the checks see what the renderer sees. */
function normalise(text: string): string {
  const fromCode = (code: number) => (code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '');
  return (
    text
      .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => fromCode(Number.parseInt(hex, 16)))
      .replace(/&#(\d+);?/g, (_, dec: string) => fromCode(Number.parseInt(dec, 10)))
      .replace(
        /&(lt|gt|quot|apos|amp);/g,
        (_, name: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[name] ?? '',
      )
      // CSS escapes: `\75` or `\u` -> `u`.
      .replace(/\\([0-9a-f]{1,6})\s?/gi, (_, hex: string) => fromCode(Number.parseInt(hex, 16)))
      .replace(/\\([^\n])/g, '$1')
  );
}

/** True for references that stay inside the document: `#id`, `data:` URLs, or empty. */
function isLocalReference(raw: string): boolean {
  // URL parsers drop ASCII whitespace and control characters inside a scheme ("jav\tascript:").
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const value = raw.replace(/[\u0000-\u0020\u007f]+/g, '').toLowerCase();
  return value === '' || value.startsWith('#') || value.startsWith('data:');
}

/**
 * Values of href, xlink:href, any-prefix:href and src attributes (XInclude, foreign content).
 * Each search restarts right after `href=`, not after the value, so an href hidden inside
 * another "value" (a quote opened in a comment) is still seen; each value ends at the next
 * quote of its kind, which keeps the scan linear. An unterminated value is refused.
 */
function* attributeReferences(text: string, linksAllowed: boolean): Generator<string> {
  for (const match of text.matchAll(/(?:href|src)\s*=\s*(["'])/gi)) {
    const at = match.index ?? 0;
    const start = at + match[0].length;
    const end = text.indexOf(match[1] ?? '"', start);
    if (end < 0) throw unsafe('unterminated attribute value');
    if (linksAllowed && /^href/i.test(match[0]) && isLinkElement(text, at)) continue;
    yield text.slice(start, end);
  }
}

/** Whether the tag opened by the nearest `<` before `at` is an `<a>` (any namespace prefix). */
function isLinkElement(text: string, at: number): boolean {
  const open = text.lastIndexOf('<', at);
  if (open < 0) return false;
  const name = /^<\s*([\w.-]+:)?([\w.-]+)\s/.exec(text.slice(open, at + 1));
  return name?.[2]?.toLowerCase() === 'a';
}

/** Whether every `<` of the decoded text is one the source wrote as `<` (none came from an escape). */
function everyAngleIsMarkup(raw: string, decoded: string): boolean {
  const count = (text: string) => text.split('<').length;
  return count(raw) === count(decoded);
}

/** Targets of CSS url(...) in <style>, style="" and presentation attributes (fill="url(#g)"). */
function* cssUrls(text: string): Generator<string> {
  for (const match of text.matchAll(/url\s*\(\s*/gi)) {
    const start = (match.index ?? 0) + match[0].length;
    const quote = text[start] === '"' || text[start] === "'" ? text[start] : undefined;
    const end = quote ? text.indexOf(quote, start + 1) : text.indexOf(')', start);
    // A forgiving CSS parser may still read an unterminated url(: refuse it.
    if (end < 0) throw unsafe('unterminated url()');
    yield text.slice(quote ? start + 1 : start, end);
  }
}

function unsafe(reason: string, reference?: string): FileconvError {
  const shown = reference === undefined ? '' : `: ${reference.slice(0, 100)}`;
  return new FileconvError('UNSAFE_INPUT', `SVG input refused: ${reason}${shown}`, {
    details: { reason, ...(reference === undefined ? {} : { reference: reference.slice(0, 200) }) },
  });
}

/**
 * Throws UNSAFE_INPUT when the SVG text references anything outside itself; otherwise returns
 * the text to render (with a plain public DOCTYPE removed, so no DTD could ever be loaded).
 */
export function assertSafeSvg(svgText: string): string {
  scan(svgText, 0);
  // Escapes are not decoded inside a DOCTYPE, so the raw text must be clean on its own too.
  const rendered = svgText.replace(PLAIN_DOCTYPE, '');
  if (/<!DOCTYPE/i.test(rendered)) throw unsafe('malformed DOCTYPE');
  return rendered;
}

/** How deep SVG may nest inside data: URLs (an icon inside a drawing is common; more is not). */
const MAX_NESTING = 2;

function scan(svgText: string, depth: number): void {
  const text = normalise(svgText);

  if (/<!ENTITY/i.test(text)) throw unsafe('XML entity declarations are not allowed');
  const withoutPlainDoctype = text.replace(PLAIN_DOCTYPE, '');
  if (/<!DOCTYPE/i.test(withoutPlainDoctype)) {
    throw unsafe('only a plain public SVG DOCTYPE is allowed (no SYSTEM identifier, no internal subset)');
  }
  if (/<\?xml-stylesheet/i.test(text)) throw unsafe('external stylesheets are not allowed');
  if (/@import/i.test(text)) throw unsafe('CSS @import is not allowed');

  const linksAllowed = everyAngleIsMarkup(svgText, text);
  for (const value of attributeReferences(text, linksAllowed))
    checkReference(value, depth, 'external reference');
  for (const value of cssUrls(text)) checkReference(value, depth, 'external url()');
}

/**
 * A reference must stay in the document; a data: URL is opened too, because the renderer may
 * load an SVG from it (whatever media type it claims), and that SVG's references count as well.
 */
function checkReference(value: string, depth: number, reason: string): void {
  if (!isLocalReference(value)) throw unsafe(reason, value);
  const payload = dataUrlPayload(value);
  if (payload === undefined) return;
  if (payload.startsWith('\x1f\x8b')) throw unsafe('compressed data inside a data: URL');
  if (!/<svg|<\?xml|<!DOCTYPE/i.test(payload)) return; // raster image data
  if (depth >= MAX_NESTING) throw unsafe('SVG nested too deeply in data: URLs');
  scan(payload, depth + 1);
}

/** The decoded body of a data: URL (latin1 for base64, so bytes stay bytes), or undefined. */
function dataUrlPayload(value: string): string | undefined {
  const match = /^\s*data:([^,]*),([\s\S]*)$/i.exec(value);
  if (!match) return undefined;
  const [, meta = '', body = ''] = match;
  try {
    return /;\s*base64\s*$/i.test(meta)
      ? Buffer.from(body, 'base64').toString('latin1')
      : decodeURIComponent(body);
  } catch {
    throw unsafe('undecodable data: URL');
  }
}
