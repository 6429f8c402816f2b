/**
 * exceljs's streaming WorkbookReader as this converter sees it (its typings are loose and
 * describe other classes), and the choice of the worksheet to read: by name, by position, or the
 * first, in the workbook's own tab order rather than the order of the parts in the zip.
 */
import { FileconvError } from '../../core/errors.js';

/** What exceljs emits while parsing a worksheet: batches of events, 'row' ones carrying a Row. */
export interface SheetEvent {
  eventType: string;
  value: unknown;
}

/** exceljs's WorksheetReader, as far as used here (its typings are loose). */
export interface SheetPart {
  /** Where exceljs reads the part from: a ReadStream over the temporary copy, or the zip entry. */
  readonly iterator: unknown;
  parse(): AsyncIterator<SheetEvent[]>;
}

/** exceljs's WorkbookReader internals this file reads: the workbook's sheet list and relations. */
export interface WorkbookInternals {
  model?: { sheets?: Array<{ name?: string; rId?: string }> };
  workbookRels?: Array<{ Id?: string; Target?: string }>;
  properties?: { model?: { date1904?: boolean } };
  on(event: 'entry', listener: (entry: { type?: string; id?: string }) => void): unknown;
  [Symbol.asyncIterator](): AsyncIterator<SheetPart>;
}

export interface WorksheetInfo {
  name: string;
  /** N of the part xl/worksheets/sheetN.xml. */
  part: string;
}

/** The worksheets in workbook (tab) order; chart sheets are not worksheets and are left out. */
export function listWorksheets(reader: WorkbookInternals): WorksheetInfo[] {
  const rels = reader.workbookRels ?? [];
  return (reader.model?.sheets ?? []).flatMap((sheet) => {
    const target = rels.find((rel) => rel.Id === sheet.rId)?.Target ?? '';
    const part = /(?:^|\/)worksheets\/sheet(\d+)\.xml$/.exec(target)?.[1];
    return part && sheet.name !== undefined ? [{ name: sheet.name, part }] : [];
  });
}

/** The sheet `wanted` names: a name (exact, then case-insensitive as in Excel) or a 1-based position. */
export function resolveSheet(reader: WorkbookInternals, wanted: string | number | undefined): WorksheetInfo {
  const sheets = listWorksheets(reader);
  if (sheets.length === 0) {
    throw new FileconvError(
      'CORRUPT_INPUT',
      reader.model
        ? 'The workbook has no worksheets.'
        : 'The file has no xl/workbook.xml: it is not an Excel workbook (another zip named .xlsx?).',
    );
  }
  if (wanted === undefined) return sheets[0]!;
  let position = typeof wanted === 'number' ? wanted : undefined;
  if (typeof wanted === 'string') {
    const lower = wanted.toLowerCase();
    const named = sheets.find((s) => s.name === wanted) ?? sheets.find((s) => s.name.toLowerCase() === lower);
    if (named) return named;
    if (/^\d{1,5}$/.test(wanted)) position = Number(wanted);
  }
  const found = position === undefined ? undefined : sheets[position - 1];
  if (found) return found;
  const available = sheets.map((s) => s.name);
  throw new FileconvError(
    'INVALID_OPTIONS',
    `The workbook has no sheet ${JSON.stringify(wanted)}; its sheets are ${available.map((n) => JSON.stringify(n)).join(', ')}`,
    { details: { sheet: wanted, available } },
  );
}
