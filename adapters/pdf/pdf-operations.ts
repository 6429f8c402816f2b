/**
 * The operations of fileconv/pdf as the engine's DocumentOperations, so jobs (and through them
 * the HTTP API) can run them: `createEngine({ converters, operations: pdfOperations() })`.
 * Each validates its options with a strict zod schema that also describes the API.
 */
import { z } from 'zod';
import type { DocumentOperation, OperationContext } from '../../src/ports.js';
import type { IsolationOptions } from '../converters/isolation/isolated.js';
import { missingPackages, notInstalled } from '../engine-packages.js';
import { isolateOperations } from './isolated-operations.js';
import {
  extractPages,
  mergePdfs,
  type PdfOperationOptions,
  rotatePages,
  writePdfMetadata,
} from './operations.js';
import { readPageRanges } from './page-ranges.js';

/** Most PDFs one merge takes. */
export const MAX_MERGE_INPUTS = 50;

/** Page ranges as people write them ('2-3,5', '7-', 'all'); checked against the page count when the job runs. */
const pageRanges = z
  .string()
  .min(1)
  .max(1000)
  .superRefine((spec, ctx) => {
    try {
      readPageRanges(spec);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
    }
  });

const noOptions = z.strictObject({});

const splitOptions = z.strictObject({
  /** The pages to keep, as in a print dialog: '2-3,5', '7-' (to the end), 'all'. */
  pages: pageRanges,
});

const rotateOptions = z.strictObject({
  /** Clockwise degrees: 90, 180, 270 (or -90). */
  angle: z.union([z.literal(90), z.literal(180), z.literal(270), z.literal(-90)]),
  /** The pages to turn. Default all. */
  pages: pageRanges.optional(),
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

/** pdf-lib's availability, shared by the operations built on it. */
async function pdfLibAvailable() {
  const missing = missingPackages('pdf');
  return missing.length === 0 ? { ok: true } : notInstalled('pdf', missing);
}

/** The library options a job's limits give each operation. */
export function libraryOptions(ctx: OperationContext): PdfOperationOptions {
  return {
    ...(ctx.limits.maxDocumentPages === undefined ? {} : { maxPages: ctx.limits.maxDocumentPages }),
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

/** The PDF operations: merge, split, rotate, metadata. */
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
      description: "Takes the pages given ('2-3,5') out of the PDF into a new one.",
      optionsSchema: splitOptions,
      run: async (ctx) => {
        const options = ctx.options as z.output<typeof splitOptions>;
        await extractPages(ctx.inputPaths[0]!, options.pages, ctx.outputPath, libraryOptions(ctx));
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
  ];
}
