/**
 * Conversion options of the text converter, as zod schemas: they validate requests and describe
 * the API. Only PDF output has options; every other target takes none (and refuses unknown keys).
 */
import { z } from 'zod';
import type { FormatName } from '../../core/formats/types.js';

export const PDF_DEFAULTS = {
  pageSize: 'a4',
  fontSize: 11,
  marginMm: 20,
  monospace: false,
} as const;

export const pdfOptionsSchema = z.strictObject({
  /** Paper size. Default 'a4' (210 x 297 mm); 'letter' is 8.5 x 11 in. */
  pageSize: z.enum(['a4', 'letter']).optional(),
  /** Body text size in points. Default 11; headings are drawn larger. */
  fontSize: z.number().min(4).max(72).optional(),
  /** Margin on all four sides, in millimetres. Default 20. At most 60, so text keeps ~90 mm of width. */
  marginMm: z.number().min(0).max(60).optional(),
  /** Body text in DejaVu Sans Mono instead of DejaVu Sans (keeps the columns of aligned plain text). Default false. */
  monospace: z.boolean().optional(),
});

export type PdfOptions = z.infer<typeof pdfOptionsSchema>;

export interface PdfSettings {
  width: number;
  height: number;
  margin: number;
  fontSize: number;
  monospace: boolean;
}

/** PDF page sizes in points (the values of pdf-lib's PageSizes, kept here so resolving needs no import). */
const PAGE_SIZES = { a4: [595.28, 841.89], letter: [612, 792] } as const;
const POINTS_PER_MM = 72 / 25.4;

export function pdfSettings(options: PdfOptions): PdfSettings {
  const [width, height] = PAGE_SIZES[options.pageSize ?? PDF_DEFAULTS.pageSize];
  return {
    width,
    height,
    margin: (options.marginMm ?? PDF_DEFAULTS.marginMm) * POINTS_PER_MM,
    fontSize: options.fontSize ?? PDF_DEFAULTS.fontSize,
    monospace: options.monospace ?? PDF_DEFAULTS.monospace,
  };
}

const noOptions = z.strictObject({});

/** The options schema for a conversion to `to` (a target other than PDF takes none of them). */
export function textOptionsSchema(to: FormatName): z.ZodType<PdfOptions> {
  return to === 'pdf' ? pdfOptionsSchema : noOptions;
}
