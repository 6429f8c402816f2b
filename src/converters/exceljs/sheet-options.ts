/**
 * What the spreadsheet converter offers: its edges (which formats reach which, at what cost, and
 * which lose information) and the schema of each target's conversion options.
 */
import { z } from 'zod';
import type { FormatName } from '../../core/formats/types.js';
import { memoizeSchema } from '../../kit/converter-kit.js';

export { isSheetEdge, SHEET_EDGES, type SheetFormat } from './sheet-edges.js';

/** A sheet name or a 1-based position among the workbook's worksheets (xlsx sources only). */
const sheetOption = z
  .union([z.string().min(1).max(31), z.int().min(1).max(65_535)])
  .optional()
  .describe(
    'xlsx input only: the sheet to convert, by name or 1-based position (a digit string naming no sheet counts as a position). Default: the first sheet.',
  );

// Excel refuses these characters in sheet names, and names of more than 31 characters.
const sheetName = z
  .string()
  .min(1)
  .max(31)
  .regex(/^[^\\/?*[\]:]+$/, 'a sheet name cannot contain \\ / ? * [ ] :')
  .refine((name) => !name.startsWith("'") && !name.endsWith("'"), "a sheet name cannot start or end with '")
  .optional()
  .describe("Name of the worksheet written. Default 'Sheet1'.");

const bom = z
  .boolean()
  .optional()
  .describe(
    'Start the file with a UTF-8 byte order mark, which Excel needs to read non-ASCII text. Default false.',
  );

export type SheetOptions = {
  /** xlsx input only: the sheet to convert, by name or 1-based position. Default the first sheet. */
  sheet?: string | number;
  /** csv output: the field separator. Default ','. */
  delimiter?: ',' | ';' | '|';
  /** csv/tsv output: start with a UTF-8 byte order mark. Default false. */
  bom?: boolean;
  /** xlsx output: the worksheet's name. Default 'Sheet1'. */
  sheetName?: string;
};

export const SHEET_DEFAULTS = { delimiter: ',', bom: false, sheetName: 'Sheet1' } as const;

/** The options a conversion to `to` accepts; unknown keys are refused. */
export const sheetOptionsSchema: (to: FormatName) => z.ZodType<SheetOptions> =
  memoizeSchema(buildSheetOptionsSchema);

function buildSheetOptionsSchema(to: FormatName): z.ZodType<SheetOptions> {
  switch (to) {
    case 'csv':
      return z.strictObject({
        sheet: sheetOption,
        delimiter: z.enum([',', ';', '|']).optional().describe("Field separator. Default ','."),
        bom,
      });
    case 'tsv':
      return z.strictObject({ sheet: sheetOption, bom });
    case 'json':
    case 'html':
      return z.strictObject({ sheet: sheetOption });
    case 'xlsx':
      return z.strictObject({ sheetName });
    default:
      return z.strictObject({});
  }
}
