/**
 * The xlsx source, on exceljs's streaming WorkbookReader: one worksheet is read row by row and
 * every other sheet is skipped unparsed, so memory holds one batch of rows plus the shared-string
 * table, whatever the sheet's length.
 *
 * How exceljs streams, and why this file is shaped around it: it walks the zip in file order. A
 * worksheet that comes before the shared strings (usual: Excel, LibreOffice and exceljs all write
 * them after the sheets) is first copied to a temporary file in the OS temp dir (the `tmp`
 * package; not our tempDir) and parsed once the zip has been read, from a ReadStream; a later one
 * is parsed straight from the zip entry. Temporary copies are removed only as exceljs moves past
 * them, so every sheet is walked to the end even after the wanted one, and a failure or abort
 * walks the rest in the background (dispose). A zip entry half-read cannot be walked past (exceljs
 * would buffer its remainder in memory), so that case stops the input instead.
 *
 * exceljs's walk can also end early: its unzipper emits 'end' once the input file has been read,
 * which can be before the entries still in its buffer were handed over (exceljs#3064, unzipper#234;
 * measured here: 1 read in ~3,000 under load lost every part after the first worksheet). The rows
 * of a sheet are therefore read only once every part exceljs needs first, that the zip's central
 * directory lists, was seen; otherwise the read starts again (nothing has been written yet), up
 * to three times.
 */
import { createReadStream, ReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Row as ExcelRow } from 'exceljs';
import { FileconvError } from '../../core/errors.js';
import type { ExcelJsModule } from '../../kit/libraries/sheets.js';
import { type Cell, cellFromExcel, type Row, trimRow } from '../../kit/tabular/cells.js';
import type { RowSource } from '../../kit/tabular/rows.js';
import { SHARED_STRINGS, STYLES, WORKBOOK, WORKBOOK_RELS, type WorkbookParts } from './workbook-parts.js';
import {
  resolveSheet,
  type SheetEvent,
  type SheetPart,
  type WorkbookInternals,
  type WorksheetInfo,
} from './workbook-reader.js';

/** One shared blank row for the gaps between rows (never mutated). */
const BLANK: Row = [];

function corrupt(error: unknown): unknown {
  // Our own errors, and the system's (a full disk under the temporary copies), are not the file's fault.
  if (error instanceof FileconvError || (error as { syscall?: unknown } | null)?.syscall) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new FileconvError('CORRUPT_INPUT', `The workbook could not be read: ${message}`, { cause: error });
}

function rowCells(row: ExcelRow, date1904: boolean): Row {
  const cells: Cell[] = [];
  row.eachCell((cell, column) => {
    while (cells.length < column - 1) cells.push(null);
    cells[column - 1] = cellFromExcel(cell.value, cell.numFmt, date1904);
  });
  return trimRow(cells);
}

/** Reads that ended before exceljs had seen every part it needs first. */
const ATTEMPTS = 3;

/** exceljs's walk ended before it saw these parts, which the zip holds: the read is started again. */
class LostParts extends Error {
  constructor(readonly parts: readonly string[]) {
    super(`exceljs's streaming read ended before ${parts.join(', ')}`);
  }
}

/**
 * Reads the sheet `wanted` (default the first worksheet) of the xlsx at `path`, whose zip holds
 * the workbook-level and worksheet parts `zipParts` (its central directory's word).
 */
export async function xlsxSource(
  excelJs: ExcelJsModule,
  path: string,
  wanted: string | number | undefined,
  zipParts: WorkbookParts,
): Promise<RowSource> {
  let current = await readAttempt(excelJs, path, wanted, zipParts);
  let disposed = false;
  async function* batches(): AsyncGenerator<Row[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        yield* current.batches;
        return;
      } catch (error) {
        if (!(error instanceof LostParts)) throw error;
        if (attempt >= ATTEMPTS || disposed) {
          throw new FileconvError(
            'CONVERSION_FAILED',
            `The workbook could not be read whole in ${ATTEMPTS} tries: ${error.message}`,
            { cause: error },
          );
        }
        current.dispose();
        current = await readAttempt(excelJs, path, wanted, zipParts);
      }
    }
  }
  return {
    batches: batches(),
    progress: () => current.progress(),
    title: () => current.title(),
    dispose() {
      disposed = true;
      current.dispose();
    },
  };
}

