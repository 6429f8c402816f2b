/**
 * The vector converters (Ghostscript, librsvg, Poppler's pdftocairo, svgz) as an engine is given
 * them: their names, edges and options, declared without loading anything, and `load`, which
 * makes each.
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import { GHOSTSCRIPT_EDGES, PDFTOCAIRO_EDGES, RSVG_EDGES, SVGZ_EDGES } from './vector-edges.js';
import { vectorOptionsSchema } from './vector-options.js';

/** What createGhostscriptConverter() is. */
export const GHOSTSCRIPT: ConverterDeclaration = {
  name: 'ghostscript',
  edges: GHOSTSCRIPT_EDGES,
  optionsSchema: (to) => vectorOptionsSchema(to),
};

/** What createRsvgConverter() is. */
export const RSVG: ConverterDeclaration = {
  name: 'rsvg',
  edges: RSVG_EDGES,
  optionsSchema: (to) => vectorOptionsSchema(to),
};

/** What createPdftocairoConverter() is. */
export const PDFTOCAIRO: ConverterDeclaration = {
  name: 'pdftocairo',
  edges: PDFTOCAIRO_EDGES,
  optionsSchema: (to) => vectorOptionsSchema(to),
};

/** What createSvgzConverter() is. */
export const SVGZ: ConverterDeclaration = {
  name: 'svgz',
  edges: SVGZ_EDGES,
  optionsSchema: (to) => vectorOptionsSchema(to),
};

export const GHOSTSCRIPT_REGISTRATION: ConverterRegistration = {
  ...GHOSTSCRIPT,
  load: async () => (await import('./ghostscript-converter.js')).createGhostscriptConverter(),
};

export const RSVG_REGISTRATION: ConverterRegistration = {
  ...RSVG,
  load: async () => (await import('./rsvg-converter.js')).createRsvgConverter(),
};

export const PDFTOCAIRO_REGISTRATION: ConverterRegistration = {
  ...PDFTOCAIRO,
  load: async () => (await import('./pdftocairo-converter.js')).createPdftocairoConverter(),
};

export const SVGZ_REGISTRATION: ConverterRegistration = {
  ...SVGZ,
  load: async () => (await import('./svgz-converter.js')).createSvgzConverter(),
};
