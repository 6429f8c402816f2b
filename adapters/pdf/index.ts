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
export { parsePageRanges } from './page-ranges.js';
