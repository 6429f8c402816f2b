/**
 * The spreadsheet converter (exceljs) as an engine is given it: its name, edges and options,
 * declared without loading exceljs, and `load`, which makes it with every conversion run in an
 * isolated child process (kit/isolation: exceljs parses on the thread that calls it).
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import type { IsolatedFactory } from '../../kit/isolation/process-protocol.js';
import { SHEET_EDGES } from './sheet-edges.js';
import { type SheetOptions, sheetOptionsSchema } from './sheet-options.js';

/** What createSpreadsheetConverter() is. */
export const EXCELJS: ConverterDeclaration<SheetOptions> = {
  name: 'exceljs',
  edges: SHEET_EDGES,
  optionsSchema: (to) => sheetOptionsSchema(to),
};

/** Where the isolation child makes its copy of the converter. */
export const EXCELJS_FACTORY: IsolatedFactory = {
  module: 'src/converters/exceljs/index',
  factory: 'createSpreadsheetConverter',
};

export const EXCELJS_REGISTRATION: ConverterRegistration<SheetOptions> = {
  ...EXCELJS,
  async load() {
    const [{ createSpreadsheetConverter }, { isolateConverter }] = await Promise.all([
      import('./index.js'),
      import('../../kit/isolation/isolated.js'),
    ]);
    return isolateConverter(createSpreadsheetConverter(), EXCELJS_FACTORY);
  },
};
