/**
 * What the spreadsheet converter offers the conversion graph, dependency-free (see
 * image/image-edges.ts for why).
 */
import type { FormatName } from '../../core/formats/types.js';
import type { ConversionEdge } from '../../core/ports/index.js';

/** Formats read and written as rows; xlsx is the only one with several sheets and cell types. */
export type SheetFormat = 'xlsx' | 'csv' | 'tsv' | 'json' | 'html';
const TEXT_ROWS = ['csv', 'tsv', 'json'] as const;

/**
 * Every edge costs 1 (one streaming pass in-process). Lossy: xlsx -> anything (one sheet, values
 * only: formatting, formulas, other sheets are lost) and json -> csv/tsv (value types: true and
 * "TRUE", null and "" become the same text). csv/tsv -> json keeps every value (numbers typed by
 * the rule in cells.ts); csv/tsv/json -> xlsx keeps every value and its type.
 */
export const SHEET_EDGES: readonly ConversionEdge[] = [
  ...(['csv', 'tsv', 'json', 'html'] as const).map((to) => ({
    from: 'xlsx',
    to,
    cost: 1,
    lossy: true,
    ...rowsAsJson(to),
  })),
  ...TEXT_ROWS.map((from) => ({ from, to: 'xlsx', cost: 1, lossy: false })),
  ...TEXT_ROWS.flatMap((from) =>
    TEXT_ROWS.filter((to) => to !== from).map((to) => ({
      from,
      to,
      cost: 1,
      lossy: from === 'json',
      ...rowsAsJson(to),
    })),
  ),
];

/** A sheet written as JSON is a list of row records (never TOML's table on top). */
function rowsAsJson(to: string): Pick<ConversionEdge, 'writesRecords'> {
  return to === 'json' ? { writesRecords: true } : {};
}

export function isSheetEdge(from: FormatName, to: FormatName): boolean {
  return SHEET_EDGES.some((edge) => edge.from === from && edge.to === to);
}
