/**
 * The options of every OCR path, as strict zod shapes: image -> txt, the 'ocr' operation
 * (searchable PDF), and the OCR fallback of pdf -> txt. The languages are checked here for their
 * form only; whether each is installed is asked of tesseract when the conversion runs
 * (assertLanguages), since the schema cannot run a program. Loads no engine.
 */
import { z } from 'zod';

export const OCR_DEFAULTS = {
  languages: ['eng'],
  /** Tesseract's own default: fully automatic page segmentation, no orientation detection. */
  psm: 3,
  /** Rasterising resolution for PDF pages, and the resolution of a scan that does not say. */
  dpi: 300,
  /** pdf -> txt: OCR the pages that have no text layer. */
  pdfText: 'auto',
} as const;

export const OCR_DPI_RANGE = { min: 70, max: 600 } as const;

/**
 * Page segmentation modes that recognise text (0 only detects orientation; 2 is not implemented):
 * 1 automatic with orientation detection, 3 automatic, 4 one column, 5 one vertical block,
 * 6 one block, 7 one line, 8 one word, 9 one word in a circle, 10 one character, 11 sparse text,
 * 12 sparse with orientation detection, 13 raw line.
 */
const PSM_VALUES = [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13] as const;

export const ocrShape = {
  // Also 'eng+deu' (tesseract's own way) or 'eng,deu': the CLI's `-o languages=eng+deu` is text.
  languages: z
    .preprocess(
      (value) => (typeof value === 'string' ? value.split(/[+,\s]+/).filter(Boolean) : value),
      z
        .array(
          z
            .string()
            .regex(/^[A-Za-z][A-Za-z0-9_]{1,30}$/, 'a tesseract language code such as eng, deu, chi_sim'),
        )
        .min(1)
        .max(8),
    )
    .default([...OCR_DEFAULTS.languages])
    .describe(
      "Tesseract languages to read, e.g. ['eng', 'deu'] (or 'eng+deu'); each needs its Debian package tesseract-ocr-<lang>. Default ['eng'].",
    ),
  psm: z
    .literal(PSM_VALUES)
    .default(OCR_DEFAULTS.psm)
    .describe(
      'Page segmentation mode (tesseract --psm): 3 automatic, 4 one column, 6 one block, 7 one line, 11 sparse text. Default 3.',
    ),
};

const dpiShape = {
  dpi: z
    .int()
    .min(OCR_DPI_RANGE.min)
    .max(OCR_DPI_RANGE.max)
    .default(OCR_DEFAULTS.dpi)
    .describe(
      `Resolution PDF pages are rasterised at for OCR, and of an image that does not say its own. Default ${OCR_DEFAULTS.dpi}.`,
    ),
};

/** image -> txt. */
export const ocrImageOptionsSchema = z.strictObject(ocrShape);
export type OcrImageOptions = z.output<typeof ocrImageOptionsSchema>;

/** The 'ocr' operation: a searchable PDF from a scanned PDF or an image. */
export const ocrOperationOptionsSchema = z.strictObject({
  ...ocrShape,
  ...dpiShape,
  force: z
    .boolean()
    .default(false)
    .describe(
      'OCR the pages that already have text too (their text is then there twice). Default false: such pages are kept as they are.',
    ),
});
export type OcrOperationOptions = z.output<typeof ocrOperationOptionsSchema>;

/** pdf -> txt: the PDF converter's text with OCR for pages that have none. */
export const pdfTextOcrOptionsSchema = z.strictObject({
  ocr: z
    .enum(['auto', 'always', 'never'])
    .default(OCR_DEFAULTS.pdfText)
    .describe(
      "OCR of scanned pages: 'auto' reads the pages without a text layer (when tesseract is installed), 'always' every page instead of its text layer, 'never' none. Default 'auto'.",
    ),
  ...ocrShape,
  ...dpiShape,
});
export type PdfTextOcrOptions = z.output<typeof pdfTextOcrOptionsSchema>;
