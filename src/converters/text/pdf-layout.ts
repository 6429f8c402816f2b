/**
 * A small text layout engine on pdf-lib, which has none: a cursor that moves down the page,
 * paragraphs broken into lines to the text width (line-breaker.ts), a new page when the next line
 * would cross the bottom margin. Enough for plain text and simply styled Markdown; not a
 * typesetter: no justification or hyphenation, font fallback per character (fonts.ts), right-to-left text only roughly
 * (shaping.ts) and left-aligned.
 *
 * Each page's content stream is written here as PDF operators and compressed as soon as the page
 * is full. pdf-lib's drawText would keep ~10 operator objects per line until the document is
 * saved: about 1 GB of heap for 20 MiB of text, against a few MB of compressed streams.
 */
import { deflateSync } from 'node:zlib';
import type { PDFDocument, PDFPage } from 'pdf-lib';
import { throwIfAborted } from '../../core/abort.js';
import type { LayoutFont } from './fonts.js';
import { breakLines } from './line-breaker.js';

/** Page size and margin, in PDF points (1/72 inch). */
export interface PageSetup {
  width: number;
  height: number;
  margin: number;
}

export interface TextStyle {
  font: LayoutFont;
  /** Font size in points. */
  size: number;
  /** Grey level, 0 black (default) to 1 white. */
  grey?: number;
}

export interface ParagraphOptions {
  /** Left indent from the margin, in points. */
  indent?: number;
  /** Drawn left of the first line, in the indent (a bullet, "3.", a checkbox). */
  marker?: string;
}

/** Line height as a multiple of the font size; baseline offset below the top of the line box. */
const LEADING = 1.3;
const BASELINE = 0.95;
/** Lines drawn between checks of the abort signal and yields to the event loop. */
const LINES_PER_YIELD = 256;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A number for a content stream: at most two decimals, no exponent. */
const num = (value: number) => (Math.round(value * 100) / 100).toString();

export class PdfTextLayout {
  private page: PDFPage | undefined;
  /** Top of the next line box. */
  private y = 0;
  private linesSinceYield = 0;
  /** Operators of the current page's content stream. */
  private operators: string[] = [];
  /** The current page's resource names of the fonts used on it. */
  private fontNames = new Map<LayoutFont, string>();

  constructor(
    private readonly doc: PDFDocument,
    private readonly setup: PageSetup,
    private readonly signal: AbortSignal,
  ) {}

  get textWidth(): number {
    return this.setup.width - 2 * this.setup.margin;
  }

  newPage(): void {
    this.flush();
    this.page = this.doc.addPage([this.setup.width, this.setup.height]);
    this.fontNames.clear();
    this.y = this.setup.height - this.setup.margin;
  }

  /** Vertical space before the next block; none at the top of a page. */
  gap(points: number): void {
    if (this.page && this.y < this.setup.height - this.setup.margin) this.y -= points;
  }

  /** A thin horizontal rule across the text width (Markdown's `---`). */
  rule(indent = 0): void {
    this.pageFor(6);
    const x = this.setup.margin + indent;
    const y = num(this.y - 3);
    this.operators.push(
      `q 0.6 G 0.5 w ${num(x)} ${y} m ${num(this.setup.width - this.setup.margin)} ${y} l S Q`,
    );
    this.y -= 6;
  }

  /**
   * Draws one paragraph: `text` may hold line feeds (hard breaks); each part is broken to the
   * width. Yields to the event loop now and then, so a huge paragraph can still be aborted.
   */
  async paragraph(text: string, style: TextStyle, options: ParagraphOptions = {}): Promise<void> {
    const { font, size } = style;
    const indent = Math.min(options.indent ?? 0, this.textWidth / 2);
    const maxWidth = this.textWidth - indent;
    const grey = style.grey ?? 0;
    const measure = (part: string) => font.width(part, size);
    let marker = options.marker === undefined ? '' : font.clean(options.marker);
    for (const part of text.split('\n')) {
      for (const line of breakLines(font.clean(part), maxWidth, measure)) {
        this.pageFor(size * LEADING);
        const baseline = this.y - size * BASELINE;
        const x = this.setup.margin + indent;
        if (marker !== '') {
          const markerX = Math.max(this.setup.margin, x - measure(marker) - size * 0.4);
          this.showText(marker, font, size, grey, markerX, baseline);
          marker = '';
        }
        if (line !== '') this.showText(line, font, size, grey, x, baseline);
        this.y -= size * LEADING;
        if (++this.linesSinceYield >= LINES_PER_YIELD) {
          this.linesSinceYield = 0;
          await yieldToEventLoop();
          throwIfAborted(this.signal);
        }
      }
    }
  }

  /** Completes the last page; at least one page, so that an empty input still makes a valid (blank) PDF. */
  finish(): void {
    if (!this.page) this.newPage();
    this.flush();
  }

  /**
   * One line of text, face by face (a fallback face draws what the main one lacks): each run's
   * Tj moves the pen by its glyphs' widths, so runs follow on. Encoding adds the glyphs to the
   * fonts' subsets.
   */
  private showText(text: string, font: LayoutFont, size: number, grey: number, x: number, y: number): void {
    const shown = font.runs(text).map((run) => {
      const glyphs = run.font.pdf.encodeText(run.text).toString();
      return `${this.fontName(run.font)} ${num(size)} Tf ${glyphs} Tj`;
    });
    this.operators.push(`BT ${num(grey)} g ${num(x)} ${num(y)} Td ${shown.join(' ')} ET`);
  }

  /** The current page's resource name for `font`, added on first use. */
  private fontName(font: LayoutFont): string {
    let name = this.fontNames.get(font);
    if (name === undefined) {
      name = (this.page as PDFPage).node.newFontDictionary(font.pdf.name, font.pdf.ref).toString();
      this.fontNames.set(font, name);
    }
    return name;
  }

  /** Compresses the current page's operators into its content stream. */
  private flush(): void {
    if (!this.page || this.operators.length === 0) return;
    const { context } = this.doc;
    // Node's zlib rather than pdf-lib's flateStream (pako, in JavaScript): several times faster.
    // The operators are ASCII (glyphs are hex strings), so latin1 is exact.
    const compressed = deflateSync(Buffer.from(this.operators.join('\n'), 'latin1'));
    const stream = context.stream(compressed, { Filter: 'FlateDecode' });
    this.page.node.addContentStream(context.register(stream));
    this.operators = [];
  }

  /** The current page if `height` more fits above the bottom margin, else a new one. */
  private pageFor(height: number): PDFPage {
    if (
      !this.page ||
      (this.y - height < this.setup.margin && this.y < this.setup.height - this.setup.margin)
    ) {
      this.newPage();
    }
    return this.page as PDFPage;
  }
}
