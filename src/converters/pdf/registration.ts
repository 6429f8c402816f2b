/**
 * The PDF converter (pdf.js, pdf-lib) as an engine is given it: its name, edges, options and
 * packaging, declared without loading pdf.js, and `load`, which makes it with every conversion
 * run in an isolated child process (kit/isolation: pdf.js parses on the thread that calls it).
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import type { IsolatedFactory } from '../../kit/isolation/process-protocol.js';
import { PDF_EDGES } from './pdf-edges.js';
import { isPageImageTarget, type PdfOptions, pdfOptionsSchema, rendersAllPages } from './pdf-options.js';

/** What createPdfConverter() is. */
export const PDF: ConverterDeclaration<PdfOptions> = {
  name: 'pdf',
  edges: PDF_EDGES,
  optionsSchema: (to) => pdfOptionsSchema(to),
  // Every page as an image is a zip of them.
  packaging: (to, options) => (isPageImageTarget(to) && rendersAllPages(options) ? 'zip' : undefined),
};

/** Where the isolation child makes its copy of the converter. */
export const PDF_FACTORY: IsolatedFactory = {
  module: 'src/converters/pdf/index',
  factory: 'createPdfConverter',
};

export const PDF_REGISTRATION: ConverterRegistration<PdfOptions> = {
  ...PDF,
  async load() {
    const [{ createPdfConverter }, { isolateConverter }] = await Promise.all([
      import('./index.js'),
      import('../../kit/isolation/isolated.js'),
    ]);
    return isolateConverter(createPdfConverter(), PDF_FACTORY);
  },
};
