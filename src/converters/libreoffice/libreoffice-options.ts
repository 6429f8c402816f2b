/**
 * The options of LibreOffice's conversions, dependency-free (the registration declares them):
 * CSV's, the PDF export's, and the password that opens the input, which every target takes.
 * libreoffice-pdf-export.ts turns them into what LibreOffice is given.
 */
import { z } from 'zod';
import { pageRangesSchema } from '../../core/page-ranges.js';
import { PDFA_LEVELS } from '../../core/pdfa-levels.js';
import { CSV_DELIMITERS } from './libreoffice-filters.js';

/** The image resolutions LibreOffice's PDF export offers (its dialog's list), in DPI. */
export const MAX_IMAGE_RESOLUTIONS = [75, 150, 300, 600, 1200] as const;

/** What opens an input; any target. writeOnly: a finished job keeps no password (core/secret-options.ts). */
const openShape = {
  password: z.string().min(1).max(1024).optional().meta({
    description:
      'The password that opens a password-protected ODF document (odt, ods, odp...). Default none.',
    writeOnly: true,
  }),
};

/** Unknown keys are refused like everywhere else. */
const openOptions = z.strictObject(openShape);

/** The CSV options of the spreadsheet converter (exceljs.ts), so both write the same CSV. */
const csvOptions = z.strictObject({
  ...openShape,
  delimiter: z.enum(CSV_DELIMITERS).optional().describe("Field separator. Default ','."),
  bom: z
    .boolean()
    .optional()
    .describe(
      'Start the file with a UTF-8 byte order mark, which Excel needs to read non-ASCII text. Default false.',
    ),
});

/** LibreOffice's PDF export (the FilterData of writer/calc/impress/draw_pdf_Export). */
const pdfOptions = z.strictObject({
  ...openShape,
  pageRanges: pageRangesSchema
    .optional()
    .describe("Pages to export, as in a print dialog: '1-3,5', '7-' (to the end). Default all."),
  pdfa: z
    .enum(PDFA_LEVELS)
    .optional()
    .describe("Write PDF/A: '1b', '2b' or '3b' (fonts embedded, no encryption). Default: a plain PDF."),
  pdfua: z.boolean().optional().describe('Write tagged PDF/UA (universal accessibility). Default false.'),
  landscape: z
    .boolean()
    .optional()
    .describe(
      'Turn portrait pages landscape before export (text documents and spreadsheets by their page styles, slides and drawings by their page size). Default false.',
    ),
  exportFormFields: z
    .boolean()
    .optional()
    .describe('Export form controls as PDF form fields; false prints only their look. Default true.'),
  exportBookmarks: z
    .boolean()
    .optional()
    .describe('Export headings as PDF bookmarks (outline). Default true.'),
  exportNotes: z.boolean().optional().describe('Export comments (notes) as PDF annotations. Default false.'),
  losslessImages: z
    .boolean()
    .optional()
    .describe('Compress images losslessly instead of as JPEG. Default false.'),
  quality: z
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe('JPEG quality of images, 1-100 (without losslessImages). Default 90.'),
  maxImageResolution: z
    .literal(MAX_IMAGE_RESOLUTIONS)
    .optional()
    .describe(
      'Downsample images above this resolution: 75, 150, 300, 600 or 1200 DPI. Default: not reduced.',
    ),
  singlePageSheets: z
    .boolean()
    .optional()
    .describe('Spreadsheets: each sheet on one page as large as its content. Default false.'),
});

/** The options of a conversion to `to`. */
export const libreOfficeOptionsSchema = (to: string): z.ZodType<LibreOfficeOptions> =>
  to === 'csv' ? csvOptions : to === 'pdf' ? pdfOptions : openOptions;

export type CsvOptions = z.infer<typeof csvOptions>;
export type PdfExportOptions = z.infer<typeof pdfOptions>;
/** Any LibreOffice conversion's options: its target's schema says which of these it may have. */
export type LibreOfficeOptions = CsvOptions & PdfExportOptions;
