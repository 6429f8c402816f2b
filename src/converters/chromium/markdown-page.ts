/**
 * Markdown as the page Chromium prints: marked's HTML (as the text converter makes it, raw HTML
 * escaped, script URLs dropped: office/text/markdown-html.ts) with a plain print stylesheet, so a
 * README comes out readable: a sans-serif body, wrapped code blocks, ruled tables, images that
 * fit the page.
 */
import { loadMarked } from '../../kit/libraries/documents.js';
import { markdownToHtml } from '../../kit/text/markdown-html.js';

const STYLE = `<style>
body { font-family: 'DejaVu Sans', 'Liberation Sans', Arial, sans-serif; font-size: 11pt; line-height: 1.45; color: #111; margin: 0; }
@page { margin: 20mm; }
h1, h2, h3, h4 { line-height: 1.2; page-break-after: avoid; }
pre, code { font-family: 'DejaVu Sans Mono', 'Liberation Mono', monospace; font-size: 9.5pt; }
pre { background: #f4f4f4; padding: 8px; white-space: pre-wrap; overflow-wrap: anywhere; }
table { border-collapse: collapse; }
th, td { border: 1px solid #999; padding: 3px 6px; }
img { max-width: 100%; }
blockquote { margin-left: 0; padding-left: 12px; border-left: 3px solid #ccc; color: #444; }
</style>`;

export async function markdownPage(markdown: string): Promise<string> {
  const text = markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown;
  const html = markdownToHtml(await loadMarked(), text, 'escape');
  return html.replace('</head>', `${STYLE}\n</head>`);
}
