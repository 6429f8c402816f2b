/**
 * The spreadsheet converter: xlsx to csv, tsv, json and html (one sheet, the first unless the
 * `sheet` option names another), csv, tsv and json to xlsx, and csv, tsv and json between each
 * other, in pure JavaScript on exceljs (and csv-parse for CSV input). Every conversion streams:
 * rows go from a reader to a writer a batch at a time (office/sheets/rows.ts), so memory stays
 * flat however long the sheet. What is held whole is bounded: JSON input (maxJsonBytes) and an
 * xlsx's shared-string table (maxSharedStringsBytes).
 *
 * Both libraries are loaded lazily on first use. An xlsx input passes the zip checks
 * (office/zip-safety.ts: bombs, broken zips, encrypted documents) before exceljs opens it; every
 * failure is a FileconvError with a stable code; the output appears at `outputPath` only when
 * complete. Values, not looks: formulas give their cached result, dates ISO 8601 text, rich text
 * and hyperlinks their text, errors their text ('#DIV/0!'); formatting is not carried over.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { raceAbort, throwIfAborted } from '../../core/abort.js';
import { FileconvError, toFileconvError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { runInProcess, unavailable } from '../../kit/converter-kit.js';
import { missingPackages, notInstalled } from '../../kit/engine-packages.js';
import { excelJsVersion, loadCsvParse, loadExcelJs } from '../../kit/libraries/sheets.js';
import { placeFile } from '../../kit/place-file.js';
import { pumpRows, type RowSink, type RowSource } from '../../kit/tabular/rows.js';
import { delimitedSink, jsonSink } from '../../kit/tabular/text-sinks.js';
import { assertSafeZip, type ZipLimits, zipLimitsSchema } from '../../kit/zip-safety.js';
import { htmlSink } from './html-sink.js';
import { EXCELJS } from './registration.js';
import { isSheetEdge, SHEET_DEFAULTS, type SheetOptions } from './sheet-options.js';
import { delimitedSource, jsonSource } from './text-sources.js';
import { assertWorkbookParts } from './workbook-parts.js';
import { xlsxSink } from './xlsx-sink.js';
import { xlsxSource } from './xlsx-source.js';

export { EXCELJS_FACTORY, EXCELJS_REGISTRATION } from './registration.js';

export { SHEET_DEFAULTS, type SheetOptions, sheetOptionsSchema } from './sheet-options.js';

export interface SpreadsheetConverterOptions {
  /** Decompression limits for xlsx input (see office/zip-safety.ts). Default DEFAULT_ZIP_LIMITS. */
  zip?: Partial<ZipLimits>;
  /** Largest JSON input in bytes; JSON is parsed whole, so larger files are refused. Default 32 MiB. */
  maxJsonBytes?: number;
  /** Largest inflated xl/sharedStrings.xml of an xlsx input; it is held in memory. Default 128 MiB. */
  maxSharedStringsBytes?: number;
}

const factoryOptionsSchema = z.strictObject({
  zip: zipLimitsSchema.optional(),
  maxJsonBytes: z.int().min(1).optional(),
  maxSharedStringsBytes: z.int().min(1).optional(),
});

const DEFAULT_MAX_JSON_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_SHARED_STRINGS_BYTES = 128 * 1024 * 1024;

interface ConverterSettings {
  zip: Partial<ZipLimits>;
  maxJsonBytes: number;
  maxSharedStringsBytes: number;
}

/** What the target's schema cannot see: `sheet` names a sheet of an xlsx input only. */
function checkSheetOption(ctx: ConvertContext<SheetOptions>): void {
  if (ctx.options.sheet !== undefined && ctx.from !== 'xlsx') {
    throw new FileconvError('INVALID_OPTIONS', `The 'sheet' option applies to xlsx input, not ${ctx.from}`);
  }
}

