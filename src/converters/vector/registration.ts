/**
 * The vector converters (Ghostscript, librsvg, Poppler's pdftocairo, svgz) as an engine is given
 * them: their names, edges and options, declared without loading anything, and `load`, which
 * makes each.
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import { GHOSTSCRIPT_EDGES, PDFTOCAIRO_EDGES, RSVG_EDGES, SVGZ_EDGES } from './vector-edges.js';
import { type VectorOptions, vectorOptionsSchema } from './vector-options.js';

/** What createGhostscriptConverter() is. */
export const GHOSTSCRIPT: ConverterDeclaration<VectorOptions> = {
  name: 'ghostscript',
  edges: GHOSTSCRIPT_EDGES,
  optionsSchema: (to) => vectorOptionsSchema(to),
};

/** What createRsvgConverter() is. */
export const RSVG: ConverterDeclaration<VectorOptions> = {
  name: 'rsvg',
  edges: RSVG_EDGES,
  optionsSchema: (to) => vectorOptionsSchema(to),
};

/** What createPdftocairoConverter() is. */
export const PDFTOCAIRO: ConverterDeclaration<VectorOptions> = {
  name: 'pdftocairo',
  edges: PDFTOCAIRO_EDGES,
  optionsSchema: (to) => vectorOptionsSchema(to),
};

/** What createSvgzConverter() is. */
export const SVGZ: ConverterDeclaration<VectorOptions> = {
  name: 'svgz',
  edges: SVGZ_EDGES,
  optionsSchema: (to) => vectorOptionsSchema(to),
};

export const GHOSTSCRIPT_REGISTRATION: ConverterRegistration<VectorOptions> = {
  ...GHOSTSCRIPT,
  load: async () => (await import('./ghostscript-converter.js')).createGhostscriptConverter(),
};

export const RSVG_REGISTRATION: ConverterRegistration<VectorOptions> = {
  ...RSVG,
  load: async () => (await import('./rsvg-converter.js')).createRsvgConverter(),
};

export const PDFTOCAIRO_REGISTRATION: ConverterRegistration<VectorOptions> = {
  ...PDFTOCAIRO,
  load: async () => (await import('./pdftocairo-converter.js')).createPdftocairoConverter(),
};

export const SVGZ_REGISTRATION: ConverterRegistration<VectorOptions> = {
  ...SVGZ,
  load: async () => (await import('./svgz-converter.js')).createSvgzConverter(),
};
