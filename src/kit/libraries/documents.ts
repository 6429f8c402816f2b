/**
 * Lazy loaders for the document libraries (mammoth, marked, turndown, pdf-lib with fontkit). They
 * are imported on first use only, so importing a converter costs nothing until it converts, and a
 * missing package becomes an ENGINE_UNAVAILABLE error naming what to install instead of a bare
 * "Cannot find module".
 */
import { createRequire } from 'node:module';
import type { FileconvError } from '../../core/errors.js';
import { packageUnavailable } from '../engine-packages.js';
import { importPdfLib, type PdfLibModule } from './pdf.js';

export type MammothModule = typeof import('mammoth');
export type MarkedModule = typeof import('marked');
export type TurndownClass = typeof import('turndown');
export type FontkitModule = typeof import('@pdf-lib/fontkit');

export interface PdfEngine {
  pdfLib: PdfLibModule;
  fontkit: FontkitModule;
}

function engineUnavailable(
  converter: 'mammoth' | 'text',
  pkg: string,
  purpose: string,
  cause: unknown,
): FileconvError {
  return packageUnavailable(converter, pkg, purpose, cause);
}

/**
 * Caches one import; a failed import is forgotten so that a later call can retry (after an
 * install), and turns into ENGINE_UNAVAILABLE.
 */
function lazy<T>(
  load: () => Promise<T>,
  converter: 'mammoth' | 'text',
  pkg: string,
  purpose: string,
): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw engineUnavailable(converter, pkg, purpose, error);
    });
    return pending;
  };
}

/** CommonJS packages arrive as `{ default: module.exports }` under Node's ESM loader. */
function commonJs<T>(module: T | { default: T }): T {
  return typeof module === 'object' && module !== null && 'default' in module ? module.default : module;
}

export const loadMammoth: () => Promise<MammothModule> = lazy(
  async () => commonJs<MammothModule>(await import('mammoth')),
  'mammoth',
  'mammoth',
  'docx conversion',
);

export const loadMarked: () => Promise<MarkedModule> = lazy(
  async () => import('marked'),
  'text',
  'marked',
  'Markdown input',
);

export const loadTurndown: () => Promise<TurndownClass> = lazy(
  async () => commonJs<TurndownClass>(await import('turndown')),
  'text',
  'turndown',
  'HTML input',
);

export const loadPdfEngine: () => Promise<PdfEngine> = lazy(
  async (): Promise<PdfEngine> => {
    // fontkit's shapers for Indic and other complex scripts (Devanagari in a fallback face) are
    // generator code compiled for regenerator, whose runtime fontkit expects as a global.
    // @ts-expect-error regenerator-runtime ships no types; only its presence as a global matters.
    const runtime: unknown = await import('regenerator-runtime');
    (globalThis as { regeneratorRuntime?: unknown }).regeneratorRuntime ??= commonJs<unknown>(runtime);
    const [pdfLib, fontkit] = await Promise.all([importPdfLib(), import('@pdf-lib/fontkit')]);
    return { pdfLib, fontkit: commonJs<FontkitModule>(fontkit) };
  },
  'text',
  'pdf-lib',
  'PDF output',
);

/** The installed version of `pkg` ('1.17.1'), or '?' when its package.json cannot be read. */
export function packageVersion(pkg: string): string {
  try {
    const manifest: unknown = createRequire(import.meta.url)(`${pkg}/package.json`);
    const version = (manifest as { version?: unknown }).version;
    return typeof version === 'string' ? version : '?';
  } catch {
    return '?';
  }
}
