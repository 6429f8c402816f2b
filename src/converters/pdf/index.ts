/**
 * The PDF converter: PDF -> text (pdf.js), PDF -> PNG/JPEG page images (pdf.js rendering, one page
 * or every page as a zip), and images -> PDF (pdf-lib, one page per image or frame).
 *
 * pdfjs-dist, pdf-lib, yazl and sharp are loaded lazily on first use. pdf.js reads only the bytes
 * it is given (no URLs, no system fonts, no eval); every failure is a FileconvError with a stable
 * code (a password-protected PDF is PASSWORD_PROTECTED, a damaged one CORRUPT_INPUT), and the
 * output appears at `outputPath` only when complete.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { workBudgetError } from '../../core/work-limits.js';
import { edgeGuard, runInProcess, unavailable } from '../../kit/converter-kit.js';
import { missingPackages, notInstalled } from '../../kit/engine-packages.js';
import { loadPdfjs, loadPdfLib, loadYazl } from '../../kit/libraries/pdf.js';
import { loadSharp } from '../../kit/libraries/sharp.js';
import { placeFile } from '../../kit/place-file.js';
import { writeImagesPdf } from './images-to-pdf.js';
import { PDF_EDGES } from './pdf-edges.js';
import {
  type ImagePageOptions,
  isPageImageTarget,
  type PageImageOptions,
  type PageImageTarget,
  type PdfOptions,
} from './pdf-options.js';
import { writePageImages } from './pdf-render.js';
import { writePdfText } from './pdf-text.js';
import { assertCanvasAvailable, mapPdfError, openPdf } from './pdfjs.js';
import { PDF } from './registration.js';

export { PDF_DEFAULTS, type PdfOptions, pdfOptionsSchema } from './pdf-options.js';
export { PDF_FACTORY, PDF_REGISTRATION } from './registration.js';

export interface PdfConverterOptions {
  /** Most pages one conversion renders (`pages: 'all'`) or creates (frames of one image). Default 1000. */
  maxPages?: number;
  /**
   * Most text pdf -> txt writes, bytes (INPUT_LIMIT_EXCEEDED past it). Default 64 MiB: a
   * 1000-page book is a few MB; a 1 MB PDF whose streams inflate to 400 MB of text operators is
   * not a document to extract.
   */
  maxTextBytes?: number;
}

const factoryOptionsSchema = z.strictObject({
  maxPages: z.int().min(1).max(100_000).optional(),
  maxTextBytes: z.int().min(1).optional(),
});

interface Limits {
  maxPages: number;
  maxTextBytes: number;
}

/** Reads the PDF and writes text or page images to `scratch`. */
async function convertFromPdf(
  ctx: ConvertContext<PdfOptions>,
  scratch: string,
  { maxPages, maxTextBytes }: Limits,
): Promise<void> {
  const onPage = (done: number, total: number) => ctx.onProgress(0.05 + (0.9 * done) / total);
  const target = ctx.to;
  let render: { to: PageImageTarget; options: PageImageOptions } | undefined;
  if (isPageImageTarget(target)) {
    // A page image's schema (pdfOptionsSchema(target)) made these options.
    render = { to: target, options: ctx.options as PageImageOptions };
    assertCanvasAvailable();
  }
  const sharp = render ? await loadSharp() : undefined;
  const doc = await openPdf(ctx.inputPath, ctx.signal, ctx.limits.maxPixels);
  try {
    assertDocumentPages(doc.numPages, ctx.limits.maxDocumentPages);
    ctx.onProgress(0.05);
    if (render && sharp) {
      const { maxPixels, maxWorkPixels } = ctx.limits;
      await writePageImages(
        { doc, ...render, maxPixels, maxPages, maxWorkPixels, sharp, signal: ctx.signal, onPage },
        scratch,
      );
    } else {
      await writePdfText(doc, scratch, ctx.signal, onPage, maxTextBytes);
    }
  } finally {
    await doc.destroy();
  }
}

/** The PDF's pages against the conversion's page budget (a plan's), before any page is read. */
function assertDocumentPages(pages: number, budget: number | undefined): void {
  if (budget !== undefined && pages > budget) {
    throw workBudgetError('maxDocumentPages', `The PDF has ${pages} pages`, pages, budget);
  }
}

async function convertToPdf(
  ctx: ConvertContext<PdfOptions>,
  scratch: string,
  maxPages: number,
): Promise<void> {
  // An image page's schema (pdfOptionsSchema('pdf')) made these options.
  const { dpi } = ctx.options as ImagePageOptions;
  const sharp = await loadSharp();
  const onPage = (done: number, total: number) => ctx.onProgress((0.9 * done) / total);
  const { maxPixels, maxDocumentPages, maxWorkPixels } = ctx.limits;
  const job = {
    inputPath: ctx.inputPath,
    from: ctx.from,
    dpi,
    maxPixels,
    maxPages: Math.min(maxPages, maxDocumentPages ?? maxPages),
    maxWorkPixels,
  };
  await writeImagesPdf({ ...job, sharp, signal: ctx.signal, onPage }, scratch);
}

/** Creates the PDF converter. Options are checked here, and a bad one throws INVALID_OPTIONS. */
export function createPdfConverter(options: PdfConverterOptions = {}): Converter<PdfOptions> {
  const given = parseOptions(factoryOptionsSchema, options, 'createPdfConverter');
  const maxPages = given.maxPages ?? 1000;
  const limits: Limits = { maxPages, maxTextBytes: given.maxTextBytes ?? 64 * 1024 * 1024 };
  const guard = edgeGuard('pdf', PDF_EDGES);

  return {
    ...PDF,

    async available(): Promise<Availability> {
      // Every missing package at once, from the disk: one install line makes the engine work.
      const missing = missingPackages('pdf');
      if (missing.length > 0) return notInstalled('pdf', missing);
      try {
        const [pdfjs] = await Promise.all([loadPdfjs(), loadPdfLib(), loadYazl(), loadSharp()]);
        assertCanvasAvailable();
        return { ok: true, version: `pdfjs-dist ${pdfjs.version}` };
      } catch (error) {
        return unavailable(error);
      }
    },

    async convert(ctx): Promise<ConvertResult> {
      guard(ctx.from, ctx.to);
      // A temp name nobody else sees, moved into place only when complete.
      const scratch = join(ctx.tempDir, `pdf-${randomUUID()}.${ctx.to}`);
      const work = async () => {
        try {
          if (ctx.to === 'pdf') await convertToPdf(ctx, scratch, maxPages);
          else await convertFromPdf(ctx, scratch, limits);
          throwIfAborted(ctx.signal);
          await placeFile(scratch, ctx.outputPath);
        } catch (error) {
          await rm(scratch, { force: true });
          throw error;
        }
      };
      return runInProcess(ctx, work, mapPdfError);
    },
  };
}