/** One read of the workbook; its batches throw LostParts before any row when exceljs's walk ended early. */
async function readAttempt(
  excelJs: ExcelJsModule,
  path: string,
  wanted: string | number | undefined,
  zipParts: WorkbookParts,
): Promise<RowSource & { batches: AsyncGenerator<Row[]> }> {
  const { size } = await stat(path);
  const input = createReadStream(path);
  const reader = new excelJs.stream.xlsx.WorkbookReader(input, {
    sharedStrings: 'cache',
    worksheets: 'emit',
    // Styles are needed for dates: a date is a number with a date format. Hyperlink cells keep
    // their text when hyperlinks are ignored.
    styles: 'cache',
    hyperlinks: 'ignore',
    // The 'entry' event names each worksheet's part just before the worksheet is handed over.
    entries: 'emit',
  }) as unknown as WorkbookInternals;
  let lastPart: string | undefined;
  const seen = new Set<string>();
  reader.on('entry', (entry) => {
    if (entry.type) seen.add(entry.type);
    if (entry.type === 'worksheet') lastPart = entry.id;
  });
  /**
   * Throws LostParts when a part the zip holds and the sheet's rows depend on was not seen: the
   * relations and workbook (sheet names), the shared strings (cell text), and, for a sheet read
   * back from its temporary copy (after the whole walk), the styles (dates).
   */
  const assertSeen = (spooled: boolean) => {
    const expected: [string, boolean][] = [
      [WORKBOOK_RELS, reader.workbookRels !== undefined],
      [WORKBOOK, seen.has('workbook')],
      [SHARED_STRINGS, seen.has('shared-strings')],
      [STYLES, !spooled || seen.has('styles')],
    ];
    const lost = expected.filter(([part, found]) => !found && zipParts.has(part)).map(([part]) => part);
    if (lost.length > 0) throw new LostParts(lost);
  };
  const parts = reader[Symbol.asyncIterator]();
  // exceljs pipes the input into its unzipper without listening for errors: a read error would be
  // uncaught and leave it waiting forever. Every wait on exceljs also listens for one. (Not a
  // Promise.race against one long-lived promise: each race would leave a reaction on it, holding
  // its batch of rows, for as long as the conversion runs.)
  let inputError: unknown;
  input.on('error', (error: unknown) => {
    inputError ??= error;
  });
  const orInputError = <T>(work: Promise<T>): Promise<T> => {
    if (inputError) return Promise.reject(inputError);
    return new Promise<T>((resolve, reject) => {
      input.once('error', reject);
      work.then(resolve, reject).finally(() => input.off('error', reject));
    });
  };

  let target: WorksheetInfo | undefined;
  /** The part received and not yet let go, and whether its rows were being read. */
  let held: SheetPart | undefined;
  let reading = false;
  let partSize = 0;
  let disposed = false;

  const copy = (part: SheetPart) => (part.iterator instanceof ReadStream ? part.iterator : undefined);
  // A temporary copy's stream is opened by exceljs whether or not it is read: close it. Its open
  // may still be under way and fail once exceljs removes the file; nobody reads it any more.
  const release = (part: SheetPart) =>
    copy(part)
      ?.on('error', () => {})
      .destroy();
  let started = false;
  const nextPart = async () => {
    started = true;
    try {
      return await orInputError(parts.next());
    } catch (error) {
      throw corrupt(error);
    }
  };

  async function* sheetRows(part: SheetPart): AsyncGenerator<Row[]> {
    const date1904 = reader.properties?.model?.date1904 === true;
    const events = part.parse();
    let lastNumber = 0;
    for (;;) {
      let step: IteratorResult<SheetEvent[]>;
      try {
        step = await orInputError(events.next());
      } catch (error) {
        throw corrupt(error);
      }
      if (disposed || step.done) return;
      const batch: Row[] = [];
      for (const event of step.value) {
        if (event.eventType !== 'row') continue;
        const row = event.value as ExcelRow;
        const cells = rowCells(row, date1904);
        // Leading and trailing blank rows are dropped; blank rows between data are kept.
        if (cells.length === 0) continue;
        for (let gap = lastNumber > 0 ? row.number - lastNumber - 1 : 0; gap > 0; gap--) batch.push(BLANK);
        batch.push(cells);
        lastNumber = row.number;
      }
      if (batch.length > 0) yield batch;
    }
  }

  async function* batches(): AsyncGenerator<Row[]> {
    let found = false;
    for (;;) {
      const step = await nextPart();
      if (step.done) break;
      if (disposed) {
        release(step.value);
        return;
      }
      held = step.value;
      if (!target) assertSeen(copy(held) !== undefined);
      target ??= resolveSheet(reader, wanted);
      if (found || lastPart !== target.part) {
        release(held);
        held = undefined;
        continue;
      }
      found = true;
      const spooled = copy(held);
      partSize = spooled ? (await stat(String(spooled.path))).size : 0;
      reading = true;
      yield* sheetRows(held);
      if (disposed) return;
      reading = false;
      held = undefined;
    }
    if (!target) assertSeen(true);
    target ??= resolveSheet(reader, wanted);
    if (!found && zipParts.has(`xl/worksheets/sheet${target.part}.xml`)) {
      throw new LostParts([`xl/worksheets/sheet${target.part}.xml`]);
    }
    if (!found) {
      throw new FileconvError(
        'CORRUPT_INPUT',
        `The workbook lists the sheet ${JSON.stringify(target.name)} but its part xl/worksheets/sheet${target.part}.xml is missing.`,
      );
    }
  }

  /** Walks exceljs past every remaining sheet so it removes its temporary copies. */
  const drain = async () => {
    for (;;) {
      const step = await parts.next();
      if (step.done) return;
      release(step.value);
    }
  };

  return {
    batches: batches(),
    progress() {
      const read = size > 0 ? input.bytesRead / size : 1;
      const spooled = held && reading ? copy(held) : undefined;
      if (!reading) return read / 2;
      return spooled ? 0.5 + (0.5 * spooled.bytesRead) / Math.max(partSize, 1) : read;
    },
    title: () => target?.name,
    dispose() {
      if (disposed) return;
      disposed = true;
      // exceljs has not opened anything yet: only the input's descriptor to close.
      if (!started) {
        input.destroy();
        return;
      }
      const part = held;
      if (part && reading && !copy(part)) {
        // Mid-way through a zip entry: stop the input; exceljs then waits forever and is collected.
        input.destroy();
        return;
      }
      if (part) release(part);
      drain().catch(() => {});
    },
  };
}
