/**
 * The audio and video converter: every pair among twelve video containers, every pair among ten
 * audio formats, video to audio (the soundtrack), video to GIF and GIF to video, on ffmpeg.
 *
 * ffmpeg runs natively (a child process) when the binary is found, else as WebAssembly
 * (@ffmpeg/core, loaded only then); see media/engine-select.ts. Every input is probed first (from
 * its container's header in JS for WAV, FLAC, MP3, Ogg, MP4/MOV and Matroska/WebM where the header
 * says enough: header-probe.ts; by ffprobe otherwise) and must really be the declared container, hold the stream the target needs and stay within the
 * duration and resolution limits (media/safety.ts); ffmpeg only ever reads local files with the
 * declared format's demuxer. Streams already in a codec the target takes are copied, not
 * re-encoded (media/ffmpeg-args.ts). The output appears at `outputPath` only when complete.
 *
 * The WebAssembly engine does not encode hevc or vp9 (in @ffmpeg/core 0.12.10 libx265 hangs, and
 * libvpx-vp9 crashed until media/wasm-core.ts enlarged the stack: media/wasm-encoders.ts). With
 * it, webm defaults to VP8 + Opus, the options schema does not offer those two as `videoCodec`,
 * and asking for one is INVALID_OPTIONS (from the schema, with a message naming the engine; chosen
 * over UNSUPPORTED_CONVERSION because the conversion itself works, only that option value does
 * not). The schema knows the engine once it is chosen: at once for 'native' / 'wasm' or a custom
 * runner, after the first `available()` (which the engine always calls first) for 'auto'; each
 * conversion validates again against the engine that runs it.
 */

import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { abortError } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { assertNotEmpty } from '../../core/file-size.js';
import type { FormatName } from '../../core/formats/types.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { DEFAULT_MIN_WORK_PIXELS, DEFAULT_WORK_PIXELS_PER_BYTE } from '../../core/work-limits.js';
import { unavailable } from '../../kit/converter-kit.js';
import { placeFile } from '../../kit/place-file.js';
import { locateBinaries } from './binaries.js';
import { containerOf } from './containers.js';
import { type FfmpegEngine, runnerSelector, WASM_INSTALL_HINT } from './engine-select.js';
import { buildFfmpegArgs, type FfmpegPlan } from './ffmpeg-args.js';
import { probeFromHeader } from './header-probe.js';
import { mapRunnerError } from './media-errors.js';
import { DEFAULT_MAX_DIMENSION, type MediaOptions, mediaOptionsSchema } from './media-options.js';
import { NATIVE_INSTALL_HINT } from './native-runner.js';
import { FFMPEG } from './registration.js';
import type { FfmpegRunner, RunnerKind } from './runner.js';
import {
  assertConversionBudgets,
  assertDeclaredContainer,
  assertStreamsFor,
  assertWithinLimits,
  assertWorkBudget,
  chooseStreams,
  type MediaLimits,
} from './safety.js';

export { AUDIO_CODECS, VIDEO_CODECS } from './codecs.js';
export { AUDIO_FORMATS, VIDEO_FORMATS } from './containers.js';
export type { FfmpegPlan } from './ffmpeg-args.js';
export { type MediaOptions, mediaOptionsSchema } from './media-options.js';
export { FFMPEG_REGISTRATION } from './registration.js';
export type { FfmpegRunner, MediaProbe, MediaStream, RunnerKind } from './runner.js';

export interface FfmpegConverterOptions {
  /**
   * Which ffmpeg runs: 'native' (the binary), 'wasm' (@ffmpeg/core), or 'auto' (default): native
   * when found. With 'wasm', hevc and vp9 cannot be encoded (INVALID_OPTIONS) and webm is VP8.
   */
  engine?: FfmpegEngine;
  /** The ffmpeg binary. Default: FFMPEG_PATH, else `ffmpeg` on PATH. */
  ffmpegPath?: string;
  /** The ffprobe binary. Default: FFPROBE_PATH, else beside ffmpeg, else on PATH. */
  ffprobePath?: string;
  /** Longest input accepted, in seconds (INPUT_LIMIT_EXCEEDED above it). Default 14400 (4 h). */
  maxDurationSeconds?: number;
  /**
   * Pixels an input may decode in all (frames x frame size) whatever its size. Default 4e9;
   * beyond it, `workPixelsPerByte` per byte of input (default 50,000): frame bombs are refused
   * before decoding (media/safety.ts assertWorkBudget).
   */
  minWorkPixels?: number;
  workPixelsPerByte?: number;
  /** Widest frame accepted or produced. Default 8192. The pixel count is also capped by the engine's maxPixels. */
  maxWidth?: number;
  /** Tallest frame accepted or produced. Default 8192. */
  maxHeight?: number;
  /** Threads ffmpeg may use per conversion. Default: ffmpeg decides (about one per core). */
  threads?: number;
  /** A runner to use instead of choosing an engine (a sandboxed ffmpeg, tests). */
  runner?: FfmpegRunner;
  /** Called with each native child's pid once it runs (tests check that a canceled one is gone). */
  onSpawn?: (pid: number, tool: 'ffmpeg' | 'ffprobe') => void;
  /** Called with each conversion's plan: arguments and copy/encode per stream (logging, tests). */
  onPlan?: (plan: FfmpegPlan) => void;
}