async function openSource(ctx: ConvertContext<SheetOptions>, settings: ConverterSettings) {
  const { options } = ctx;
  switch (ctx.from) {
    case 'xlsx':
      // exceljs inflates entries without a bound of its own: the zip is checked first.
      await assertSafeZip(ctx.inputPath, settings.zip, ctx.signal);
      return xlsxSource(
        await loadExcelJs(),
        ctx.inputPath,
        options.sheet,
        await assertWorkbookParts(ctx.inputPath, settings.maxSharedStringsBytes),
      );
    case 'csv':
    case 'tsv':
      return delimitedSource(await loadCsvParse(), ctx.inputPath, ctx.from === 'csv' ? ',' : '\t');
    default:
      return jsonSource(ctx.inputPath, settings.maxJsonBytes);
  }
}

async function openSink(
  to: string,
  path: string,
  options: SheetOptions,
  source: RowSource,
): Promise<RowSink> {
  switch (to) {
    case 'csv':
      return delimitedSink(
        path,
        options.delimiter ?? SHEET_DEFAULTS.delimiter,
        options.bom ?? SHEET_DEFAULTS.bom,
      );
    case 'tsv':
      return delimitedSink(path, '\t', options.bom ?? SHEET_DEFAULTS.bom);
    case 'json':
      return jsonSink(path);
    case 'html':
      return htmlSink(path, () => source.title());
    default:
      return xlsxSink(await loadExcelJs(), path, options.sheetName ?? SHEET_DEFAULTS.sheetName);
  }
}

async function runConversion(ctx: ConvertContext<SheetOptions>, settings: ConverterSettings): Promise<void> {
  checkSheetOption(ctx);
  const { options } = ctx;
  const source = await openSource(ctx, settings);
  // Written beside nothing the caller can see, moved into place when complete.
  const scratch = join(ctx.tempDir, `exceljs-${randomUUID()}.${ctx.to}`);
  let sink: RowSink | undefined;
  try {
    throwIfAborted(ctx.signal);
    sink = await openSink(ctx.to, scratch, options, source);
    await pumpRows(source, sink, ctx.signal, ctx.onProgress);
    await raceAbort(sink.end(), ctx.signal);
    throwIfAborted(ctx.signal);
    await placeFile(scratch, ctx.outputPath);
  } catch (error) {
    source.dispose();
    await sink?.abort();
    await rm(scratch, { force: true });
    throw error;
  }
}

/** Creates the spreadsheet converter. Options are checked here, and a bad one throws INVALID_OPTIONS. */
export function createSpreadsheetConverter(
  options: SpreadsheetConverterOptions = {},
): Converter<SheetOptions> {
  const given = parseOptions(factoryOptionsSchema, options, 'createSpreadsheetConverter');
  const settings: ConverterSettings = {
    zip: given.zip ?? {},
    maxJsonBytes: given.maxJsonBytes ?? DEFAULT_MAX_JSON_BYTES,
    maxSharedStringsBytes: given.maxSharedStringsBytes ?? DEFAULT_MAX_SHARED_STRINGS_BYTES,
  };

  return {
    ...EXCELJS,

    async available(): Promise<Availability> {
      // Every missing package at once, from the disk: one install line makes the engine work.
      const missing = missingPackages('exceljs');
      if (missing.length > 0) return notInstalled('exceljs', missing);
      try {
        await Promise.all([loadExcelJs(), loadCsvParse()]);
        return { ok: true, version: `exceljs ${excelJsVersion() ?? '?'}` };
      } catch (error) {
        return unavailable(error);
      }
    },

    async convert(ctx): Promise<ConvertResult> {
      throwIfAborted(ctx.signal);
      if (!isSheetEdge(ctx.from, ctx.to)) {
        throw new FileconvError(
          'UNSUPPORTED_CONVERSION',
          `The exceljs converter cannot convert '${ctx.from}' to '${ctx.to}'`,
        );
      }
      return runInProcess(
        ctx,
        () => runConversion(ctx, settings),
        (error) => toFileconvError(error, 'CONVERSION_FAILED'),
      );
    },
  };
}
