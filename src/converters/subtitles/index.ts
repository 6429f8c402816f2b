/**
 * The subtitle converter: SubRip, WebVTT, ASS and SSA into each other. Timing and text go
 * through ffmpeg's subtitle decoders and encoders (the native binary, run like every other
 * command-line tool: adapters/tools/command-tools.ts); ASS <-> SSA is a rewrite of the script's
 * header and fields here (subtitles/substation.ts), since ffmpeg copies a script's header as it
 * is. Styling is kept where the target can hold it: ASS styles become <font>/<b>/<i> tags in
 * SubRip, SubRip's tags become ASS overrides.
 *
 * Input is read whole (bounded by `maxInputBytes`), decoded from its charset (the `charset`
 * option for 8-bit files; windows-1252 when the bytes are not UTF-8), checked to be the declared
 * format from its head, and handed to ffmpeg as UTF-8 with the demuxer forced. The output is
 * checked to hold cues; an input without any is CORRUPT_INPUT.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { FileconvError, toFileconvError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { toolsAvailability } from '../../kit/command-tools.js';
import { edgeGuard, runInProcess } from '../../kit/converter-kit.js';
import { placeFile } from '../../kit/place-file.js';
import { SUBTITLES } from './registration.js';
import { convertSubStation } from './substation.js';
import { SUBTITLE_EDGES } from './subtitle-edges.js';
import { runFfmpeg, SUBTITLE_DEMUXER } from './subtitle-ffmpeg.js';
import type { SubtitleOptions } from './subtitle-options.js';
import {
  countCues,
  DEFAULT_MAX_SUBTITLE_BYTES,
  readSubtitle,
  type SubtitleFormat,
  vttCuesOnly,
} from './subtitle-text.js';

export { SUBTITLES_REGISTRATION } from './registration.js';

export { SUBTITLE_EDGES } from './subtitle-edges.js';

export { charsetOption, type SubtitleOptions, subtitleOptionsSchema } from './subtitle-options.js';

export interface SubtitleConverterOptions {
  /** Largest subtitle input in bytes (INPUT_LIMIT_EXCEEDED beyond). Default 10 MiB. */
  maxInputBytes?: number;
}

const factoryOptionsSchema = z.strictObject({ maxInputBytes: z.int().min(1).optional() });

/** ffmpeg's encoder and muxer for each target it writes (SSA is made from ASS here). */
const ENCODER = { srt: ['srt', 'srt'], vtt: ['webvtt', 'webvtt'], ass: ['ass', 'ass'] } as const;

/** `text` (of format `from`) as `to`, via ffmpeg in `tempDir`; returns the output text. */
async function throughFfmpeg(
  text: string,
  from: SubtitleFormat,
  to: 'srt' | 'vtt' | 'ass',
  tempDir: string,
  signal: AbortSignal,
): Promise<string> {
  const id = randomUUID();
  const input = join(tempDir, `subtitles-${id}-in.${from}`);
  const output = join(tempDir, `subtitles-${id}-out.${to}`);
  const [encoder, muxer] = ENCODER[to];
  await writeFile(input, text);
  try {
    await runFfmpeg({
      args: [
        '-f',
        SUBTITLE_DEMUXER[from],
        '-i',
        `file:${input}`,
        '-map',
        '0:s:0',
        '-c:s',
        encoder,
        '-f',
        muxer,
        `file:${output}`,
      ],
      names: { [input]: '<input>', [output]: '<output>' },
      outputPath: output,
      signal,
      what: `The ${from} to ${to} conversion`,
    });
    return await readFile(output, 'utf8');
  } finally {
    await rm(input, { force: true });
    await rm(output, { force: true });
  }
}

/** The subtitle text `text` (of format `from`) converted to `to`. */
export async function convertSubtitleText(
  text: string,
  from: SubtitleFormat,
  to: SubtitleFormat,
  tempDir: string,
  signal: AbortSignal,
): Promise<string> {
  const substation = (format: SubtitleFormat) => format === 'ass' || format === 'ssa';
  if (from === 'vtt') text = vttCuesOnly(text);
  if (substation(from) && substation(to)) return convertSubStation(text, to as 'ass' | 'ssa');
  if (to === 'ssa') return convertSubStation(await throughFfmpeg(text, from, 'ass', tempDir, signal), 'ssa');
  return throughFfmpeg(text, from, to, tempDir, signal);
}

async function run(ctx: ConvertContext<SubtitleOptions>, maxBytes: number): Promise<void> {
  const from = ctx.from as SubtitleFormat;
  const to = ctx.to as SubtitleFormat;
  const text = await readSubtitle(ctx.inputPath, from, ctx.options.charset, maxBytes);
  const output = await convertSubtitleText(text, from, to, ctx.tempDir, ctx.signal);
  if (countCues(output, to) === 0) {
    throw new FileconvError('CORRUPT_INPUT', `The ${from} file holds no subtitle cues that could be read`);
  }
  const scratch = join(ctx.tempDir, `subtitles-${randomUUID()}.${to}`);
  try {
    await writeFile(scratch, output);
    await placeFile(scratch, ctx.outputPath);
  } finally {
    await rm(scratch, { force: true });
  }
}

/** Creates the subtitle converter. A bad factory option throws INVALID_OPTIONS. */
export function createSubtitleConverter(options: SubtitleConverterOptions = {}): Converter<SubtitleOptions> {
  const settings = parseOptions(factoryOptionsSchema, options, 'createSubtitleConverter');
  const maxBytes = settings.maxInputBytes ?? DEFAULT_MAX_SUBTITLE_BYTES;
  const guard = edgeGuard('subtitles', SUBTITLE_EDGES);
  return {
    ...SUBTITLES,
    available: (): Promise<Availability> => toolsAvailability(['ffmpeg']),
    async convert(ctx): Promise<ConvertResult> {
      guard(ctx.from, ctx.to);
      return runInProcess(
        ctx,
        () => run(ctx, maxBytes),
        (error) => toFileconvError(error, 'CONVERSION_FAILED'),
      );
    },
  };
}
