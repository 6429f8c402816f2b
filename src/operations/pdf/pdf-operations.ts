/**
 * The operations of fileconv/pdf as the engine's DocumentOperations, so jobs (and through them
 * the HTTP API) can run them: `createEngine({ converters, operations: pdfOperations() })`.
 * Each validates its options with a strict zod schema that also describes the API.
 */
import { z } from 'zod';
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import { pageRangesSchema } from '../../core/page-ranges.js';
import type { Availability, DocumentOperation, OperationContext } from '../../core/ports/index.js';
import { missingPackages, notInstalled } from '../../kit/engine-packages.js';
import type { IsolationOptions } from '../../kit/isolation/isolated.js';
import type { WorkDirOptions } from '../../kit/work-dir.js';
import { compressOptionsSchema, compressPdf } from './compress.js';
import { fillFormOptionsSchema, fillPdfForm, flattenPdfForm } from './fill-form.js';
import { writePdfFormFields } from './form-fields.js';
import { isolateOperations } from './isolated-operations.js';
import { extractPages, mergePdfs, rotatePages, writePdfMetadata } from './operations.js';
import type { PdfOperationOptions, PdfRunOptions } from './pdf-document.js';
import { locatePdfTool, PDF_TOOLS, type PdfTool } from './pdf-tools.js';
import { convertToPdfA, pdfaOptionsSchema } from './pdfa.js';
import { protectOptionsSchema, protectPdf, unlockOptionsSchema, unlockPdf } from './protect.js';
import { splitEveryPage } from './split-every-page.js';
import { pdfThumbnail, thumbnailOptionsSchema } from './thumbnail.js';
import { type WatermarkOptions, watermarkOptionsSchema, watermarkPdf } from './watermark.js';

/** Most PDFs one merge takes. */
export const MAX_MERGE_INPUTS = 50;

const noOptions = z.strictObject({});

const splitOptions = z
  .strictObject({
    /** The pages to keep, as in a print dialog: '2-3,5', '7-' (to the end), 'all'. */
    pages: pageRangesSchema.optional(),
    /** Every page (of `pages`, default all) to a PDF of its own, in a zip. Default false. */
    everyPage: z.boolean().optional(),
  })
  .refine((options) => options.everyPage === true || options.pages !== undefined, {
    message: 'give the pages to keep, or everyPage: true',
    path: ['pages'],
  });

const rotateOptions = z.strictObject({
  /** Clockwise degrees: 90, 180, 270 (or -90). */
  angle: z.union([z.literal(90), z.literal(180), z.literal(270), z.literal(-90)]),
  /** The pages to turn. Default all. */
  pages: pageRangesSchema.optional(),
});

const metadataOptions = z
  .strictObject({
    title: z.string().max(1000).optional(),
    author: z.string().max(1000).optional(),
    subject: z.string().max(1000).optional(),
    keywords: z.array(z.string().max(200)).max(100).optional(),
    creator: z.string().max(1000).optional(),
  })
  .refine((fields) => Object.keys(fields).length > 0, { message: 'give at least one field to set' });

/**
 * A job's watermark: text, or an image sent as the job's second file. The library's `image` (a
 * path) is not an option here: a client naming a path would make the service read its own files.
 */
const jobWatermarkOptions = z.strictObject(watermarkOptionsSchema.shape).omit({ image: true });

/** The images a watermark may be made of (the job's second file). */
const WATERMARK_IMAGES: readonly FormatName[] = ['png', 'jpg', 'webp', 'gif', 'tiff', 'avif', 'heic', 'heif'];

/** pdf-lib's (and pdf.js's) availability, shared by the operations built on them. */
async function pdfLibAvailable(): Promise<Availability> {
  const missing = missingPackages('pdf');
  return missing.length === 0 ? { ok: true } : notInstalled('pdf', missing);
}

/** pdf-lib and a command-line tool (qpdf, Ghostscript) both. */
function withTool(tool: PdfTool): () => Promise<Availability> {
  return async () => {
    const library = await pdfLibAvailable();
    if (!library.ok) return library;
    try {
      await locatePdfTool(tool);
      return { ok: true };
    } catch (error) {
      const info = PDF_TOOLS[tool];
      return {
        ok: false,
        reason: error instanceof Error ? error.message : String(error),
        install: info.install,
      };
    }
  };
}

