/**
 * Opening a PDF with pdf.js the safe way, and mapping what pdf.js throws onto FileconvError codes.
 *
 * The input is untrusted, so pdf.js gets bytes only (never a URL), loads its fonts, CMaps and
 * decoders from the package's own directories through fs, may not eval (font programs and
 * PostScript functions are interpreted instead: CVE-2024-4367 was an eval of font data), and
 * skips embedded images above the pixel limit instead of decoding them.
 */

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { raceAbort } from '../../core/abort.js';
import { type ErrorCode, FileconvError } from '../../core/errors.js';
import { loadPdfjs, pdfEngineUnavailable, pdfjsDataDirs } from '../../kit/libraries/pdf.js';

export type { PDFDocumentProxy, PDFPageProxy };

/** pdf.js exception names (they cross from its worker by name, not by class) and what they mean here. */
const PDFJS_ERRORS: Readonly<Record<string, [ErrorCode, string]>> = {
  PasswordException: ['PASSWORD_PROTECTED', 'The PDF is password-protected'],
  InvalidPDFException: ['CORRUPT_INPUT', 'The file is not a readable PDF'],
  FormatError: ['CORRUPT_INPUT', 'The PDF is damaged'],
  XRefParseException: ['CORRUPT_INPUT', 'The PDF is damaged'],
  UnknownErrorException: ['CORRUPT_INPUT', 'The PDF could not be read'],
};

/** A FileconvError for anything pdf.js threw; FileconvErrors pass through unchanged. */
export function mapPdfError(error: unknown): FileconvError {
  if (error instanceof FileconvError) return error;
  const name = error instanceof Error ? error.name : '';
  const text = (error instanceof Error ? error.message : String(error)).split('\n', 1)[0]?.slice(0, 200);
  const known = PDFJS_ERRORS[name];
  if (known) return new FileconvError(known[0], `${known[1]}: ${text}`, { cause: error });
  return new FileconvError('CONVERSION_FAILED', `The PDF conversion failed: ${text}`, { cause: error });
}

/**
 * Opens the PDF at `path`. The caller must `destroy()` the document (it holds the parsed file and
 * a fake-worker port). An abort while loading destroys the loading task at once.
 */
export async function openPdf(
  path: string,
  signal: AbortSignal,
  maxPixels: number,
): Promise<PDFDocumentProxy> {
  const pdfjs = await loadPdfjs();
  const dirs = pdfjsDataDirs();
  const bytes = await readFile(path);
  // pdf.js refuses Node Buffers; a view over the same memory avoids a copy.
  const data = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const task = pdfjs.getDocument({
    data,
    password: '', // an empty user password opens owner-only protected files; anything more is refused
    standardFontDataUrl: dirs.standardFonts,
    cMapUrl: dirs.cMaps,
    cMapPacked: true,
    wasmUrl: dirs.wasm,
    iccUrl: dirs.iccs,
    useWorkerFetch: false,
    disableFontFace: true,
    useSystemFonts: false,
    isEvalSupported: false,
    enableXfa: false,
    maxImageSize: maxPixels,
    // Tolerant like a viewer: a damaged content stream renders what it can instead of failing.
    stopAtErrors: false,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    return await raceAbort(task.promise, signal);
  } catch (error) {
    // Also after an abort: destroying the task stops parsing and frees whatever it loaded.
    await task.destroy().catch(() => {});
    throw mapPdfError(error);
  }
}

/** What pdf.js's Node canvas factory hands out (@napi-rs/canvas objects); pdf.js types it as Object. */
export interface PdfCanvas {
  canvas: { width: number; height: number };
  context: {
    fillStyle: unknown;
    fillRect(x: number, y: number, width: number, height: number): void;
    getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray };
  };
}
export interface PdfCanvasFactory {
  create(width: number, height: number): PdfCanvas;
  destroy(canvas: PdfCanvas): void;
}

/**
 * The document's canvas factory. It creates canvases with the @napi-rs/canvas copy pdf.js bundles:
 * canvases from any other copy fail inside pdf.js ("parameter 1 is not of type 'Path2D'").
 */
export function canvasFactoryOf(doc: PDFDocumentProxy): PdfCanvasFactory {
  return doc.canvasFactory as PdfCanvasFactory;
}

/** Throws ENGINE_UNAVAILABLE when pdf.js's optional canvas (needed to render, not to read text) is missing. */
export function assertCanvasAvailable(): void {
  try {
    const fromPdfjs = createRequire(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    fromPdfjs.resolve('@napi-rs/canvas');
  } catch (error) {
    throw pdfEngineUnavailable('@napi-rs/canvas', 'rendering PDF pages', error);
  }
}

/** Page `pageNumber` (1-based); a page that fails to load fails like any other pdf.js error. */
export function getPage(doc: PDFDocumentProxy, pageNumber: number): Promise<PDFPageProxy> {
  return doc.getPage(pageNumber).catch((error: unknown) => {
    throw mapPdfError(error);
  });
}
