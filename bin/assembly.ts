/**
 * The CLI's assembly of core and adapters: which converters a command-line engine gets.
 * Every converter is listed even when its engine is missing here; the engine routes around
 * unavailable ones and `fileconv doctor` says how to install them.
 */
import { createFfmpegConverter } from '../adapters/converters/ffmpeg.js';
import { createSharpConverter } from '../adapters/converters/sharp.js';
import type { Converter } from '../src/index.js';

export function defaultConverters(): Converter[] {
  return [createSharpConverter(), createFfmpegConverter()];
}
