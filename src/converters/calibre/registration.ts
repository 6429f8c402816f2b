/**
 * The e-book converter (calibre's ebook-convert) as an engine is given it: its name, edges and
 * options, declared without loading anything, and `load`, which makes it.
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import { CALIBRE_EDGES } from './calibre-edges.js';
import { type CalibrePdfOptions, calibreOptionsSchema } from './calibre-options.js';

/** What createCalibreConverter() is. */
export const CALIBRE: ConverterDeclaration<CalibrePdfOptions> = {
  name: 'calibre',
  edges: CALIBRE_EDGES,
  optionsSchema: (to) => calibreOptionsSchema(to),
};

export const CALIBRE_REGISTRATION: ConverterRegistration<CalibrePdfOptions> = {
  ...CALIBRE,
  load: async () => (await import('./index.js')).createCalibreConverter(),
};
