/**
 * `fileconv/pdf`: operations on whole PDFs. Merge, page ranges, rotation, document information,
 * watermarks, splitting into pages and forms (fill, flatten, list the fields) run on pdf-lib;
 * compress and PDF/A on Ghostscript (AGPL-3.0, `apt-get install ghostscript`); protect and
 * unlock on qpdf (Apache-2.0, `apt-get install qpdf`); thumbnails on the PDF converter's pdf.js
 * renderer and sharp.
 */

export { parsePageRanges, readPageRanges } from '../../core/page-ranges.js';
export type { WorkDirOptions } from '../../kit/work-dir.js';
export {
  COMPRESS_DEFAULTS,
  type CompressOptions,
  type CompressResult,
  compressOptionsSchema,
  compressPdf,
} from './compress.js';
export { type FillFormOptions, fillFormOptionsSchema, fillPdfForm, flattenPdfForm } from './fill-form.js';
export {
  PDF_FIELD_TYPES,
  type PdfFieldType,
  type PdfFieldValue,
  type PdfFormField,
  type PdfFormFieldsFile,
  readPdfFormFields,
  writePdfFormFields,
} from './form-fields.js';
export {
  extractPages,
  mergePdfs,
  type PdfMetadata,
  readPdfMetadata,
  rotatePages,
  writePdfMetadata,
} from './operations.js';
export type { PdfOperationOptions, PdfRunOptions } from './pdf-document.js';
export {
  libraryOptions,
  MAX_MERGE_INPUTS,
  type PdfOperationsOptions,
  pdfOperations,
} from './pdf-operations.js';
export { PDF_TOOLS, type PdfTool, type PdfToolRunOptions } from './pdf-tools.js';
export { convertToPdfA, PDFA_LEVELS, type PdfaLevel, type PdfaOptions, pdfaOptionsSchema } from './pdfa.js';
export {
  type ProtectOptions,
  pdfPermissionsSchema,
  protectOptionsSchema,
  protectPdf,
  type UnlockOptions,
  unlockOptionsSchema,
  unlockPdf,
} from './protect.js';
export {
  type SplitEveryPageOptions,
  splitEveryPage,
  splitEveryPageOptionsSchema,
} from './split-every-page.js';
export { pdfThumbnail, type ThumbnailOptions, thumbnailOptionsSchema } from './thumbnail.js';
export {
  WATERMARK_POSITIONS,
  type WatermarkOptions,
  type WatermarkPosition,
  watermarkOptionsSchema,
  watermarkPdf,
} from './watermark.js';
