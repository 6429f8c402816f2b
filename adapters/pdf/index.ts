/** `fileconv/pdf`: operations on whole PDFs (merge, page ranges, rotation). */
export {
  extractPages,
  mergePdfs,
  type PdfMetadata,
  type PdfOperationOptions,
  readPdfMetadata,
  rotatePages,
  writePdfMetadata,
} from './operations.js';
export { parsePageRanges, readPageRanges } from './page-ranges.js';
export { libraryOptions, MAX_MERGE_INPUTS, pdfOperations } from './pdf-operations.js';
