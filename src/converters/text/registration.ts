/**
 * The text converter (Markdown, HTML, plain text; marked, turndown, pdf-lib) as an engine is given
 * it: its name, edges and options, declared without loading its libraries, and `load`, which makes
 * it with every conversion run in an isolated child process (kit/isolation).
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import type { IsolatedFactory } from '../../kit/isolation/process-protocol.js';
import { TEXT_EDGES } from './text-edges.js';
import { type PdfOptions, textOptionsSchema } from './text-options.js';

/** What createTextConverter() is. */
export const TEXT: ConverterDeclaration<PdfOptions> = {
  name: 'text',
  edges: TEXT_EDGES,
  optionsSchema: (to) => textOptionsSchema(to),
};

/** Where the isolation child makes its copy of the converter. */
export const TEXT_FACTORY: IsolatedFactory = {
  module: 'src/converters/text/index',
  factory: 'createTextConverter',
};

export const TEXT_REGISTRATION: ConverterRegistration<PdfOptions> = {
  ...TEXT,
  async load() {
    const [{ createTextConverter }, { isolateConverter }] = await Promise.all([
      import('./index.js'),
      import('../../kit/isolation/isolated.js'),
    ]);
    return isolateConverter(createTextConverter(), TEXT_FACTORY);
  },
};
