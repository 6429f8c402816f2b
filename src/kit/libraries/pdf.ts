/**
 * Lazy loaders for the PDF converter's libraries (pdfjs-dist, pdf-lib, yazl). Each is imported on
 * first use only, so `import 'fileconv'` stays light, and a missing package becomes an
 * ENGINE_UNAVAILABLE error naming what to install instead of a bare "Cannot find module".
 */
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import type { FileconvError } from '../../core/errors.js';
import { packageUnavailable } from '../engine-packages.js';

export type PdfjsModule = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
export type PdfLibModule = typeof import('pdf-lib');
export type YazlModule = typeof import('yazl');

export function pdfEngineUnavailable(pkg: string, purpose: string, cause: unknown): FileconvError {
  return packageUnavailable('pdf', pkg, purpose, cause);
}

/**
 * pdf-lib from its single-file build, for every user of it (the PDF converter, the operations, the
 * text converter's PDF output). Its CommonJS build ('pdf-lib') is 139 modules and loads tslib,
 * whose UMD wrapper defines __extends, __awaiter and twenty other helpers as globals; the bundled
 * build is one file and defines none (load time measured in the commit that chose it).
 */
export async function importPdfLib(): Promise<PdfLibModule> {
  return createRequire(import.meta.url)('pdf-lib/dist/pdf-lib.min.js') as PdfLibModule;
}

/** Memoises a dynamic import; a failed one is forgotten so a later call can retry (after an install). */
function lazy<T>(pkg: string, purpose: string, load: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => {
    promise ??= load().catch((error: unknown) => {
      promise = undefined;
      throw pdfEngineUnavailable(pkg, purpose, error);
    });
    return promise;
  };
}

// The legacy build is the one pdf.js supports in Node (the modern build assumes browser APIs).
export const loadPdfjs = lazy('pdfjs-dist', 'reading PDF', () => import('pdfjs-dist/legacy/build/pdf.mjs'));
export const loadPdfLib = lazy('pdf-lib', 'writing PDF', importPdfLib);
export const loadYazl = lazy('yazl', 'packaging pages as a zip', () => import('yazl'));

/** Local directories of the data pdf.js loads on demand, each with the trailing separator it expects. */
export interface PdfjsDataDirs {
  standardFonts: string;
  cMaps: string;
  wasm: string;
  iccs: string;
}

let dataDirs: PdfjsDataDirs | undefined;

/**
 * Where pdfjs-dist keeps its standard fonts, CMaps, WebAssembly decoders and ICC profiles. Given as
 * file paths, pdf.js reads them with fs (never fetch), so rendering needs no network at all.
 */
export function pdfjsDataDirs(): PdfjsDataDirs {
  if (dataDirs) return dataDirs;
  let root: string;
  try {
    root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  } catch (error) {
    throw pdfEngineUnavailable('pdfjs-dist', 'reading PDF', error);
  }
  const dir = (name: string) => join(root, name) + sep;
  dataDirs = {
    standardFonts: dir('standard_fonts'),
    cMaps: dir('cmaps'),
    wasm: dir('wasm'),
    iccs: dir('iccs'),
  };
  return dataDirs;
}
