/**
 * A nesting limit for HTML, checked before turndown parses it. domino (turndown's DOM) takes time
 * quadratic in the nesting depth, and turndown walks the tree recursively: 20,000 nested <div>s,
 * 120 kB of input, kept the event loop busy for 15-30 s before overflowing the stack. Real pages
 * nest a few dozen levels deep.
 *
 * The check is a linear scan of the tags, read as the HTML tokenizer reads them, with a stack of
 * open elements, close enough to what the HTML parser builds: void elements and elements whose end tag is optional (p, li, td, ...; they
 * cannot nest without a counted parent such as ul or table) are not counted, an end tag closes
 * back to its matching open element and is ignored when there is none (as the parser ignores a
 * stray end tag), raw-text elements (script, style, ...) are skipped whole, and "/>" closes an
 * element only inside SVG or MathML (elsewhere "<div/>" opens a div).
 */
import { FileconvError } from '../../core/errors.js';

/** Deepest element nesting accepted. */
export const MAX_HTML_DEPTH = 512;

const NOT_COUNTED = new Set([
  ...['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr'],
  ...['param', 'keygen', 'frame', 'basefont', 'bgsound'],
  ...['p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'option', 'optgroup'],
  ...['rt', 'rp', 'rb', 'rtc', 'colgroup', 'caption', 'html', 'head', 'body'],
]);
const RAW_TEXT = new Set([
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'noscript',
]);
const FOREIGN = new Set(['svg', 'math']);

const SPACE = /[\t\n\f\r ]/;
const NAME_END = /[\t\n\f\r />]/;
const ATTRIBUTE_NAME_END = /[\t\n\f\r />=]/;

interface Tag {
  name: string;
  closing: boolean;
  selfClosing: boolean;
  /** Index just past the tag's ">". */
  end: number;
}

/**
 * The tag starting at `start` (a "<" followed by a letter, or "</" and a letter), read as the
 * HTML tokenizer reads it: quotes only delimit attribute values, after "=". Null when the input
 * ends inside the tag (the parser drops it). Every character is looked at once.
 */
function readTag(html: string, start: number): Tag | null {
  const closing = html[start + 1] === '/';
  let at = start + (closing ? 2 : 1);
  const nameStart = at;
  while (at < html.length && !NAME_END.test(html[at] ?? '')) at++;
  const name = html.slice(nameStart, at).toLowerCase();
  let selfClosing = false;
  while (at < html.length) {
    const char = html[at];
    if (char === '>') return { name, closing, selfClosing, end: at + 1 };
    if (char === '/' || SPACE.test(char ?? '')) {
      selfClosing = char === '/' && html[at + 1] === '>';
      at++;
      continue;
    }
    // An attribute: a name (its first character may be anything, even "="), then maybe a value.
    at++;
    while (at < html.length && !ATTRIBUTE_NAME_END.test(html[at] ?? '')) at++;
    while (at < html.length && SPACE.test(html[at] ?? '')) at++;
    if (html[at] !== '=') continue;
    at++;
    while (at < html.length && SPACE.test(html[at] ?? '')) at++;
    const quote = html[at];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, at + 1);
      if (close < 0) return null;
      at = close + 1;
    } else {
      while (at < html.length && html[at] !== '>' && !SPACE.test(html[at] ?? '')) at++;
    }
  }
  return null;
}

/** Index of the end tag `</name` at or after `from` (any case), or -1. */
function findEndTag(html: string, name: string, from: number): number {
  for (let at = html.indexOf('</', from); at >= 0; at = html.indexOf('</', at + 2)) {
    if (html.slice(at + 2, at + 2 + name.length).toLowerCase() === name) return at;
  }
  return -1;
}

/** Throws INPUT_LIMIT_EXCEEDED when `html` nests elements deeper than `maxDepth`. */
export function assertHtmlDepth(html: string, maxDepth = MAX_HTML_DEPTH): void {
  const open: string[] = [];
  let foreign = 0;
  let at = html.indexOf('<');
  while (at >= 0) {
    if (html.startsWith('<!--', at)) {
      const end = html.indexOf('-->', at + 4);
      if (end < 0) return;
      at = html.indexOf('<', end + 3);
      continue;
    }
    const first = html[at + 1] === '/' ? html[at + 2] : html[at + 1];
    if (!/[a-zA-Z]/.test(first ?? '')) {
      // "<!doctype", "<?xml": up to the next ">"; a lone "<" is text.
      const bogus = html[at + 1] === '!' || html[at + 1] === '?';
      const end = bogus ? html.indexOf('>', at) : at;
      if (end < 0) return;
      at = html.indexOf('<', end + 1);
      continue;
    }
    const tag = readTag(html, at);
    if (!tag) return;
    at = html.indexOf('<', tag.end);
    if (NOT_COUNTED.has(tag.name)) continue;
    if (tag.closing) {
      // Closes back to the matching open element; a stray end tag is ignored, as the parser does.
      const index = open.lastIndexOf(tag.name);
      if (index >= 0) for (const closed of open.splice(index)) if (FOREIGN.has(closed)) foreign--;
      continue;
    }
    if (tag.selfClosing && (foreign > 0 || FOREIGN.has(tag.name))) continue;
    if (RAW_TEXT.has(tag.name) && foreign === 0) {
      // Its content is text, not markup, up to its own end tag.
      const end = findEndTag(html, tag.name, tag.end);
      if (end < 0) return;
      at = end;
      continue;
    }
    if (FOREIGN.has(tag.name)) foreign++;
    open.push(tag.name);
    if (open.length > maxDepth) {
      throw new FileconvError(
        'INPUT_LIMIT_EXCEEDED',
        `The HTML nests elements more than ${maxDepth} levels deep.`,
        {
          details: { maxDepth },
        },
      );
    }
  }
}