/** The library options a job's limits and signal give each operation. */
export function libraryOptions(ctx: OperationContext): PdfOperationOptions & PdfRunOptions & WorkDirOptions {
  return {
    signal: ctx.signal,
    tempDir: ctx.tempDir,
    ...(ctx.limits.maxDocumentPages === undefined ? {} : { maxPages: ctx.limits.maxDocumentPages }),
  };
}

/**
 * The run() of an operation on the job's one PDF: the library function called with the job's
 * (validated) options, its limits and signal, and `extra` where the function takes more.
 */
function onePdf<O>(
  operate: (input: string, output: string, options: O) => Promise<unknown>,
  extra: (ctx: OperationContext) => Record<string, unknown> = () => ({}),
): DocumentOperation['run'] {
  return async (ctx) => {
    await operate(ctx.inputPaths[0]!, ctx.outputPath, {
      ...ctx.options,
      ...libraryOptions(ctx),
      ...extra(ctx),
    } as O);
    return undefined;
  };
}

function pdfOperation(
  fields: Omit<DocumentOperation, 'input' | 'available' | 'output' | 'minInputs' | 'maxInputs'> &
    Partial<Pick<DocumentOperation, 'available' | 'output' | 'minInputs' | 'maxInputs'>>,
): DocumentOperation {
  return {
    input: 'pdf',
    minInputs: 1,
    maxInputs: 1,
    available: pdfLibAvailable,
    output: () => ({ format: 'pdf' }),
    ...fields,
  };
}

export interface PdfOperationsOptions {
  /**
   * Run each operation in a child process of the isolation pool (heap cap, work budget), off
   * the caller's event loop. Default true; false runs them in this process (the CLI, which is
   * one already, and the child itself).
   */
  isolate?: boolean;
  /** The isolation pool's limits (default DEFAULT_ISOLATION: 512 MB heap, 120 s). */
  isolation?: IsolationOptions;
}

/**
 * The PDF operations: merge, split, rotate, metadata, compress, pdfa, watermark, protect, unlock,
 * thumbnail, fill-form, flatten, form-fields.
 */
export function pdfOperations(options: PdfOperationsOptions = {}): DocumentOperation[] {
  const operations = inProcessOperations();
  return options.isolate === false ? operations : isolateOperations(operations, options.isolation);
}

