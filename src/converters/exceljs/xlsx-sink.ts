/**
 * The xlsx target, on exceljs's streaming WorkbookWriter: each row is committed as it arrives
 * (written to the zip and forgotten), so a million-row CSV never becomes a million-row workbook
 * in memory. Strings are written inline (no shared-string table to keep), without styles.
 */

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { FileconvError } from '../../core/errors.js';
import type { ExcelJsModule } from '../../kit/libraries/sheets.js';
import type { Cell } from '../../kit/tabular/cells.js';
import type { RowSink } from '../../kit/tabular/rows.js';

/** Excel's limits: rows and columns of a sheet, characters in a cell. */
export const XLSX_MAX_ROWS = 1_048_576;
export const XLSX_MAX_COLUMNS = 16_384;
export const XLSX_MAX_CELL_CHARS = 32_767;

/** Bytes of sheet XML allowed to wait for compression before the writer pauses the rows. */
const MAX_BACKLOG = 4 * 1024 * 1024;

/** The part of exceljs's worksheet writer this sink uses (its typings describe a different class). */
interface StreamingSheet {
  addRow(values: Cell[]): { commit(): void };
  commit(): void;
  /** The sheet's XML buffer, piped into the zip. */
  readonly stream?: {
    pipes?: Array<Partial<Pick<Writable, 'once'>> & { _writableState?: { length?: number } }>;
  };
}

function limitExceeded(message: string, details: Record<string, unknown>): FileconvError {
  return new FileconvError('INPUT_LIMIT_EXCEEDED', `${message} (an Excel sheet's limit)`, { details });
}

/**
 * How much sheet XML waits for the zip. exceljs's StreamBuf accepts every write and ignores
 * backpressure, so without this wait a fast source buffers the whole sheet in memory (about 0.5
 * KB per row) until the end. The pipe is an exceljs internal: if a future version moves it, the
 * check degrades to "no backlog known" rather than failing.
 */
function backlogStream(sheet: StreamingSheet): { length: number; wait: () => Promise<unknown> } | undefined {
  const pipe = sheet.stream?.pipes?.[0];
  const length = pipe?._writableState?.length;
  if (!pipe?.once || typeof length !== 'number') return undefined;
  const target = pipe as unknown as NodeJS.EventEmitter;
  return { length, wait: () => once(target, 'drain') };
}

export function xlsxSink(excelJs: ExcelJsModule, path: string, sheetName: string): RowSink {
  const file = createWriteStream(path, { flags: 'wx' });
  let fileError: unknown;
  file.on('error', (error: unknown) => {
    fileError ??= error;
  });
  const workbook = new excelJs.stream.xlsx.WorkbookWriter({
    stream: file,
    useSharedStrings: false,
    useStyles: false,
  });
  const sheet = workbook.addWorksheet(sheetName) as unknown as StreamingSheet;
  let rowCount = 0;

  /** `work`, unless the file fails first: exceljs would wait forever on a dead stream. */
  const unlessFileFails = async <T>(work: Promise<T>): Promise<T> => {
    if (fileError) throw fileError;
    const stop = new AbortController();
    const failed = once(file, 'error', { signal: stop.signal }).then(([error]: unknown[]) => {
      throw error;
    });
    try {
      return await Promise.race([work, failed]);
    } finally {
      stop.abort();
      failed.catch(() => {});
    }
  };

  const toXlsx = (cell: Cell, column: number): Cell => {
    if (typeof cell !== 'string') return cell;
    if (cell.length > XLSX_MAX_CELL_CHARS) {
      throw limitExceeded(
        `Row ${rowCount + 1}, column ${column + 1} holds ${cell.length} characters; a cell holds at most ${XLSX_MAX_CELL_CHARS}`,
        { row: rowCount + 1, column: column + 1, maxCellChars: XLSX_MAX_CELL_CHARS },
      );
    }
    return cell === '' ? null : cell;
  };

  return {
    async write(rows) {
      if (fileError) throw fileError;
      for (const row of rows) {
        if (rowCount >= XLSX_MAX_ROWS) {
          throw limitExceeded(`The data has more than ${XLSX_MAX_ROWS} rows`, { maxRows: XLSX_MAX_ROWS });
        }
        if (row.length > XLSX_MAX_COLUMNS) {
          throw limitExceeded(
            `Row ${rowCount + 1} has ${row.length} columns; a sheet has at most ${XLSX_MAX_COLUMNS}`,
            {
              row: rowCount + 1,
              maxColumns: XLSX_MAX_COLUMNS,
            },
          );
        }
        sheet.addRow(row.map(toXlsx)).commit();
        rowCount += 1;
      }
      const backlog = backlogStream(sheet);
      if (backlog && backlog.length > MAX_BACKLOG) await unlessFileFails(backlog.wait());
    },
    async end() {
      sheet.commit();
      await unlessFileFails(workbook.commit());
      await finished(file);
    },
    async abort() {
      // exceljs cannot abandon a workbook; closing its file is enough (the archive is garbage).
      file.destroy();
      await finished(file).catch(() => {});
    },
  };
}
