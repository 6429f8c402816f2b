/**
 * The audio and video converter (ffmpeg, native or WebAssembly) as an engine is given it: its name,
 * edges and options, declared without loading anything, and `load`, which makes it.
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import { buildMediaEdges } from './media-edges.js';
import { type MediaOptions, mediaOptionsSchema } from './media-options.js';

/**
 * What createFfmpegConverter() is. Its options are declared for the native ffmpeg with the
 * default size limits; the loaded converter's own schema follows its settings and the engine it
 * found (ffmpeg.wasm lacks some encoders): an engine that loads it (a direct conversion, a job
 * engine that runs its own worker) parses options with that one, an API node with this one.
 */
export const FFMPEG: ConverterDeclaration<MediaOptions> = {
  name: 'ffmpeg',
  edges: buildMediaEdges(),
  optionsSchema: (to) => mediaOptionsSchema(to),
};

export const FFMPEG_REGISTRATION: ConverterRegistration<MediaOptions> = {
  ...FFMPEG,
  load: async () => (await import('./index.js')).createFfmpegConverter(),
};
