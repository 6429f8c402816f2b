/**
 * Adding subtitles to a video, as a document operation (a job with two inputs: the video, then
 * the subtitle file): `createConverter({ operations: [...pdfOperations(), ...subtitleOperations()] })`.
 *
 * - mode 'soft' muxes the subtitles in as a stream players can switch on and off: ASS/SSA stay
 *   ASS in Matroska (styles kept), SubRip stays SubRip; MP4 and MOV take mov_text, WebM WebVTT.
 *   Video and audio are copied when the target container takes their codecs.
 * - mode 'burn' draws them into the picture with ffmpeg's subtitles filter (libass): the
 *   subtitles are first converted to an ASS script in the work folder, without its embedded
 *   [Fonts] and [Graphics] sections, so libass reads nothing from the input but text and draws
 *   with the system's fonts; the filter is given that one file's path, escaped for both levels of
 *   ffmpeg's filter syntax (subtitleFilter), never a name from the client.
 *
 * The video is probed first (only the demuxers the media converter allows: no playlists or
 * concat lists) and held to the job's limits; both inputs are read with their demuxer forced.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AUDIO_ENCODERS, VIDEO_ENCODERS } from '../../converters/ffmpeg/codecs.js';
import { CONTAINERS, type MediaContainer, VIDEO_FORMATS } from '../../converters/ffmpeg/containers.js';
import { createNativeFfmpegRunner } from '../../converters/ffmpeg/native-runner.js';
import type { MediaProbe, MediaStream } from '../../converters/ffmpeg/runner.js';
import { assertConversionBudgets } from '../../converters/ffmpeg/safety.js';
import { charsetOption, convertSubtitleText } from '../../converters/subtitles/index.js';
import { convertSubStation, withoutEmbeddedFiles } from '../../converters/subtitles/substation.js';
import { runFfmpeg } from '../../converters/subtitles/subtitle-ffmpeg.js';
import {
  DEFAULT_MAX_SUBTITLE_BYTES,
  decodeSubtitle,
  SUBTITLE_FORMATS,
  type SubtitleFormat,
  subtitleKind,
} from '../../converters/subtitles/subtitle-text.js';
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import type { DocumentOperation, OperationContext } from '../../core/ports/index.js';
import { placeFile } from '../../kit/place-file.js';

/** The containers a video with subtitles may be written as. */
export const SUBTITLED_FORMATS = ['mkv', 'mp4', 'webm', 'mov'] as const;
type SubtitledFormat = (typeof SUBTITLED_FORMATS)[number];

export const subtitleOperationOptions = z.strictObject({
  mode: z
    .enum(['soft', 'burn'])
    .default('soft')
    .describe(
      "'soft': a subtitle stream players can turn on and off; 'burn': drawn into the picture. Default 'soft'.",
    ),
  format: z
    .enum(SUBTITLED_FORMATS)
    .optional()
    .describe("The result's container. Default 'mkv' for soft (keeps ASS styles), 'mp4' for burn."),
  language: z
    .string()
    .regex(/^[a-z]{3}$/)
    .optional()
    .describe("The subtitle stream's language, ISO 639-2 ('eng', 'fra'); soft mode only. Default none."),
  charset: charsetOption.optional(),
});
type SubtitleOperationOptions = z.output<typeof subtitleOperationOptions>;

function targetFormat(options: SubtitleOperationOptions): SubtitledFormat {
  return options.format ?? (options.mode === 'burn' ? 'mp4' : 'mkv');
}

/**
 * A path as the value of a filter option inside a filtergraph: ffmpeg unescapes twice, once for
 * the filtergraph (\ ' [ ] , ;) and once for the option value (\ ' :), so both are applied, the
 * option level first. A path holding quotes, colons or commas then names exactly that file.
 */
