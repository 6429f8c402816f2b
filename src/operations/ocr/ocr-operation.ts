/**
 * The 'ocr' document operation: a searchable PDF from a scanned PDF or a scanned image (text
 * under the picture; see searchable-pdf.ts). Its work runs in tesseract, pdftoppm and qpdf
 * processes, so unlike the pdf-lib operations it is not sent to the isolation pool (whose
 * 120 s budget would also cut a long scan short): the job's own timeout and signal bound it.
 *
 *   createConverter({ converters, operations: [...pdfOperations(), ...ocrOperations()] })
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { OCR_SOURCES } from '../../converters/ocr/ocr-edges.js';
import { type OcrOperationOptions, ocrOperationOptionsSchema } from '../../converters/ocr/ocr-options.js';
import { scanAsPng } from '../../converters/ocr/scan-png.js';
import {
  type SearchablePdfRun,
  searchablePdf,
  searchablePdfFromImage,
} from '../../converters/ocr/searchable-pdf.js';
import { assertLanguages } from '../../converters/ocr/tesseract.js';
import { FileconvError } from '../../core/errors.js';
import { detectFormat } from '../../core/formats/index.js';
import type { FormatName } from '../../core/formats/types.js';
import { parseConversionOptions } from '../../core/options.js';
import type { Availability, DocumentOperation, OperationContext } from '../../core/ports/index.js';
import { toolsAvailability } from '../../kit/command-tools.js';
import { withWorkDir } from '../../kit/work-dir.js';

/** Scans the operation takes besides PDF: those the OCR converter reads (see scan-png.ts). */
export const OCR_IMAGE_INPUTS: readonly FormatName[] = OCR_SOURCES;

/** The OCR operations: 'ocr' (a searchable PDF). */
export function ocrOperations(): DocumentOperation[] {
  const ocr: DocumentOperation<OcrOperationOptions> = {
    name: 'ocr',
    description:
      "Makes a scanned PDF or image searchable: tesseract reads each page without text and lays the words, invisible, under the page (languages: ['eng', 'deu', ...]).",
    input: 'pdf',
    accepts: () => ['pdf', ...OCR_IMAGE_INPUTS],
    minInputs: 1,
    maxInputs: 1,
    available: (): Promise<Availability> =>
      toolsAvailability(['tesseract', 'pdftoppm', 'pdfinfo', 'pdftotext', 'qpdf']),
    optionsSchema: ocrOperationOptionsSchema,
    output: () => ({ format: 'pdf' }),
    run: async (ctx) => {
      await makeSearchable(ctx);
      return undefined;
    },
  };
  return [ocr];
}

async function makeSearchable(ctx: OperationContext<OcrOperationOptions>): Promise<void> {
  const { options } = ctx;
  await assertLanguages(options.languages, ctx.signal);
  const input = ctx.inputPaths[0]!;
  const run: SearchablePdfRun = {
    signal: ctx.signal,
    tempDir: ctx.tempDir,
    maxPixels: ctx.limits.maxPixels,
    maxPages: ctx.limits.maxDocumentPages,
    maxWorkPixels: ctx.limits.maxWorkPixels,
  };
  const format = await detectFormat(await readHead(input));
  if (format === 'pdf') {
    await searchablePdf(input, ctx.outputPath, options, run);
  } else if (typeof format === 'string' && OCR_IMAGE_INPUTS.includes(format)) {
    await withWorkDir({ tempDir: ctx.tempDir }, async (workDir) => {
      const convertTo = ctx.convertTo ?? decodingWithSharp(ctx, workDir);
      const scan = await scanAsPng(input, format, { limits: ctx.limits, convertTo });
      await searchablePdfFromImage(scan.path, ctx.outputPath, options, run);
    });
  } else {
    throw new FileconvError(
      'UNSUPPORTED_FORMAT',
      `The ocr operation reads a PDF or an image (${OCR_IMAGE_INPUTS.join(', ')}), not ${typeof format === 'string' ? format : 'this file'}.`,
    );
  }
}

/**
 * Outside an engine (the operation run directly) there is no convertTo: a scan is decoded by the
 * image converter itself (an operation may use a converter; converters may not use each other).
 */
function decodingWithSharp(
  ctx: OperationContext<unknown>,
  workDir: string,
): NonNullable<OperationContext['convertTo']> {
  return async (inputPath, from, to) => {
    const { createSharpConverter } = await import('../../converters/sharp/index.js');
    const outputPath = join(workDir, `scan.${to}`);
    const sharp = createSharpConverter();
    await sharp.convert({
      inputPath,
      outputPath,
      from,
      to,
      options: parseConversionOptions(sharp, to, {}),
      tempDir: workDir,
      signal: ctx.signal,
      onProgress: () => {},
      limits: ctx.limits,
    });
    return outputPath;
  };
}

async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4100), 0, 4100, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
