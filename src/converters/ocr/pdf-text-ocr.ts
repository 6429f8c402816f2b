/**
 * pdf -> txt with OCR for scanned pages, around the PDF converter: that converter (pdf.js, in an
 * isolated child process under a 120 s budget) extracts the text layer as before, page after page
 * with a form feed between; then, in this process, every page that came out empty (`ocr: 'auto'`,
 * the default) or every page (`'always'`) is rendered by pdftoppm and read by tesseract, and its
 * text put in the page's place. OCR runs here rather than in the pdf.js child because its work
 * is in other processes anyway, and a scan of forty pages would pass the child's budget.
 *
 * 'auto' without tesseract (or Poppler) installed gives what pdf.js alone gives, as before: the
 * text layer, and nothing for scanned pages. 'always' without them is ENGINE_UNAVAILABLE.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ZodType } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { parseConversionOptions } from '../../core/options.js';
import type { ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { workBudgetError } from '../../core/work-limits.js';
import { findTool, locateTool } from '../../kit/command-tools.js';
import { placeFile } from '../../kit/place-file.js';
import { withWorkDir } from '../../kit/work-dir.js';
import { type PdfTextOcrOptions, pdfTextOcrOptionsSchema } from './ocr-options.js';
import { pageDpi, pagePixels, rasterisePage, readPdfPages } from './pdf-pages.js';
import { readPngHeader } from './png-header.js';
import { readImageText } from './read-image.js';
import { assertLanguages } from './tesseract.js';

const OCR_TOOLS = ['tesseract', 'pdftoppm', 'pdfinfo'] as const;

/**
 * `pdf` (the PDF converter) with OCR options on its pdf -> txt. Its options are txt's OCR options
 * or, for another target, the PDF converter's own: each as that target's schema parsed them.
 */
export function withPdfTextOcr<O>(pdf: Converter<O>): Converter<O | PdfTextOcrOptions> {
  return {
    ...pdf,
    optionsSchema: (to) =>
      (to === 'txt' ? pdfTextOcrOptionsSchema : pdf.optionsSchema?.(to)) as ZodType<O | PdfTextOcrOptions>,
    async convert(ctx) {
      // Another target's options were parsed by the PDF converter's own schema.
      if (ctx.to !== 'txt' || ctx.from !== 'pdf') return pdf.convert(ctx as ConvertContext<O>);
      // txt's, by pdfTextOcrOptionsSchema (optionsSchema above).
      const options = ctx.options as PdfTextOcrOptions;
      // The PDF converter's own pdf -> txt, which takes no options of its own.
      const textOnly = { ...ctx, options: parseConversionOptions(pdf, 'txt', {}) };
      if (options.ocr === 'never') return pdf.convert(textOnly);
      if (options.ocr === 'always') {
        for (const tool of OCR_TOOLS) await locateTool(tool, 'Reading PDF pages by OCR');
      } else if (!(await ocrInstalled())) {
        return pdf.convert(textOnly);
      }
      await assertLanguages(options.languages, ctx.signal);
      return withWorkDir({ tempDir: ctx.tempDir }, (dir) => textWithOcr(pdf, textOnly, options, dir));
    },
  };
}

async function ocrInstalled(): Promise<boolean> {
  for (const tool of OCR_TOOLS) if (!(await findTool(tool))) return false;
  return true;
}

async function textWithOcr<O>(
  pdf: Converter<O>,
  ctx: ConvertContext<O>,
  options: PdfTextOcrOptions,
  dir: string,
): Promise<ConvertResult | undefined> {
  const layerPath = join(dir, 'text-layer.txt');
  const result = await pdf.convert({
    ...ctx,
    outputPath: layerPath,
    onProgress: (fraction) => ctx.onProgress(0.2 * fraction),
  });
  // pdf.js's text: pages joined by form feeds, each page's text ended by a newline.
  const pageTexts = (await readFile(layerPath, 'utf8')).split('\f').map((text) => text.trimEnd());
  const toRead = pageTexts.flatMap((text, index) =>
    options.ocr === 'always' || text.trim() === '' ? [index + 1] : [],
  );
  if (toRead.length > 0) {
    const sizes = await readPdfPages(ctx.inputPath, {
      signal: ctx.signal,
      maxPages: ctx.limits.maxDocumentPages,
    });
    // Poppler and pdf.js agree on the pages of any sound PDF; of a damaged one, read what both see.
    const plan = toRead.flatMap((number) => {
      const page = sizes[number - 1];
      return page ? [{ page, dpi: pageDpi(page, options.dpi, ctx.limits.maxPixels) }] : [];
    });
    const work = plan.reduce((sum, { page, dpi }) => sum + pagePixels(page, dpi), 0);
    const budget = ctx.limits.maxWorkPixels;
    if (budget !== undefined && work > budget) {
      throw workBudgetError('maxWorkPixels', `Reading ${plan.length} pages by OCR`, work, budget);
    }
    for (const [index, { page, dpi }] of plan.entries()) {
      throwIfAborted(ctx.signal);
      const image = await rasterisePage(ctx.inputPath, page.number, dpi, dir, ctx.signal);
      await readPngHeader(image, ctx.limits.maxPixels, `Page ${page.number}`);
      pageTexts[page.number - 1] = await readImageText(image, {
        ...options,
        dpi,
        signal: ctx.signal,
        workDir: dir,
        name: `page ${page.number}`,
      });
      await rm(image, { force: true });
      ctx.onProgress(0.2 + (0.8 * (index + 1)) / plan.length);
    }
  }
  const scratch = join(dir, 'text.txt');
  await writeFile(scratch, pageTexts.map((text) => (text ? `${text}\n` : '')).join('\f'));
  throwIfAborted(ctx.signal);
  await placeFile(scratch, ctx.outputPath);
  ctx.onProgress(1);
  return result;
}