export function subtitleFilter(path: string): string {
  const optionLevel = path.replace(/[\\':]/g, '\\$&');
  const graphLevel = optionLevel.replace(/[\\'[\],;]/g, '\\$&');
  return `subtitles=filename=${graphLevel}`;
}

/** The probe's demuxer among those the media converter allows (mov, matroska, avi...). */
function videoDemuxer(probe: MediaProbe): string {
  const names = probe.formatName.split(',').map((name) => name.trim());
  const known = Object.values(CONTAINERS).find(
    (container) => container.kind === 'video' && names.includes(container.demuxer),
  );
  if (!known) {
    throw new FileconvError(
      'UNSUPPORTED_FORMAT',
      `The first file is not a video this service reads (${names[0]})`,
    );
  }
  return known.demuxer;
}

function videoStream(probe: MediaProbe, maxPixels: number): MediaStream {
  const video = probe.streams.find((stream) => stream.kind === 'video' && !stream.attachedPicture);
  if (!video?.width || !video.height) {
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      'The first file has no video stream to add subtitles to',
    );
  }
  if (video.width * video.height > maxPixels) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `The video is ${video.width}x${video.height} pixels; the limit is ${maxPixels} pixels a frame`,
      { details: { width: video.width, height: video.height, maxPixels } },
    );
  }
  return video;
}

/** -c:v / -c:a for the target: copy what it takes, encode the rest with its default codec. */
function streamArgs(probe: MediaProbe, video: MediaStream, target: MediaContainer, burn: boolean): string[] {
  const args = ['-map', `0:${video.index}`];
  if (!burn && target.copyVideo.includes(video.codec)) args.push('-c:v', 'copy');
  else {
    const encoder = VIDEO_ENCODERS[target.videoCodecs[0]!];
    args.push('-c:v', encoder.encoder, ...encoder.speedArgs, '-pix_fmt', 'yuv420p');
    if (encoder.crf) args.push('-crf', String(encoder.crf.fallback));
    if (encoder.encoder === 'libvpx-vp9' || encoder.encoder === 'libvpx') args.push('-b:v', '0');
  }
  const audio = probe.streams.find((stream) => stream.kind === 'audio');
  if (audio) {
    args.push('-map', `0:${audio.index}`);
    if (target.copyAudio.includes(audio.codec)) args.push('-c:a', 'copy');
    else {
      const encoder = AUDIO_ENCODERS[target.audioCodecs[0]!];
      args.push('-c:a', encoder.encoder, ...(encoder.qualityArgs ?? []));
      if (encoder.encoder === 'libopus') args.push('-ar', '48000');
    }
  }
  return args;
}

/** The soft subtitle codec for the target, and the text and demuxer fed to it. */
function softSubtitles(kind: SubtitleFormat, text: string, to: SubtitledFormat) {
  if (to === 'mkv' && (kind === 'ass' || kind === 'ssa')) {
    return { codec: 'ass', text: convertSubStation(text, 'ass'), demuxer: 'ass', ext: 'ass' };
  }
  const codec = to === 'mkv' ? (kind === 'vtt' ? 'webvtt' : 'srt') : to === 'webm' ? 'webvtt' : 'mov_text';
  const demuxer = { srt: 'srt', vtt: 'webvtt', ass: 'ass', ssa: 'ass' }[kind];
  return { codec, text, demuxer, ext: kind };
}

async function readSubtitleInput(
  path: string,
  charset: string | undefined,
): Promise<[SubtitleFormat, string]> {
  const { size } = await stat(path);
  if (size > DEFAULT_MAX_SUBTITLE_BYTES) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `The subtitle file is over ${DEFAULT_MAX_SUBTITLE_BYTES} bytes`,
    );
  }
  const text = decodeSubtitle(await readFile(path), charset);
  const kind = subtitleKind(text);
  if (!kind) {
    throw new FileconvError('CORRUPT_INPUT', 'The second file is not SubRip, WebVTT, ASS or SSA subtitles');
  }
  return [kind, text];
}

async function addSubtitles(ctx: OperationContext): Promise<undefined> {
  const options = ctx.options as SubtitleOperationOptions;
  const [videoPath, subtitlePath] = ctx.inputPaths as [string, string];
  const to = targetFormat(options);
  const target = CONTAINERS[to]!;
  const runner = createNativeFfmpegRunner();
  const probe = await runner.probe(videoPath, ctx.signal, { maxPixels: ctx.limits.maxPixels });
  const demuxer = videoDemuxer(probe);
  const video = videoStream(probe, ctx.limits.maxPixels);
  assertConversionBudgets(probe, ctx.limits);
  const [kind, text] = await readSubtitleInput(subtitlePath, options.charset);

  const id = randomUUID();
  const scratch = join(ctx.tempDir, `subtitled-${id}.${to}`);
  const written: string[] = [scratch];
  const names: Record<string, string> = {
    [videoPath]: 'file 1',
    [subtitlePath]: 'file 2',
    [scratch]: '<output>',
  };
  try {
    const args = ['-f', demuxer, '-i', `file:${videoPath}`];
    if (options.mode === 'burn') {
      const ass = withoutEmbeddedFiles(await convertSubtitleText(text, kind, 'ass', ctx.tempDir, ctx.signal));
      const script = join(ctx.tempDir, `burn-${id}.ass`);
      written.push(script);
      names[script] = 'file 2';
      await writeFile(script, ass);
      args.push('-vf', subtitleFilter(script), ...streamArgs(probe, video, target, true));
    } else {
      const soft = softSubtitles(kind, text, to);
      const subtitles = join(ctx.tempDir, `soft-${id}.${soft.ext}`);
      written.push(subtitles);
      names[subtitles] = 'file 2';
      await writeFile(subtitles, soft.text);
      args.push('-f', soft.demuxer, '-i', `file:${subtitles}`, ...streamArgs(probe, video, target, false));
      args.push('-map', '1:0', '-c:s', soft.codec);
      if (options.language) args.push('-metadata:s:s:0', `language=${options.language}`);
    }
    args.push('-map_metadata', '-1', ...target.muxerArgs, '-f', target.muxer, `file:${scratch}`);
    await runFfmpeg({ args, names, outputPath: scratch, signal: ctx.signal, what: 'Adding the subtitles' });
    await placeFile(scratch, ctx.outputPath);
  } finally {
    await Promise.all(written.map((path) => rm(path, { force: true })));
  }
  return undefined;
}

/** The subtitle operation: 'subtitles' over [video, subtitle file], soft or burned in. */
export function subtitleOperations(): DocumentOperation[] {
  const videos: readonly FormatName[] = VIDEO_FORMATS;
  return [
    {
      name: 'subtitles',
      description:
        "Adds the subtitle file (srt, vtt, ass, ssa; the second file) to the video: as a stream players switch on (mode 'soft') or drawn into the picture (mode 'burn').",
      input: 'mp4',
      accepts: (index) => (index === 0 ? videos : SUBTITLE_FORMATS),
      minInputs: 2,
      maxInputs: 2,
      available: () => createNativeFfmpegRunner().available(),
      optionsSchema: subtitleOperationOptions as unknown as DocumentOperation['optionsSchema'],
      output: (options) => ({ format: targetFormat(options as SubtitleOperationOptions) }),
      run: addSubtitles,
    },
  ];
}
