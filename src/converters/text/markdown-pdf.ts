/**
 * Markdown to PDF: marked's lexer parses the document into tokens, and this walks them onto the
 * page with a deliberately simple style: headings larger and bold, lists with bullets or numbers,
 * code blocks in the monospaced face, block quotes indented in grey, tables as one line per row
 * with cells separated by a bar. Inline emphasis, links and code spans keep their text but not
 * their look (one face per paragraph); an image keeps its alt text; raw HTML keeps its text.
 */
import type { Token, Tokens } from 'marked';
import type { MarkedModule } from '../../kit/libraries/documents.js';
import { childTokens, inlineText } from '../../kit/text/markdown-inline.js';
import type { LayoutFont } from './fonts.js';
import type { TextStyle } from './pdf-layout.js';
import { expandTabs, type OpenPdf, openPdf, type PdfJob, savePdf, withFallbackFont } from './text-pdf.js';

/** Heading size as a multiple of the body size, by level. */
const HEADING_SCALE = [2, 1.6, 1.35, 1.2, 1.1, 1] as const;
const BULLETS = ['•', '◦', '▪'] as const;

interface BlockContext {
  indent: number;
  grey: number;
  listDepth: number;
}

class MarkdownRenderer {
  /** A list item's marker, drawn with the item's first block. */
  private marker: string | undefined;
  private readonly base: number;
  private readonly body: LayoutFont;

  constructor(
    private readonly pdf: OpenPdf,
    job: PdfJob,
    private readonly htmlToText: (html: string) => Promise<string>,
  ) {
    this.base = job.settings.fontSize;
    this.body = job.settings.monospace ? pdf.fonts.mono : pdf.fonts.regular;
  }

  private async text(text: string, style: TextStyle, ctx: BlockContext, after: number): Promise<void> {
    const marker = this.marker;
    this.marker = undefined;
    // Line feeds at the end (a trailing hard break, HTML's last block) would draw empty lines.
    const content = text.replace(/\n+$/, '');
    await this.pdf.layout.paragraph(content, { grey: ctx.grey, ...style }, { indent: ctx.indent, marker });
    this.pdf.layout.gap(after);
  }

  async blocks(
    tokens: readonly Token[],
    ctx: BlockContext,
    onBlock?: (index: number) => void,
  ): Promise<void> {
    const { layout, fonts } = this.pdf;
    const body: TextStyle = { font: this.body, size: this.base };
    for (const [index, token] of tokens.entries()) {
      onBlock?.(index);
      switch (token.type) {
        case 'heading': {
          const heading = token as Tokens.Heading;
          const size = this.base * (HEADING_SCALE[heading.depth - 1] ?? 1);
          layout.gap(size * 0.5);
          await this.text(inlineText(heading.tokens), { font: fonts.bold, size }, ctx, size * 0.3);
          break;
        }
        case 'paragraph':
          await this.text(inlineText((token as Tokens.Paragraph).tokens), body, ctx, this.base * 0.6);
          break;
        case 'text': {
          // Block-level text: the content of a tight list item.
          await this.text(inlineText([token]), body, ctx, this.base * 0.2);
          break;
        }
        case 'code': {
          const code = (token as Tokens.Code).text.split('\n').map(expandTabs).join('\n');
          const style = { font: fonts.mono, size: this.base * 0.9 };
          await this.text(code, style, { ...ctx, indent: ctx.indent + this.base }, this.base * 0.6);
          break;
        }
        case 'blockquote':
          await this.blocks((token as Tokens.Blockquote).tokens, {
            ...ctx,
            indent: ctx.indent + this.base * 1.5,
            grey: 0.35,
          });
          break;
        case 'list':
          await this.list(token as Tokens.List, ctx);
          layout.gap(this.base * 0.4);
          break;
        case 'table':
          await this.table(token as Tokens.Table, ctx);
          break;
        case 'hr':
          layout.rule(ctx.indent);
          layout.gap(this.base * 0.6);
          break;
        case 'html': {
          const text = await this.htmlToText((token as Tokens.HTML).text);
          if (text.trim() !== '') await this.text(text, body, ctx, this.base * 0.6);
          break;
        }
        case 'space':
        case 'def':
        case 'checkbox':
          break;
        default: {
          // Tokens of marked extensions: keep whatever text they carry.
          const nested = childTokens(token);
          if (nested) await this.blocks(nested, ctx);
          else if ('text' in token && typeof token.text === 'string')
            await this.text(token.text, body, ctx, 0);
        }
      }
    }
  }

  private async list(list: Tokens.List, ctx: BlockContext): Promise<void> {
    const start = typeof list.start === 'number' ? list.start : 1;
    const inner = { ...ctx, indent: ctx.indent + this.base * 1.8, listDepth: ctx.listDepth + 1 };
    for (const [index, item] of list.items.entries()) {
      if (item.task) this.marker = item.checked ? '☑' : '☐';
      else if (list.ordered) this.marker = `${start + index}.`;
      else this.marker = BULLETS[ctx.listDepth % BULLETS.length];
      await this.blocks(item.tokens, inner);
    }
    this.marker = undefined;
  }

  /** One line per row, cells separated by a bar; the header row in bold. */
  private async table(table: Tokens.Table, ctx: BlockContext): Promise<void> {
    const row = (cells: readonly Tokens.TableCell[]) =>
      cells.map((cell) => inlineText(cell.tokens)).join('  |  ');
    await this.text(row(table.header), { font: this.pdf.fonts.bold, size: this.base }, ctx, this.base * 0.2);
    for (const cells of table.rows) {
      await this.text(row(cells), { font: this.body, size: this.base }, ctx, this.base * 0.2);
    }
    this.pdf.layout.gap(this.base * 0.4);
  }
}

/** Lays out `markdown` as a PDF. `htmlToText` renders raw HTML blocks (loaded only when one occurs). */
export async function markdownToPdf(
  markdown: string,
  marked: MarkedModule,
  baseJob: PdfJob,
  htmlToText: (html: string) => Promise<string>,
): Promise<Uint8Array> {
  const tokens = new marked.Lexer({ gfm: true }).lex(markdown);
  baseJob.onProgress(0.1);
  // The source's characters stand for the text drawn: a fallback face is chosen before page one.
  const job = await withFallbackFont(baseJob, [markdown]);
  const pdf = await openPdf(job);
  const first = tokens.find((token): token is Tokens.Heading => token.type === 'heading');
  if (first) pdf.doc.setTitle(inlineText(first.tokens));
  const renderer = new MarkdownRenderer(pdf, job, htmlToText);
  await renderer.blocks(tokens, { indent: 0, grey: 0, listDepth: 0 }, (index) => {
    if (index % 64 === 0) job.onProgress(0.1 + (0.75 * index) / tokens.length);
  });
  return savePdf(pdf);
}
