/** `fileconv/pdf`: operations on whole PDFs (merge, page ranges, rotation). */
export { extractPages, mergePdfs, type PdfOperationOptions, rotatePages } from './operations.js';
export { parsePageRanges } from './page-ranges.js';
