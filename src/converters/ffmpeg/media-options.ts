/**
 * Conversion options of the ffmpeg converter: one strict zod schema per target format.
 *
 * Each target accepts only the keys that mean something for it (no `videoCodec` for mp3, no
 * `audioBitrate` for flac), with codec choices from that container's list, so a typo or an
 * impossible combination fails at request time with INVALID_OPTIONS instead of deep inside ffmpeg.
 * There are no defaults here on purpose: an option left out lets the converter copy a stream
 * untouched (ffmpeg-args.ts), which a filled-in default would prevent. This module runs no ffmpeg.
 *
 * The schema depends on the engine: with the WebAssembly one (ffmpeg.wasm), `videoCodec` does not
 * offer hevc or vp9, whose encoders it does not run (wasm-encoders.ts), and webm defaults to
 * vp8. Asking for them anyway is INVALID_OPTIONS, with a message saying why and what to use.
 */
import { z } from 'zod';
import type { FormatName } from '../../core/formats/types.js';
import { memoizeSchema } from '../../kit/converter-kit.js';
import {
  AUDIO_ENCODERS,
  type AudioCodec,
  usableVideoCodecs,
  VIDEO_ENCODERS,
  type VideoCodec,
  WASM_UNUSABLE_VIDEO_CODECS,
} from './codecs.js';
import { containerOf, type MediaContainer } from './containers.js';
import type { RunnerKind } from './runner.js';

/** The union of every target's options, as the converter reads them after parsing. */
export type MediaOptions = {
  /**
   * Video codec, from the target container's list. Default: the container's first (h264 for mp4,
   * vp9 for webm), or with the WebAssembly engine its first that works there (vp8 for webm).
   */
  videoCodec?: VideoCodec;
  /** Audio codec, from the target container's list. Default: the container's first (aac for mp4, opus for webm). */
  audioCodec?: AudioCodec;
  /** Video bitrate such as '800k' or '2M'; replaces constant-quality encoding. */
  videoBitrate?: string;
  /** Audio bitrate such as '128k'. Default: the encoder's (VBR ~190k for mp3). */
  audioBitrate?: string;
  /** Constant quality, lower is better: 0..51 for h264/hevc (default 23/28), 0..63 for vp8/vp9 (default 10/35). */
  crf?: number;
  /** Output width in pixels (even for video); alone, the height keeps the aspect ratio. */
  width?: number;
  /** Output height in pixels (even for video); alone, the width keeps the aspect ratio. */
  height?: number;
  /** Output frames per second. Default: the source's (gif: at most 10). */
  fps?: number;
  /** Seconds to skip from the start of the input. Default 0. */
  start?: number;
  /** Seconds to keep from `start`. Default: to the end. */
  duration?: number;
  /** Audio channels, 1..8 (capped by the codec: mp3 and mp2 2, ac3 6). Default: the source's. */
  audioChannels?: number;
  /** Audio sample rate in Hz. Default: the source's, or the nearest rate the codec takes. */
  sampleRate?: number;
  /** Drop the audio (video targets). Default false. */
  mute?: boolean;
  /**
   * Keep the source's streams as they are where the container can hold them, even in codecs
   * browsers do not play (MPEG-4 Part 2 video, AC-3 audio in an mp4). Default false: an mp4
   * plays in a browser.
   */
  keepStreams?: boolean;
  /** Drop tags (title, artist, GPS location, ...) and chapters. Default true; false keeps them. */
  stripMetadata?: boolean;
};

export interface DimensionLimits {
  /** Largest output width a caller may ask for. Default 8192. */
  maxWidth?: number;
  /** Largest output height a caller may ask for. Default 8192. */
  maxHeight?: number;
}

export const DEFAULT_MAX_DIMENSION = 8192;
/** Frames per second a GIF gets by default (at most): more only makes files larger. */
export const GIF_DEFAULT_FPS = 10;
/** Width a GIF is scaled down to by default (never up). */
export const GIF_DEFAULT_MAX_WIDTH = 480;

/** Digits, with a fraction only before a unit: '128k', '1.5M', '64000'. */
const BITRATE = /^([1-9]\d{0,8})(?:(?:\.(\d{1,3}))?([kKmM]))?$/;

