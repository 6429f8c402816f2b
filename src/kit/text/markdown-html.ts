/**
 * Markdown to a standalone HTML document, on marked (GitHub-flavoured).
 *
 * Raw HTML inside Markdown is escaped by default (shown as text, nothing lost): the output is a
 * document that users open in a browser, often from the service's own download, and markup from
 * an untrusted upload could carry <script>, event handlers or <iframe>s into it. A host whose
 * inputs are trusted can keep it (factory option `markdownHtml: 'keep'`). Either way, links and
 * images whose URL would run code (javascript:, vbscript:, data: other than images) lose the
 * URL and keep their text. Images with http(s) URLs are kept: in Markdown they are the author's
 * content, and whoever views the HTML loads them just as a Markdown viewer would.
 */
import type { Tokens } from 'marked';
import type { MarkedModule } from '../libraries/documents.js';
import { decodeEntities, escapeHtml, htmlDocument } from './html-document.js';
import { inlineText } from './markdown-inline.js';

/** What happens to raw HTML found in Markdown. */
export type RawHtmlPolicy = 'escape' | 'keep';

/** Whether a URL would run code rather than point somewhere when followed or loaded. */
export function isScriptableUrl(url: string, image: boolean): boolean {
  // Browsers ignore ASCII whitespace and controls inside the scheme ("java\tscript:").
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.replace(/[\p{Cc} ]/gu, ''))?.[1]?.toLowerCase();
  if (scheme === 'javascript' || scheme === 'vbscript') return true;
  if (scheme === 'data') return !(image && /^data:image\/(?:png|jpe?g|gif|webp|avif)[;,]/i.test(url.trim()));
  return false;
}

function titleAttribute(title: string | null | undefined): string {
  return title ? ` title="${escapeHtml(decodeEntities(title))}"` : '';
}

export function markdownToHtml(marked: MarkedModule, markdown: string, rawHtml: RawHtmlPolicy): string {
  const instance = new marked.Marked({ gfm: true, async: false });
  instance.use({
    renderer: {
      // Links and images are written here, not by marked, which copies a destination into the
      // attribute as written: "&#106;avascript:" would pass any check and reach the browser as
      // "javascript:". Here the destination is decoded first (as CommonMark says), checked, and
      // written escaped, so the browser ends up with exactly the URL that was checked.
      link(token: Tokens.Link) {
        const text = this.parser.parseInline(token.tokens);
        const href = decodeEntities(token.href);
        if (isScriptableUrl(href, false)) return text;
        return `<a href="${escapeHtml(href)}"${titleAttribute(token.title)}>${text}</a>`;
      },
      image(token: Tokens.Image) {
        const src = decodeEntities(token.href);
        const alt = escapeHtml(decodeEntities(token.text));
        if (isScriptableUrl(src, true)) return alt;
        return `<img src="${escapeHtml(src)}" alt="${alt}"${titleAttribute(token.title)}>`;
      },
      html(token: Tokens.HTML | Tokens.Tag) {
        if (rawHtml === 'keep') return false;
        const text = escapeHtml(token.text);
        return token.block ? `<p>${text.trim()}</p>\n` : text;
      },
    },
  });
  const tokens = instance.lexer(markdown);
  const heading = tokens.find((token): token is Tokens.Heading => token.type === 'heading');
  const title = heading ? inlineText(heading.tokens) : 'Document';
  return htmlDocument(instance.parser(tokens), title);
}
