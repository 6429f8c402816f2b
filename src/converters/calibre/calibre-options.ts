/** The options of calibre's conversions, dependency-free (the registration declares them). */
import { z } from 'zod';
import type { FormatName } from '../../core/formats/types.js';
import { memoizeSchema } from '../../kit/converter-kit.js';

const pdfOptions = z.strictObject({
  /** Paper size of the PDF's pages. Default 'A4'. */
  paper: z.enum(['A4', 'Letter', 'Legal', 'A5', 'A3']).optional().describe("Paper size. Default 'A4'."),
});
const noOptions = z.strictObject({});
/** What a calibre conversion takes: PDF's options (the only target that has any). */
export type CalibrePdfOptions = z.output<typeof pdfOptions>;
/** The options of a conversion to `to`: the paper size of a PDF. */
export const calibreOptionsSchema: (to: FormatName) => z.ZodType<CalibrePdfOptions> = memoizeSchema(
  (to: FormatName) => (to === 'pdf' ? pdfOptions : noOptions),
);
