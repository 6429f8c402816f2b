/**
 * `fileconv/operations/ocr`: the 'ocr' document operation, a searchable PDF from a scanned PDF or
 * image (tesseract, Poppler, qpdf):
 *
 *   createConverter({ converters, operations: [...pdfOperations(), ...ocrOperations()] })
 */
export { OCR_IMAGE_INPUTS, ocrOperations } from './ocr-operation.js';
