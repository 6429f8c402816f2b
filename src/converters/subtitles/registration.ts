/**
 * The subtitle converter (SRT, WebVTT, SubStation) as an engine is given it: its name, edges and
 * options, declared without loading anything, and `load`, which makes it.
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import { SUBTITLE_EDGES } from './subtitle-edges.js';
import { type SubtitleOptions, subtitleOptionsSchema } from './subtitle-options.js';

/** What createSubtitleConverter() is. */
export const SUBTITLES: ConverterDeclaration<SubtitleOptions> = {
  name: 'subtitles',
  edges: SUBTITLE_EDGES,
  optionsSchema: (to) => subtitleOptionsSchema(to),
};

export const SUBTITLES_REGISTRATION: ConverterRegistration<SubtitleOptions> = {
  ...SUBTITLES,
  load: async () => (await import('./index.js')).createSubtitleConverter(),
};
