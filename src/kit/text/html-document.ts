/**
 * Small HTML helpers shared by the document converters: escaping text into HTML, decoding the
 * entities Markdown text may hold, and wrapping a body fragment into a standalone document.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** The named entities common in hand-written Markdown; others are left as written. */
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  deg: '°',
  euro: '€',
  middot: '·',
  times: '×',
  bull: '•',
};

/** Decodes character references (`&amp;`, `&#233;`, `&#xE9;`) as an HTML parser would, for text drawn outside HTML. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,8}));/g,
    (whole, dec, hex, name) => {
      if (name !== undefined) return NAMED[name as string] ?? whole;
      const code =
        dec !== undefined ? Number.parseInt(dec as string, 10) : Number.parseInt(hex as string, 16);
      // As in HTML: NUL, surrogates and values beyond Unicode become U+FFFD.
      const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return String.fromCodePoint(valid ? code : 0xfffd);
    },
  );
}

/**
 * A standalone HTML5 document around `body`. The charset declaration matters: without it, a
 * browser opening the file from disk may guess a legacy encoding and garble non-ASCII text.
 */
export function htmlDocument(body: string, title: string): string {
  return [
    '<!DOCTYPE html>',
    '<html>',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    '</head>',
    '<body>',
    body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Plain text as an HTML document: escaped into one <pre> that wraps long lines, so every space,
 * tab and line break shows as in the text. Control characters HTML forbids are dropped.
 */
export function textToHtml(text: string): string {
  const clean = text.replace(/(?![\t\n\r])\p{Cc}/gu, '');
  const firstLine = /\S[^\n]*/.exec(clean)?.[0]?.trim().slice(0, 80) ?? 'Document';
  return htmlDocument(`<pre style="white-space: pre-wrap">${escapeHtml(clean)}</pre>`, firstLine);
}
