/**
 * The text-document converter, all in JavaScript: Markdown to HTML (marked), HTML to Markdown and
 * to plain text (turndown), Markdown to plain text, plain text to HTML, and plain text or Markdown
 * to PDF (pdf-lib with embedded DejaVu fonts, laid out here: wrapping, pagination, margins; see
 * office/text/pdf-layout.ts).
 *
 * The libraries load lazily on first use. Inputs are capped (`maxInputBytes`, `maxMarkupBytes`)
 * before they are read; plain text reaches the PDF line by line. HTML is checked for absurd
 * nesting before it is parsed (office/text/html-depth.ts). Every failure is a FileconvError, and
 * the output appears at `outputPath` only when complete.
 */
import { statSync } from 'node:fs';
import { z } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { edgeGuard, runInProcess } from '../../kit/converter-kit.js';
import { isInstalled } from '../../kit/engine-packages.js';
import { loadMarked, loadPdfEngine, loadTurndown, packageVersion } from '../../kit/libraries/documents.js';
import { mapDocumentError } from '../../kit/text/document-errors.js';
import { htmlToMarkdown, htmlToText } from '../../kit/text/html-convert.js';
import { textToHtml } from '../../kit/text/html-document.js';
import { markdownToHtml, type RawHtmlPolicy } from '../../kit/text/markdown-html.js';
import { checkInputSize, readTextInput, writeOutput } from '../../kit/text/text-io.js';
import { dejaVuFontFiles, type FontFiles } from './fonts.js';
import { markdownToPdf } from './markdown-pdf.js';
import { TEXT } from './registration.js';
import { TEXT_EDGES } from './text-edges.js';
import { type PdfOptions, pdfSettings } from './text-options.js';
import { type PdfJob, textToPdf } from './text-pdf.js';

export { TEXT_FACTORY, TEXT_REGISTRATION } from './registration.js';

// Named apart from the PDF converter's own pdfOptionsSchema (fileconv/converters/pdf).
export {
  PDF_DEFAULTS as TEXT_PDF_DEFAULTS,
  type PdfOptions as TextPdfOptions,
  pdfOptionsSchema as textPdfOptionsSchema,
} from './text-options.js';

export interface TextConverterOptions {
  /**
   * Largest plain-text input in bytes; larger ones fail with INPUT_LIMIT_EXCEEDED before being
   * read. Default 20 MiB (as PDF: ~30 s of CPU and ~400 MB of memory, since pdf-lib holds the PDF).
   */
  maxInputBytes?: number;
  /**
   * Largest HTML or Markdown input in bytes, parsed whole into a tree: HTML peaks at ~40 times its
   * size in memory (turndown's DOM). Default 5 MiB (~300 MB; as PDF from Markdown ~10 s of CPU).
   */
  maxMarkupBytes?: number;
  /**
   * TrueType/OpenType files for PDF output, e.g. a CJK font: `regular` for body text, `bold` for
   * headings, `mono` for code. Default: DejaVu Sans, Sans Bold and Sans Mono. When only `regular`
   * is given, it serves for all three (its coverage matters more than a bold face).
   */
  fonts?: Partial<FontFiles>;
  /** Raw HTML inside Markdown, in Markdown to HTML: 'escape' (shown as text) or 'keep' (trusted inputs only). Default 'escape'. */
  markdownHtml?: RawHtmlPolicy;
}

export const TEXT_DEFAULTS = {
  maxInputBytes: 20 * 1024 * 1024,
  maxMarkupBytes: 5 * 1024 * 1024,
  markdownHtml: 'escape',
} as const;

const fontPath = z.string().min(1);
const factoryOptionsSchema = z.strictObject({
  maxInputBytes: z.int().min(1).optional(),
  maxMarkupBytes: z.int().min(1).optional(),
  fonts: z
    .strictObject({ regular: fontPath.optional(), bold: fontPath.optional(), mono: fontPath.optional() })
    .optional(),
  markdownHtml: z.enum(['escape', 'keep']).optional(),
});

interface Settings {
  maxInputBytes: number;
  maxMarkupBytes: number;
  fonts: Partial<FontFiles>;
  markdownHtml: RawHtmlPolicy;
}

