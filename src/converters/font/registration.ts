/**
 * The font converter (fontTools: TTF, OTF, WOFF, WOFF2) as an engine is given it: its name and
 * edges, declared without loading anything, and `load`, which makes it.
 */
import { z } from 'zod';
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import { FONT_EDGES } from './font-edges.js';

/** Its conversions take no options. */
export const FONT_OPTIONS = z.strictObject({});

/** What createFontConverter() is. */
export const FONT: ConverterDeclaration = {
  name: 'font',
  edges: FONT_EDGES,
  optionsSchema: () => FONT_OPTIONS,
};

export const FONT_REGISTRATION: ConverterRegistration = {
  ...FONT,
  load: async () => (await import('./index.js')).createFontConverter(),
};