const isRunner = (value: unknown): value is FfmpegRunner =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as FfmpegRunner).probe === 'function' &&
  typeof (value as FfmpegRunner).run === 'function' &&
  typeof (value as FfmpegRunner).available === 'function';

const factoryOptionsSchema = z.strictObject({
  engine: z.enum(['auto', 'native', 'wasm']).optional(),
  ffmpegPath: z.string().min(1).optional(),
  ffprobePath: z.string().min(1).optional(),
  maxDurationSeconds: z
    .number()
    .positive()
    .max(7 * 86_400)
    .optional(),
  minWorkPixels: z.number().positive().optional(),
  workPixelsPerByte: z.number().positive().optional(),
  maxWidth: z.int().min(16).max(65_535).optional(),
  maxHeight: z.int().min(16).max(65_535).optional(),
  threads: z.int().min(1).max(64).optional(),
  runner: z
    .custom<FfmpegRunner>(isRunner, { message: 'Expected an FfmpegRunner (probe, run, available)' })
    .optional(),
  onSpawn: z
    .custom<(pid: number, tool: 'ffmpeg' | 'ffprobe') => void>((v) => typeof v === 'function')
    .optional(),
  onPlan: z.custom<(plan: FfmpegPlan) => void>((v) => typeof v === 'function').optional(),
});

export const FFMPEG_DEFAULTS = {
  engine: 'auto',
  maxDurationSeconds: 14_400,
  maxDimension: DEFAULT_MAX_DIMENSION,
} as const;

interface Settings {
  maxDurationSeconds: number;
  minWorkPixels: number;
  workPixelsPerByte: number;
  maxWidth: number;
  maxHeight: number;
  threads: number | undefined;
  onPlan: ((plan: FfmpegPlan) => void) | undefined;
}

async function runConversion(
  ctx: ConvertContext<MediaOptions>,
  runner: FfmpegRunner,
  settings: Settings,
): Promise<number> {
  const source = containerOf(ctx.from);
  const target = containerOf(ctx.to);
  if (!source || !target || (source.kind === 'audio' && target.kind !== 'audio')) {
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      `The ffmpeg converter cannot convert ${ctx.from} to ${ctx.to}`,
    );
  }
  const { options } = ctx;
  // A plan's media budget also caps the output's length, for inputs that do not declare theirs.
  const limits: MediaLimits = {
    ...settings,
    maxPixels: ctx.limits.maxPixels,
    maxDurationSeconds: Math.min(
      settings.maxDurationSeconds,
      ctx.limits.maxMediaSeconds ?? Number.POSITIVE_INFINITY,
    ),
  };

  const size = await stat(ctx.inputPath).then(
    (info) => info.size,
    (error: unknown) => {
      throw new FileconvError('INTERNAL', 'The conversion input file is missing', { cause: error });
    },
  );
  assertNotEmpty(size);

  // A common container says what ffprobe would from its header: one process per job, not two.
  const probe =
    (await probeFromHeader(ctx.inputPath, ctx.from, size)) ??
    (await runner.probe(ctx.inputPath, ctx.signal, { maxPixels: ctx.limits.maxPixels }));
  assertDeclaredContainer(probe, ctx.from, source);
  const streams = chooseStreams(probe);
  assertStreamsFor(streams, probe, ctx.to, target);
  assertConversionBudgets(probe, ctx.limits);
  assertWithinLimits(probe, limits);
  assertWorkBudget(probe, size, settings);
  ctx.onProgress(0.05);

  // Written beside nothing the caller can see, moved into place when complete.
  const scratch = join(ctx.tempDir, `ffmpeg-${randomUUID()}.${ctx.to}`);
  const plan = buildFfmpegArgs({
    source,
    target,
    probe,
    streams,
    options,
    inputPath: ctx.inputPath,
    outputPath: scratch,
    limits,
    threads: settings.threads,
    engine: runner.kind,
  });
  settings.onPlan?.(plan);
  // How far ffmpeg got through the media: an empty result after some of it went through the
  // encoder was lost on the way to the disk, not undecodable.
  let encoded = 0;
  try {
    const { cpuMs } = await runner.run({
      args: plan.args,
      inputPath: ctx.inputPath,
      outputPath: scratch,
      signal: ctx.signal,
      ...(plan.durationSeconds === undefined ? {} : { durationSeconds: plan.durationSeconds }),
      onProgress: (fraction) => {
        encoded = Math.max(encoded, fraction);
        ctx.onProgress(0.05 + 0.94 * fraction);
      },
    });
    if (ctx.signal.aborted) throw abortError(ctx.signal);
    const written = await stat(scratch).catch(() => undefined);
    // ffmpeg exits 0 when nothing in a damaged input could be decoded; an empty result is not a
    // result. It does the same when it could not write on a full disk: the engine tells the two
    // apart by the free space (reason 'empty-result', see blameFullDisk in
    // src/engine/conversion-failure.ts). The free space is read after the run, so a disk full
    // during the run and freed by its end would pass for a damaged input (the soak saw a good WAV
    // refused so): media that reached the encoder says it was the writing that failed.
    if ((!written || written.size === 0) && encoded > 0) {
      throw new FileconvError(
        'CONVERSION_FAILED',
        'ffmpeg encoded the media but its result is empty: the work folder could not be written',
        { details: { engine: 'ffmpeg', reason: 'lost-result' } },
      );
    }
    if (!written || written.size === 0) {
      throw new FileconvError('CORRUPT_INPUT', 'Nothing in the input could be decoded', {
        details: { engine: 'ffmpeg', reason: 'empty-result' },
      });
    }
    await placeFile(scratch, ctx.outputPath);
    return cpuMs;
  } catch (error) {
    await rm(scratch, { force: true });
    throw error;
  }
}