/** Bits per second from '128k', '1.5M' or '64000'; undefined when not a bitrate. */
export function parseBitrate(text: string): number | undefined {
  const match = BITRATE.exec(text);
  if (!match) return undefined;
  const [, whole = '0', fraction = '0', unit = ''] = match;
  const scale = unit.toLowerCase() === 'k' ? 1e3 : unit.toLowerCase() === 'm' ? 1e6 : 1;
  return Math.round(Number(`${whole}.${fraction}`) * scale);
}

const bitrate = (what: string, min: number, max: number, example: string) =>
  z
    .string()
    .refine(
      (text) => {
        const bits = parseBitrate(text);
        return bits !== undefined && bits >= min && bits <= max;
      },
      { message: `Expected a bitrate such as '${example}', between ${min / 1000}k and ${max / 1e6}M` },
    )
    .optional()
    .describe(`${what} bitrate in bits per second, with an optional k or M suffix ('${example}').`);

const seconds = (description: string, min: number) =>
  z.number().min(min).max(86_400).optional().describe(description);

function dimension(side: string, max: number, even: boolean) {
  const base = z
    .int()
    .min(even ? 2 : 1)
    .max(max);
  return (even ? base.refine((n) => n % 2 === 0, { message: 'Expected an even number' }) : base)
    .optional()
    .describe(
      `Output ${side} in pixels${even ? ' (even)' : ''}; alone, the other side keeps the aspect ratio.`,
    );
}

/** Trimming and metadata: what every target takes. */
function commonShape() {
  return {
    start: seconds('Seconds to skip from the start of the input. Default 0.', 0),
    duration: seconds('Seconds to keep from start. Default: to the end.', 0.01),
    stripMetadata: z
      .boolean()
      .optional()
      .describe('Drop tags (title, artist, GPS location, ...) and chapters. Default true; false keeps them.'),
  };
}

function audioShape(container: MediaContainer) {
  const codecs = container.audioCodecs;
  const [first, ...rest] = codecs;
  return {
    ...(first && rest.length > 0
      ? {
          audioCodec: z
            .enum([first, ...rest])
            .optional()
            .describe(`Audio codec. Default ${first}.`),
        }
      : {}),
    ...(codecs.some((codec) => AUDIO_ENCODERS[codec].bitrate)
      ? { audioBitrate: bitrate('Audio', 8_000, 640_000, '128k') }
      : {}),
    audioChannels: z.int().min(1).max(8).optional().describe("Audio channels, 1..8. Default: the source's."),
    sampleRate: z
      .int()
      .min(8000)
      .max(192_000)
      .optional()
      .describe("Audio sample rate in Hz. Default: the source's, or the nearest rate the codec takes."),
  };
}

/**
 * The `videoCodec` option: the codecs `engine` can encode. Naming one the engine lacks (vp9 or
 * hevc with ffmpeg.wasm) gets a message saying so rather than zod's bare list.
 */
function videoCodecOption(container: MediaContainer, engine: RunnerKind) {
  const [first, ...rest] = usableVideoCodecs(container.videoCodecs, engine);
  if (!first) return {};
  const expected = [first, ...rest].join(', ');
  return {
    videoCodec: z
      .enum([first, ...rest], {
        error: (issue) =>
          // A codec the container takes but this engine cannot encode (else zod's own message).
          container.videoCodecs.includes(issue.input as VideoCodec) &&
          WASM_UNUSABLE_VIDEO_CODECS.has(issue.input as VideoCodec)
            ? `${issue.input} cannot be encoded by the WebAssembly ffmpeg engine (ffmpeg.wasm does not run its encoder); use ${expected}, or install the native ffmpeg`
            : undefined,
      })
      .optional()
      .describe(`Video codec. Default ${first}.`),
  };
}