function inProcessOperations(): DocumentOperation[] {
  return [
    pdfOperation({
      name: 'merge',
      description: 'Joins the PDFs into one, in the order given.',
      minInputs: 2,
      maxInputs: MAX_MERGE_INPUTS,
      optionsSchema: noOptions,
      run: async (ctx) => {
        await mergePdfs(ctx.inputPaths, ctx.outputPath, libraryOptions(ctx));
        return undefined;
      },
    }),
    pdfOperation({
      name: 'split',
      description:
        "Takes the pages given ('2-3,5') into a new PDF, or with everyPage each page into a PDF of its own, in a zip.",
      optionsSchema: splitOptions as unknown as DocumentOperation['optionsSchema'],
      output: (options) => (options.everyPage ? { format: 'pdf', packaging: 'zip' } : { format: 'pdf' }),
      run: async (ctx) => {
        const options = ctx.options as z.output<typeof splitOptions>;
        const input = ctx.inputPaths[0]!;
        if (options.everyPage) {
          await splitEveryPage(input, ctx.outputPath, { ...libraryOptions(ctx), pages: options.pages });
        } else {
          await extractPages(input, options.pages ?? 'all', ctx.outputPath, libraryOptions(ctx));
        }
        return undefined;
      },
    }),
    pdfOperation({
      name: 'rotate',
      description: 'Turns the pages given (default all) clockwise by 90, 180 or 270 degrees.',
      optionsSchema: rotateOptions,
      run: async (ctx) => {
        const options = ctx.options as z.output<typeof rotateOptions>;
        await rotatePages(ctx.inputPaths[0]!, options.angle, ctx.outputPath, {
          ...libraryOptions(ctx),
          ...(options.pages ? { pages: options.pages } : {}),
        });
        return undefined;
      },
    }),
    pdfOperation({
      name: 'metadata',
      description: 'Sets the document information: title, author, subject, keywords, creator.',
      optionsSchema: metadataOptions as unknown as DocumentOperation['optionsSchema'],
      run: async (ctx) => {
        await writePdfMetadata(ctx.inputPaths[0]!, ctx.options, ctx.outputPath, libraryOptions(ctx));
        return undefined;
      },
    }),
    pdfOperation({
      name: 'compress',
      description:
        'Recompresses the images at a JPEG quality and down to a resolution (Ghostscript); never larger than the input.',
      optionsSchema: compressOptionsSchema as unknown as DocumentOperation['optionsSchema'],
      available: withTool('gs'),
      run: onePdf(compressPdf),
    }),
    pdfOperation({
      name: 'pdfa',
      description:
        'Converts to PDF/A-1b, 2b or 3b for archiving (Ghostscript), fonts embedded, sRGB output intent.',
      optionsSchema: pdfaOptionsSchema as unknown as DocumentOperation['optionsSchema'],
      available: withTool('gs'),
      run: onePdf(convertToPdfA),
    }),
    pdfOperation({
      name: 'watermark',
      description:
        'Stamps text, or the image sent as the second file, on the pages given: opacity, position, size.',
      maxInputs: 2,
      accepts: (index) => (index === 0 ? ['pdf'] : WATERMARK_IMAGES),
      checkInputs: (options, inputCount) => {
        if ((options.text === undefined) === (inputCount === 2)) return;
        throw new FileconvError(
          'INVALID_OPTIONS',
          "A watermark is either text (the `text` option) or an image (the job's second file), one of the two.",
        );
      },
      optionsSchema: jobWatermarkOptions as unknown as DocumentOperation['optionsSchema'],
      run: async (ctx) => {
        const [input, image] = ctx.inputPaths;
        const options = { ...ctx.options, ...(image ? { image, text: undefined } : {}) } as WatermarkOptions;
        await watermarkPdf(input!, ctx.outputPath, {
          ...options,
          ...libraryOptions(ctx),
          maxPixels: ctx.limits.maxPixels,
        });
        return undefined;
      },
    }),
    pdfOperation({
      name: 'protect',
      description: 'Encrypts the PDF with a password (AES-256, qpdf), with optional permissions.',
      optionsSchema: protectOptionsSchema as unknown as DocumentOperation['optionsSchema'],
      available: withTool('qpdf'),
      run: onePdf(protectPdf),
    }),
    pdfOperation({
      name: 'unlock',
      description: 'Removes the password and restrictions of a PDF whose password is given (qpdf).',
      optionsSchema: unlockOptionsSchema as unknown as DocumentOperation['optionsSchema'],
      available: withTool('qpdf'),
      run: onePdf(unlockPdf),
    }),
    pdfOperation({
      name: 'thumbnail',
      description: 'The first page as a PNG or WebP image of a given width.',
      optionsSchema: thumbnailOptionsSchema as unknown as DocumentOperation['optionsSchema'],
      output: (options) => ({ format: options.format === 'webp' ? 'webp' : 'png' }),
      run: onePdf(pdfThumbnail, (ctx) => ({ maxPixels: ctx.limits.maxPixels })),
    }),
    pdfOperation({
      name: 'fill-form',
      description:
        "Sets the form's fields by name (text, checkboxes, radio groups, dropdowns, lists); with flatten, draws them into the pages.",
      optionsSchema: fillFormOptionsSchema as unknown as DocumentOperation['optionsSchema'],
      run: onePdf(fillPdfForm),
    }),
    pdfOperation({
      name: 'flatten',
      description:
        "Draws the form's fields into the pages and removes the form, so they can no longer be edited.",
      optionsSchema: noOptions,
      run: onePdf(flattenPdfForm),
    }),
    pdfOperation({
      name: 'form-fields',
      description:
        "Lists the form's fields as JSON: name, type, value, the options offered (what fill-form's fields take).",
      optionsSchema: noOptions,
      // A job's result is a file: the listing is one, in the shape fill-form's `fields` takes back.
      output: () => ({ format: 'json' }),
      run: onePdf(writePdfFormFields),
    }),
  ];
}
