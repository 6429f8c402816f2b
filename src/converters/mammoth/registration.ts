/**
 * The docx converter (mammoth) as an engine is given it: its name, edges and options, declared
 * without loading mammoth, and `load`, which makes it with every conversion run in an isolated
 * child process (kit/isolation: a docx's XML can inflate to gigabytes of heap).
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import type { IsolatedFactory } from '../../kit/isolation/process-protocol.js';
import { MAMMOTH_EDGES } from './mammoth-edges.js';
import { type MammothOptions, mammothOptionsSchema } from './mammoth-options.js';

/** What createMammothConverter() is. */
export const MAMMOTH: ConverterDeclaration<MammothOptions> = {
  name: 'mammoth',
  edges: MAMMOTH_EDGES,
  optionsSchema: (to) => mammothOptionsSchema(to),
};

/** Where the isolation child makes its copy of the converter. */
export const MAMMOTH_FACTORY: IsolatedFactory = {
  module: 'src/converters/mammoth/index',
  factory: 'createMammothConverter',
};

export const MAMMOTH_REGISTRATION: ConverterRegistration<MammothOptions> = {
  ...MAMMOTH,
  async load() {
    const [{ createMammothConverter }, { isolateConverter }] = await Promise.all([
      import('./index.js'),
      import('../../kit/isolation/isolated.js'),
    ]);
    return isolateConverter(createMammothConverter(), MAMMOTH_FACTORY);
  },
};