/** The three font files: the host's where given, DejaVu for the rest (resolved only when needed). */
function fontFiles(custom: Partial<FontFiles>): FontFiles {
  const { regular, bold, mono } = custom;
  if (regular) return { regular, bold: bold ?? regular, mono: mono ?? regular };
  return { ...dejaVuFontFiles(), ...(bold ? { bold } : {}), ...(mono ? { mono } : {}) };
}

async function run(ctx: ConvertContext<PdfOptions>, settings: Settings): Promise<void> {
  const { from, to, inputPath } = ctx;
  if (to === 'pdf') {
    const engine = await loadPdfEngine();
    const job: PdfJob = {
      engine,
      fonts: fontFiles(settings.fonts),
      settings: pdfSettings(ctx.options),
      signal: ctx.signal,
      onProgress: ctx.onProgress,
    };
    if (from === 'txt') {
      const size = await checkInputSize(inputPath, settings.maxInputBytes);
      return writeOutput(ctx, 'text', () => textToPdf(inputPath, size, job));
    }
    const markdown = await readTextInput(inputPath, settings.maxMarkupBytes);
    const marked = await loadMarked();
    // Turndown is loaded only if the Markdown holds a raw HTML block.
    const blockHtmlToText = async (html: string) => htmlToText(await loadTurndown(), html);
    return writeOutput(ctx, 'text', () => markdownToPdf(markdown, marked, job, blockHtmlToText));
  }
  const text = await readTextInput(
    inputPath,
    from === 'txt' ? settings.maxInputBytes : settings.maxMarkupBytes,
  );
  throwIfAborted(ctx.signal);
  ctx.onProgress(0.1);
  return writeOutput(ctx, 'text', async () => {
    if (from === 'txt') return textToHtml(text);
    if (from === 'md') {
      const marked = await loadMarked();
      if (to === 'html') return markdownToHtml(marked, text, settings.markdownHtml);
      // Raw HTML is kept here so that its text survives; the text walk drops scripts and styles.
      return htmlToText(await loadTurndown(), markdownToHtml(marked, text, 'keep'));
    }
    const Turndown = await loadTurndown();
    return to === 'md' ? htmlToMarkdown(Turndown, text) : htmlToText(Turndown, text);
  });
}

function checkFontFile(option: string, path: string | undefined): void {
  if (path === undefined) return;
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch {}
  if (!isFile) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `createTextConverter: ${option} must be a readable font file`,
      {
        details: { option },
      },
    );
  }
}

/** Creates the text converter. Options are checked here, and a bad one throws INVALID_OPTIONS. */
export function createTextConverter(options: TextConverterOptions = {}): Converter<PdfOptions> {
  const given = parseOptions(factoryOptionsSchema, options, 'createTextConverter');
  const fonts = given.fonts ?? {};
  for (const role of ['regular', 'bold', 'mono'] as const) checkFontFile(`fonts.${role}`, fonts[role]);
  const settings: Settings = {
    maxInputBytes: given.maxInputBytes ?? TEXT_DEFAULTS.maxInputBytes,
    maxMarkupBytes: given.maxMarkupBytes ?? TEXT_DEFAULTS.maxMarkupBytes,
    fonts,
    markdownHtml: given.markdownHtml ?? TEXT_DEFAULTS.markdownHtml,
  };
  const guard = edgeGuard('text', TEXT_EDGES);

  return {
    ...TEXT,

    async available(): Promise<Availability> {
      // Each step names the packages it loads (text-edges.ts), and the engine plans only those
      // whose packages are installed, naming the missing ones for a conversion only they could
      // make: the converter is available with whichever of its libraries are here.
      const present = ['marked', 'turndown', 'pdf-lib'].filter(isInstalled);
      return {
        ok: true,
        ...(present.length > 0
          ? { version: present.map((pkg) => `${pkg} ${packageVersion(pkg)}`).join(', ') }
          : {}),
      };
    },

    async convert(ctx): Promise<ConvertResult> {
      guard(ctx.from, ctx.to);
      return runInProcess(
        ctx,
        () => run(ctx, settings),
        (error) => mapDocumentError(error, `${ctx.from} to ${ctx.to} conversion`),
      );
    },
  };
}
