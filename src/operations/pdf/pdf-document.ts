/**
 * Reading a PDF the operations may work on, and writing one into place. Every operation reads its
 * input through `openPdf`, so what it refuses is the same everywhere: a missing or unreadable
 * file, one over `maxInputBytes`, something that is not a PDF (CORRUPT_INPUT, a truncated file
 * too), an encrypted one (PASSWORD_PROTECTED). Outputs appear only when complete.
 */

import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PDFDocument } from 'pdf-lib';
import { FileconvError } from '../../core/errors.js';
import { workBudgetError } from '../../core/work-limits.js';
import { loadPdfLib } from '../../kit/libraries/pdf.js';
import { inputFileError, outputFileError } from '../../kit/local-files.js';
import { placeFile as placeFinishedFile } from '../../kit/place-file.js';

export interface PdfOperationOptions {
  /** Largest input read, bytes (PDFs are read whole). Default 256 MiB. */
  maxInputBytes?: number;
  /** Most pages an input may have (a plan's maxDocumentPages); INPUT_LIMIT_EXCEEDED past it. Default: no limit. */
  maxPages?: number;
}

/** What every operation takes besides its own options. */
export interface PdfRunOptions extends PdfOperationOptions {
  /** Stops the operation (and any tool it runs): CANCELED, or CONVERSION_TIMEOUT for a timeout signal. */
  signal?: AbortSignal | undefined;
}

const DEFAULT_MAX_INPUT_BYTES = 256 * 1024 * 1024;

/** The bytes of the file at `path` if it is no larger than the limit and starts like a PDF. */
export async function readPdfBytes(path: string, options: PdfOperationOptions): Promise<Buffer> {
  const limit = options.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES;
  const info = await stat(path).catch((error: unknown) => {
    throw inputFileError(path, error);
  });
  if (info.size > limit) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `${path} has ${info.size} bytes; at most ${limit} are read.`,
    );
  }
  const bytes = await readFile(path).catch((error: unknown) => {
    throw inputFileError(path, error);
  });
  if (bytes.subarray(0, 1024).indexOf('%PDF-') === -1) {
    throw new FileconvError('CORRUPT_INPUT', `${path} is not a PDF.`, { details: { reason: 'not-pdf' } });
  }
  return bytes;
}

/** Reads and parses the PDF at `path`: NOT_FOUND, INPUT_LIMIT_EXCEEDED, CORRUPT_INPUT or PASSWORD_PROTECTED. */
export async function openPdf(path: string, options: PdfOperationOptions): Promise<PDFDocument> {
  const bytes = await readPdfBytes(path, options);
  const { PDFDocument } = await loadPdfLib();
  let document: PDFDocument;
  try {
    document = await PDFDocument.load(bytes, { updateMetadata: false });
  } catch (error) {
    // pdf-lib's EncryptedPDFError is compiled to a plain Error (instanceof fails): its words tell.
    if (error instanceof Error && /document to `PDFDocument\.load` is encrypted/.test(error.message)) {
      throw new FileconvError('PASSWORD_PROTECTED', `${path} is encrypted: unlock it first.`, {
        cause: error,
      });
    }
    throw new FileconvError('CORRUPT_INPUT', `${path} is not a readable PDF.`, { cause: error });
  }
  const pages = document.getPageCount();
  if (options.maxPages !== undefined && pages > options.maxPages) {
    throw workBudgetError('maxDocumentPages', `${path} has ${pages} pages`, pages, options.maxPages);
  }
  return document;
}

/** Saves beside `output` under a temp name, then moves it into place. */
export async function savePdf(document: PDFDocument, output: string): Promise<void> {
  const scratch = join(dirname(output), `.fileconv-${randomUUID()}.pdf`);
  try {
    await writeFile(scratch, await document.save());
    await rename(scratch, output);
  } catch (error) {
    await rm(scratch, { force: true });
    throw outputFileError(output, error);
  }
}

/** Moves the finished file `from` (in a work folder) to the user's `output`, never partial there. */
export async function placeFile(from: string, output: string): Promise<void> {
  await placeFinishedFile(from, output).catch((error: unknown) => {
    throw outputFileError(output, error);
  });
}