function shapeFor(container: MediaContainer, limits: Required<DimensionLimits>, engine: RunnerKind) {
  const even = container.kind !== 'animation';
  const picture = {
    width: dimension('width', limits.maxWidth, even),
    height: dimension('height', limits.maxHeight, even),
    fps: z
      .number()
      .positive()
      .max(container.kind === 'animation' ? 50 : 120)
      .optional()
      .describe(`Frames per second. Default: the source's${even ? '' : `, at most ${GIF_DEFAULT_FPS}`}.`),
  };
  if (container.kind === 'animation') return { ...picture, ...commonShape() };
  if (container.kind === 'audio') return { ...audioShape(container), ...commonShape() };
  return {
    ...videoCodecOption(container, engine),
    videoBitrate: bitrate('Video', 16_000, 200_000_000, '2M'),
    crf: z
      .int()
      .min(0)
      .max(63)
      .optional()
      .describe('Constant quality, lower is better: 0..51 for h264/hevc, 0..63 for vp8/vp9.'),
    ...picture,
    ...audioShape(container),
    ...commonShape(),
    mute: z.boolean().optional().describe('Drop the audio. Default false.'),
    ...(container.holdVideo || container.holdAudio
      ? {
          keepStreams: z
            .boolean()
            .optional()
            .describe(
              `Copy the source's streams as they are where the container holds them, even codecs browsers do not play (${[...(container.holdVideo ?? []), ...(container.holdAudio ?? [])].join(', ')}). Default false: the result plays in a browser.`,
            ),
        }
      : {}),
  };
}

/** Cross-field rules: what one option means depends on the codec another one picks. */
function checkCombinations(
  container: MediaContainer,
  engine: RunnerKind,
  options: MediaOptions,
  ctx: z.RefinementCtx,
): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  const videoCodec = options.videoCodec ?? usableVideoCodecs(container.videoCodecs, engine)[0];
  if (options.crf !== undefined && videoCodec) {
    const crf = VIDEO_ENCODERS[videoCodec].crf;
    if (!crf) issue('crf', `${videoCodec} has no constant-quality mode; use videoBitrate`);
    else if (options.crf > crf.max) issue('crf', `Expected at most ${crf.max} for ${videoCodec}`);
    if (options.videoBitrate !== undefined) issue('crf', 'Give crf or videoBitrate, not both');
  }
  const audioCodec = options.audioCodec ?? container.audioCodecs[0];
  if (options.mute) {
    for (const key of ['audioCodec', 'audioBitrate', 'audioChannels', 'sampleRate'] as const) {
      if (options[key] !== undefined) issue(key, 'mute drops the audio, so audio options cannot apply');
    }
    return;
  }
  if (!audioCodec) return;
  const encoder = AUDIO_ENCODERS[audioCodec];
  if (options.audioChannels !== undefined && options.audioChannels > encoder.maxChannels) {
    issue('audioChannels', `Expected at most ${encoder.maxChannels} for ${audioCodec}`);
  }
  if (
    options.sampleRate !== undefined &&
    encoder.sampleRates &&
    !encoder.sampleRates.includes(options.sampleRate)
  ) {
    issue('sampleRate', `Expected one of ${encoder.sampleRates.join(', ')} for ${audioCodec}`);
  }
  if (options.audioBitrate !== undefined && !encoder.bitrate) {
    issue('audioBitrate', `${audioCodec} is lossless: it has no bitrate`);
  }
}

/**
 * The strict options schema for a conversion to `to` on `engine` (default 'native'). Exported so
 * hosts and the HTTP API can validate and describe options without ffmpeg; formats this converter
 * does not write take none.
 */
export function mediaOptionsSchema(
  to: FormatName,
  limits: DimensionLimits = {},
  engine: RunnerKind = 'native',
): z.ZodType<MediaOptions> {
  const maxWidth = limits.maxWidth ?? DEFAULT_MAX_DIMENSION;
  const maxHeight = limits.maxHeight ?? DEFAULT_MAX_DIMENSION;
  return cachedMediaSchema(`${to}|${engine}|${maxWidth}|${maxHeight}`);
}

const cachedMediaSchema = memoizeSchema((key: string) => {
  const [to, engine, maxWidth, maxHeight] = key.split('|') as [FormatName, RunnerKind, string, string];
  return buildMediaSchema(to, { maxWidth: Number(maxWidth), maxHeight: Number(maxHeight) }, engine);
});

function buildMediaSchema(
  to: FormatName,
  resolved: { maxWidth: number; maxHeight: number },
  engine: RunnerKind,
): z.ZodType<MediaOptions> {
  const container = containerOf(to);
  if (!container) return z.strictObject({});
  const schema = z
    .strictObject(shapeFor(container, resolved, engine))
    .superRefine((options, ctx) => checkCombinations(container, engine, options as MediaOptions, ctx));
  // The codec enums are built from each container's list, which zod types as plain strings.
  return schema as unknown as z.ZodType<MediaOptions>;
}