/** Creates the ffmpeg converter. Options are checked here; a bad one throws INVALID_OPTIONS. */
export function createFfmpegConverter(options: FfmpegConverterOptions = {}): Converter<MediaOptions> {
  const given = parseOptions(factoryOptionsSchema, options, 'createFfmpegConverter');
  const settings: Settings = {
    maxDurationSeconds: given.maxDurationSeconds ?? FFMPEG_DEFAULTS.maxDurationSeconds,
    minWorkPixels: given.minWorkPixels ?? DEFAULT_MIN_WORK_PIXELS,
    workPixelsPerByte: given.workPixelsPerByte ?? DEFAULT_WORK_PIXELS_PER_BYTE,
    maxWidth: given.maxWidth ?? FFMPEG_DEFAULTS.maxDimension,
    maxHeight: given.maxHeight ?? FFMPEG_DEFAULTS.maxDimension,
    threads: given.threads,
    onPlan: given.onPlan,
  };
  const custom = given.runner;
  const engine = given.engine ?? FFMPEG_DEFAULTS.engine;
  const choose = custom
    ? () => Promise.resolve(custom)
    : runnerSelector({
        engine,
        native: { ffmpegPath: given.ffmpegPath, ffprobePath: given.ffprobePath, onSpawn: given.onSpawn },
      });
  // The engine the options schema is built for: known at once unless 'auto' has not chosen yet,
  // when the native schema (the wider one) stands in. An engine asks available() (which chooses)
  // before it parses a conversion's options; a codec the chosen engine cannot encode is refused
  // when the arguments are built (ffmpeg-args.ts) all the same.
  let kind: RunnerKind | undefined = custom?.kind ?? (engine === 'auto' ? undefined : engine);
  const select = async (): Promise<FfmpegRunner> => {
    const runner = await choose();
    kind = runner.kind;
    return runner;
  };
  // Conversions in flight, each running one ffprobe or ffmpeg at a time (a child process, or a
  // worker thread for WebAssembly): what stats() reports as processes, all of them busy.
  let running = 0;

  return {
    ...FFMPEG,

    async available(): Promise<Availability> {
      try {
        const runner = await select();
        const availability = await runner.available();
        if (!availability.ok || runner.kind !== 'wasm' || engine !== 'auto' || custom) return availability;
        // 'auto' fell back: say why, so this row reads true beside the other ffmpeg users' MISSING.
        const native = await locateBinaries({ ffmpegPath: given.ffmpegPath, ffprobePath: given.ffprobePath });
        const why = 'missing' in native ? native.missing : 'native ffmpeg not chosen';
        return {
          ...availability,
          version: `${availability.version ?? 'ffmpeg.wasm'} (WebAssembly fallback: ${why}; native: ${NATIVE_INSTALL_HINT})`,
        };
      } catch (error) {
        return unavailable(error, WASM_INSTALL_HINT);
      }
    },

    optionsSchema: (to: FormatName) => mediaOptionsSchema(to, settings, kind ?? 'native'),

    async convert(ctx): Promise<ConvertResult> {
      if (ctx.signal.aborted) throw abortError(ctx.signal);
      ctx.onProgress(0);
      running++;
      try {
        const cpuMs = await runConversion(ctx, await select(), settings);
        ctx.onProgress(1);
        return { cpuMs };
      } catch (error) {
        if (ctx.signal.aborted) throw abortError(ctx.signal);
        throw mapRunnerError(error);
      } finally {
        running--;
      }
    },

    stats: () => ({ processes: running, busy: running }),
  };
}
