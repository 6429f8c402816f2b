/**
 * The sharp image converter as an engine is given it: its name, edges and options, declared
 * without loading sharp, and `load`, which makes it (src/core/ports/converter.ts says why).
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import { buildImageEdges } from './image-edges.js';
import { type ImageOptions, imageOptionsSchema } from './image-options.js';

/** What createSharpConverter() is (with `heic: false`, the HEIC/HEIF edges are left out). */
export const SHARP: ConverterDeclaration<ImageOptions> = {
  name: 'sharp',
  edges: buildImageEdges(true),
  optionsSchema: (to) => imageOptionsSchema(to),
};

export const SHARP_REGISTRATION: ConverterRegistration<ImageOptions> = {
  ...SHARP,
  load: async () => (await import('./index.js')).createSharpConverter(),
};
