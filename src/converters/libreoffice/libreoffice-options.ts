/** The options of LibreOffice's conversions, dependency-free (the registration declares them). */
import { z } from 'zod';
import { CSV_DELIMITERS } from './libreoffice-filters.js';

/** LibreOffice takes no per-conversion options but CSV's; unknown keys are refused like everywhere else. */
const noOptions = z.strictObject({});
/** The CSV options of the spreadsheet converter (exceljs.ts), so both write the same CSV. */
const csvOptions = z.strictObject({
  delimiter: z.enum(CSV_DELIMITERS).optional().describe("Field separator. Default ','."),
  bom: z
    .boolean()
    .optional()
    .describe(
      'Start the file with a UTF-8 byte order mark, which Excel needs to read non-ASCII text. Default false.',
    ),
});
/** The options of a conversion to `to`. */
export const libreOfficeOptionsSchema = (to: string): z.ZodType<CsvOptions> =>
  to === 'csv' ? csvOptions : noOptions;
export type CsvOptions = z.infer<typeof csvOptions>;
