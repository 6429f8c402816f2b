/**
 * The OCR converter (tesseract) as an engine is given it: its name, edges and options, declared
 * without loading anything, and `load`, which makes it. Also the preset's pdf -> txt with OCR for
 * scanned pages around a PDF converter's registration (withPdfTextOcrRegistration).
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import { OCR_EDGES } from './ocr-edges.js';
import { type OcrImageOptions, ocrImageOptionsSchema, pdfTextOcrOptionsSchema } from './ocr-options.js';

/** What createOcrConverter() is. */
export const OCR: ConverterDeclaration<OcrImageOptions> = {
  name: 'ocr',
  edges: OCR_EDGES,
  optionsSchema: () => ocrImageOptionsSchema,
};

export const OCR_REGISTRATION: ConverterRegistration<OcrImageOptions> = {
  ...OCR,
  load: async () => (await import('./index.js')).createOcrConverter(),
};

/**
 * `pdf` (a PDF converter's registration) whose pdf -> txt reads scanned pages by OCR
 * (withPdfTextOcr), with the OCR options declared on that edge.
 */
export function withPdfTextOcrRegistration(pdf: ConverterRegistration): ConverterRegistration {
  const schemaOf = pdf.optionsSchema?.bind(pdf);
  return {
    ...pdf,
    optionsSchema: (to) =>
      (to === 'txt' ? pdfTextOcrOptionsSchema : schemaOf?.(to)) as ReturnType<
        NonNullable<ConverterRegistration['optionsSchema']>
      >,
    async load() {
      const [converter, { withPdfTextOcr }] = await Promise.all([pdf.load(), import('./pdf-text-ocr.js')]);
      return withPdfTextOcr(converter);
    },
  };
}
