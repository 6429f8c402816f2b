/**
 * The row model every spreadsheet conversion goes through: a row is an array of plain cell values
 * (column A first), whatever the source. Readers turn exceljs values, CSV fields and JSON values
 * into cells; writers turn cells into text, JSON values or xlsx cells. Keeping the model this
 * small is what makes every source reach every target with one writer per format.
 */
import type { CellValue } from 'exceljs';

/** One cell: text, a number, a boolean, a date (from xlsx only) or empty (null). */
export type Cell = string | number | boolean | Date | null;
export type Row = Cell[];

/** A JSON value in a row object: what a cell becomes in the json target. */
export type JsonCell = string | number | boolean | null;

// The plain decimal form JavaScript itself prints (see numberFromField).
const PLAIN_DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/**
 * The number a CSV/TSV field stands for, or undefined when it should stay text. The rule: the
 * field must be exactly the shortest decimal form JavaScript prints for that number
 * (String(Number(field)) === field). So 1, -3, 2.5 and 0.001 become numbers, while 007, 1.50,
 * +1, 1e5, 1,000, " 1", -0 and integers beyond 2^53's precision stay text. That keeps
 * identifiers and zero-padded codes intact and makes csv -> xlsx -> csv give back every field
 * exactly.
 */
export function numberFromField(field: string): number | undefined {
  if (field.length === 0 || field.length > 24 || !PLAIN_DECIMAL.test(field)) return undefined;
  const value = Number(field);
  return Number.isFinite(value) && String(value) === field ? value : undefined;
}

/** A CSV/TSV field as a cell: empty -> null, a plain number (numberFromField) -> number, else text. */
export function cellFromField(field: string): Cell {
  if (field.length === 0) return null;
  return numberFromField(field) ?? field;
}

/** Strips trailing empty cells, so a row with only empty cells becomes []. */
export function trimRow(row: Row): Row {
  let end = row.length;
  while (end > 0 && (row[end - 1] === null || row[end - 1] === '')) end -= 1;
  return end === row.length ? row : row.slice(0, end);
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/**
 * A date as ISO 8601. Excel stores no time zone (exceljs reads serials as UTC), so none is
 * written: '2024-03-01' for a whole day, '2024-03-01T13:45:00' with a time, '13:45:00' for a
 * time-only value (a serial below 1, which Excel shows on day 0, 1899-12-30). Null when invalid.
 */
export function isoDate(date: Date): string | null {
  const ms = date.getTime();
  if (Number.isNaN(ms)) return null;
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${
    date.getUTCMilliseconds() ? `.${pad(date.getUTCMilliseconds(), 3)}` : ''
  }`;
  // Excel's day 0 (serial 0..1): a time of day without a date.
  if (ms >= Date.UTC(1899, 11, 30) && ms < Date.UTC(1899, 11, 31)) return time;
  const day = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  return ms % 86_400_000 === 0 ? day : `${day}T${time}`;
}

/** A cell as CSV/TSV/HTML text. Booleans are TRUE/FALSE, as Excel writes them. */
export function cellText(cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number') return String(cell);
  if (typeof cell === 'boolean') return cell ? 'TRUE' : 'FALSE';
  return isoDate(cell) ?? '';
}

/** A cell as a JSON value: dates become ISO 8601 strings, everything else keeps its type. */
export function jsonCell(cell: Cell): JsonCell {
  return cell instanceof Date ? isoDate(cell) : cell;
}

// exceljs's own test for date formats (utils.isDateFmt), which it applies to plain numbers only.
function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  return /[ymdhMsb]/.test(format.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));
}

/** Excel's serial day number as a Date, as exceljs converts it (utils.excelToDate). */
function serialToDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000));
}

/**
 * A number as Excel holds it: 15 significant digits. A sheet stores a computed 294.8 as
 * 294.80000000000007 (the double's every digit); Excel and LibreOffice show and export 294.8,
 * and so does fileconv. Only numbers read from a workbook: a CSV field keeps the digits it has.
 */
function excelNumber(value: number): number {
  return Number.isFinite(value) ? Number(value.toPrecision(15)) : value;
}

type FormulaResult = NonNullable<Extract<CellValue, { result?: unknown }>['result']>;

function formulaResult(
  result: FormulaResult | undefined,
  numFmt: string | undefined,
  date1904: boolean,
): Cell {
  if (result === undefined) return null;
  if (typeof result === 'number') {
    // The streaming reader parses every cached result as a float: an error or a boolean result
    // becomes NaN there, and there is no way back to its text.
    if (Number.isNaN(result)) return null;
    return isDateFormat(numFmt) ? serialToDate(result, date1904) : excelNumber(result);
  }
  if (typeof result === 'object' && !(result instanceof Date)) return result.error;
  return result;
}

/**
 * An exceljs cell value as a cell: a formula gives its cached result (formulas are never
 * evaluated), rich text its plain text, a hyperlink its text, an error its text ('#DIV/0!').
 * `numFmt` (the cell's number format) and `date1904` turn a formula's numeric result into a date
 * when the cell is formatted as one; exceljs already does that for plain numbers.
 */
export function cellFromExcel(value: CellValue, numFmt?: string, date1904 = false): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return excelNumber(value);
  if (typeof value !== 'object' || value instanceof Date) return value;
  if ('richText' in value) return value.richText.map((run) => run.text ?? '').join('');
  if ('error' in value) return value.error;
  if ('formula' in value || 'sharedFormula' in value) return formulaResult(value.result, numFmt, date1904);
  if ('hyperlink' in value) return cellFromExcel(value.text as CellValue);
  // { sharedString: n } when shared strings were not cached: never the case here.
  return null;
}
