/**
 * The Chromium converter (web pages, HTML and Markdown to PDF and screenshots) as an engine is
 * given it: its name, edges and options, declared without loading playwright, and `load`, which
 * makes it (its browser starts on the first conversion).
 */
import { z } from 'zod';
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import { CHROMIUM_EDGES } from './chromium-edges.js';
import { type ChromiumOptions, chromiumOptionsSchema } from './chromium-options.js';

const NO_OPTIONS = z.strictObject({});

/** What createChromiumConverter() is (with `urlCapture: false`, the url edges are left out). */
export const CHROMIUM: ConverterDeclaration<ChromiumOptions> = {
  name: 'chromium',
  edges: CHROMIUM_EDGES,
  optionsSchema: (to) => chromiumOptionsSchema(to) ?? NO_OPTIONS,
};

export const CHROMIUM_REGISTRATION: ConverterRegistration<ChromiumOptions> = {
  ...CHROMIUM,
  load: async () => (await import('./index.js')).createChromiumConverter(),
};
