/**
 * Lazy loaders for the spreadsheet converter's libraries (exceljs, csv-parse). They are imported
 * on first use only, so `import 'fileconv'` stays light, and a missing package becomes an
 * ENGINE_UNAVAILABLE error that names what to install instead of a bare "Cannot find module".
 */
import { createRequire } from 'node:module';
import type { FileconvError } from '../../core/errors.js';
import { packageUnavailable } from '../engine-packages.js';

/** exceljs's module object (a CommonJS module: its exports arrive as the default export). */
export type ExcelJsModule = typeof import('exceljs');
/** csv-parse's streaming parser factory. */
export type CsvParse = typeof import('csv-parse')['parse'];

function unavailable(pkg: string, cause: unknown): FileconvError {
  return packageUnavailable('exceljs', pkg, 'spreadsheets', cause);
}

let excelJs: Promise<ExcelJsModule> | undefined;
let csvParse: Promise<CsvParse> | undefined;

export function loadExcelJs(): Promise<ExcelJsModule> {
  excelJs ??= import('exceljs').then(
    (module) => (module as { default?: ExcelJsModule }).default ?? module,
    (error: unknown) => {
      excelJs = undefined; // let a later call retry, e.g. after an install
      throw unavailable('exceljs', error);
    },
  );
  return excelJs;
}

export function loadCsvParse(): Promise<CsvParse> {
  csvParse ??= import('csv-parse').then(
    (module) => module.parse,
    (error: unknown) => {
      csvParse = undefined;
      throw unavailable('csv-parse', error);
    },
  );
  return csvParse;
}

/** exceljs's installed version, for availability reports; undefined when it cannot be told. */
export function excelJsVersion(): string | undefined {
  try {
    const version = (createRequire(import.meta.url)('exceljs/package.json') as { version?: unknown }).version;
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}
