/**
 * Builds the ffmpeg command line of one conversion from what the probe found and the options.
 *
 * Stream copy rule: a stream is remuxed as it is (`-c:v copy` / `-c:a copy`) when its codec is in
 * the target container's copy list, the options name no other codec, and no option re-shapes it
 * (bitrate, crf, size, fps, channels, sample rate) and no trim is asked for (a copied stream can
 * only be cut at keyframes). The decision is per stream: mkv(h264 + vorbis) -> mp4 copies the
 * video and encodes only the audio to AAC. Everything else is encoded with the defaults in
 * codecs.ts and containers.ts.
 *
 * Every mapped stream gets an explicit `-c:v` / `-c:a` (an encoder or `copy`), and every stream
 * not wanted an explicit `-vn` / `-an`: ffmpeg's own per-muxer defaults never choose an encoder.
 * That matters for the WebAssembly engine, which does not run ffmpeg's default for .webm (libvpx-vp9):
 * there the defaults skip the codecs it cannot encode (webm gets vp8), and an explicit one is
 * refused with UNSUPPORTED_CONVERSION before ffmpeg starts (the options schema already refuses it).
 */
import { FileconvError } from '../../core/errors.js';
import {
  AUDIO_ENCODERS,
  canEncodeVideo,
  encodableSampleRate,
  usableVideoCodecs,
  VIDEO_ENCODERS,
  type VideoCodec,
} from './codecs.js';
import type { MediaContainer } from './containers.js';
import { GIF_DEFAULT_FPS, GIF_DEFAULT_MAX_WIDTH, type MediaOptions, parseBitrate } from './media-options.js';
import type { MediaProbe, MediaStream, RunnerKind } from './runner.js';
import { assertFrameSize, type ChosenStreams, type MediaLimits } from './safety.js';

export interface ArgsInput {
  source: MediaContainer;
  target: MediaContainer;
  probe: MediaProbe;
  streams: ChosenStreams;
  options: MediaOptions;
  inputPath: string;
  outputPath: string;
  limits: MediaLimits;
  /** ffmpeg threads for decoding, filtering and encoding; undefined lets ffmpeg decide. */
  threads: number | undefined;
  /** The engine that will run the arguments: it decides which video encoders may be chosen. */
  engine: RunnerKind;
}

export type StreamAction = 'copy' | 'encode' | 'none';

export interface FfmpegPlan {
  /** Arguments for FfmpegRunner.run: they name the input and output paths exactly. */
  args: string[];
  /** Expected output duration, for progress; undefined when unknown. */
  durationSeconds: number | undefined;
  video: StreamAction;
  audio: StreamAction;
  /** The engine the arguments were built for. */
  engine: RunnerKind;
}

/** Containers whose HEVC needs the 'hvc1' tag for Apple players (ffmpeg writes 'hev1'). */
const ISO_MUXERS = new Set(['mp4', 'mov', 'ipod', '3gp']);

const GENPTS_DEMUXERS = new Set(['mpeg', 'mpegts', 'avi']);
const PICTURE_OPTIONS = ['videoBitrate', 'crf', 'width', 'height', 'fps'] as const;
const SOUND_OPTIONS = ['audioBitrate', 'audioChannels', 'sampleRate'] as const;

export function buildFfmpegArgs(input: ArgsInput): FfmpegPlan {
  const { options, probe, streams, target, limits } = input;
  const start = options.start ?? 0;
  if (probe.durationSeconds !== undefined && start >= probe.durationSeconds) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `start (${start} s) is at or past the end of the input (${probe.durationSeconds.toFixed(2)} s)`,
    );
  }
  const trimmed = options.start !== undefined || options.duration !== undefined;
  const remaining = probe.durationSeconds === undefined ? undefined : probe.durationSeconds - start;
  // -t always: an input whose header understates its length still stops at the limit.
  const cap = Math.min(options.duration ?? limits.maxDurationSeconds, limits.maxDurationSeconds);
  const durationSeconds = remaining === undefined ? options.duration : Math.min(remaining, cap);

  const video = target.kind === 'audio' ? undefined : streams.video;
  const audio = target.kind === 'animation' || options.mute ? undefined : streams.audio;
  const videoAction: StreamAction = !video
    ? 'none'
    : target.kind === 'animation'
      ? 'encode'
      : videoMode(input, video, trimmed);
  const audioAction: StreamAction = audio ? audioMode(input, audio, trimmed) : 'none';

  const threads = input.threads === undefined ? [] : ['-threads', String(input.threads)];
  const args: string[] = [
    // A decoder refuses frames above the limit before allocating them (a header can lie).
    '-max_pixels',
    String(limits.maxPixels),
    ...threads,
    // MPEG program/transport streams and AVI leave some packets without a timestamp; a copied
    // stream then fails in muxers that need one ("Can't write packet with unknown timestamp").
    ...(videoAction === 'copy' && GENPTS_DEMUXERS.has(input.source.demuxer) ? ['-fflags', '+genpts'] : []),
    ...(start > 0 ? ['-ss', String(start)] : []),
    '-f',
    input.source.demuxer,
    '-i',
    input.inputPath,
  ];
  if (video) {
    args.push('-map', `0:${video.index}`);
    args.push(
      ...(target.kind === 'animation' ? gifArgs(input, video) : videoArgs(input, video, videoAction)),
    );
  } else {
    args.push('-vn');
  }
  if (audio) args.push('-map', `0:${audio.index}`, ...audioArgs(input, audio, audioAction));
  else args.push('-an');
  // Like the image converter: a phone video's tags can hold where it was shot.
  if (options.stripMetadata !== false) args.push('-map_metadata', '-1', '-map_chapters', '-1');
  args.push(
    '-t',
    String(cap),
    ...threads,
    // Copying streams with sparse packets otherwise fails with "Too many packets buffered".
    '-max_muxing_queue_size',
    '1024',
    ...target.muxerArgs,
    '-f',
    target.muxer,
    input.outputPath,
  );
  return { args, durationSeconds, video: videoAction, audio: audioAction, engine: input.engine };
}

function videoMode(input: ArgsInput, stream: MediaStream, trimmed: boolean): StreamAction {
  const { options, target } = input;
  if (trimmed || PICTURE_OPTIONS.some((key) => options[key] !== undefined)) return 'encode';
  if (options.videoCodec !== undefined && options.videoCodec !== stream.codec) return 'encode';
  const kept = options.keepStreams ? (target.holdVideo ?? []) : [];
  return target.copyVideo.includes(stream.codec) || kept.includes(stream.codec) ? 'copy' : 'encode';
}

function audioMode(input: ArgsInput, stream: MediaStream, trimmed: boolean): StreamAction {
  const { options, target } = input;
  if (trimmed || SOUND_OPTIONS.some((key) => options[key] !== undefined)) return 'encode';
  if (options.audioCodec !== undefined && options.audioCodec !== stream.codec) return 'encode';
  const kept = options.keepStreams ? (target.holdAudio ?? []) : [];
  return target.copyAudio.includes(stream.codec) || kept.includes(stream.codec) ? 'copy' : 'encode';
}

function hvc1Tag(target: MediaContainer, codec: string): string[] {
  return codec === 'hevc' && ISO_MUXERS.has(target.muxer) ? ['-tag:v', 'hvc1'] : [];
}

function videoArgs(input: ArgsInput, stream: MediaStream, action: StreamAction): string[] {
  const { options, target } = input;
  if (action === 'copy') return ['-c:v', 'copy', ...hvc1Tag(target, stream.codec)];
  const codec: VideoCodec =
    options.videoCodec ?? usableVideoCodecs(target.videoCodecs, input.engine)[0] ?? 'h264';
  const encoder = VIDEO_ENCODERS[codec];
  if (!canEncodeVideo(codec, input.engine)) {
    throw new FileconvError(
      'UNSUPPORTED_CONVERSION',
      `The WebAssembly ffmpeg engine cannot encode ${codec} (ffmpeg.wasm does not run ${encoder.encoder}); choose another videoCodec or install the native ffmpeg`,
      { details: { videoCodec: codec, encoder: encoder.encoder, engine: input.engine } },
    );
  }
  const args = ['-c:v', encoder.encoder, ...encoder.speedArgs, ...(target.codecArgs?.[codec] ?? [])];
  const bitrate = options.videoBitrate === undefined ? undefined : parseBitrate(options.videoBitrate);
  if (bitrate !== undefined) args.push('-b:v', String(bitrate));
  else if (encoder.crf) {
    args.push('-crf', String(options.crf ?? encoder.crf.fallback));
    // libvpx: VP9 is constant-quality only with -b:v 0; VP8 treats -b:v as the ceiling.
    if (codec === 'vp9') args.push('-b:v', '0');
    if (codec === 'vp8') args.push('-b:v', '10M');
  } else if (encoder.qscale !== undefined) args.push('-q:v', String(encoder.qscale));
  const filters = [
    ...(options.fps !== undefined ? [`fps=${options.fps}`] : []),
    ...scaleFilter(input, stream, true),
  ];
  if (filters.length > 0) args.push('-vf', filters.join(','));
  // 4:2:0 is what every player decodes; sources in 4:4:4 or RGB would otherwise stay so.
  args.push('-pix_fmt', 'yuv420p', ...hvc1Tag(target, codec));
  return args;
}

/** A palette made for this clip (palettegen), then applied (paletteuse): GIF has 256 colours. */
function gifArgs(input: ArgsInput, stream: MediaStream): string[] {
  const fps = input.options.fps ?? Math.min(stream.fps ?? GIF_DEFAULT_FPS, GIF_DEFAULT_FPS);
  const [scale = 'scale=iw:ih'] = scaleFilter(input, stream, false);
  const graph = `fps=${fps},${scale}:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse`;
  return ['-vf', graph, '-c:v', 'gif'];
}

/**
 * The scale filter for the requested size, if any. Expressions (-2: keep aspect, even) rather than
 * numbers computed here, because ffmpeg applies a rotation tag before the filter. The output size
 * is still estimated here (ignoring rotation) to refuse outputs above the limits before encoding.
 */
function scaleFilter(input: ArgsInput, stream: MediaStream, even: boolean): string[] {
  const { width, height } = input.options;
  const sourceWidth = stream.width ?? 0;
  const sourceHeight = stream.height ?? 0;
  const auto = even ? -2 : -1;
  let filter: string | undefined;
  let estimate: [number, number] = [sourceWidth, sourceHeight];
  if (width !== undefined && height !== undefined) {
    const factor = Math.min(width / sourceWidth, height / sourceHeight);
    estimate = [sourceWidth * factor, sourceHeight * factor];
    filter = `scale=${width}:${height}:force_original_aspect_ratio=decrease${even ? ':force_divisible_by=2' : ''}`;
  } else if (width !== undefined) {
    estimate = [width, (sourceHeight * width) / sourceWidth];
    filter = `scale=${width}:${auto}`;
  } else if (height !== undefined) {
    estimate = [(sourceWidth * height) / sourceHeight, height];
    filter = `scale=${auto}:${height}`;
  } else if (!even && sourceWidth > GIF_DEFAULT_MAX_WIDTH) {
    filter = `scale=${GIF_DEFAULT_MAX_WIDTH}:-1`;
  } else if (even && (sourceWidth % 2 === 1 || sourceHeight % 2 === 1)) {
    // 4:2:0 needs even sides; odd ones are trimmed by one pixel.
    filter = 'scale=trunc(iw/2)*2:trunc(ih/2)*2';
  }
  assertFrameSize(Math.round(estimate[0]), Math.round(estimate[1]), input.limits, 'The requested output is');
  return filter ? [filter] : [];
}

function audioArgs(input: ArgsInput, stream: MediaStream, action: StreamAction): string[] {
  if (action === 'copy') return ['-c:a', 'copy'];
  const { options, target } = input;
  const codec = options.audioCodec ?? target.audioCodecs[0] ?? 'aac';
  const encoder = AUDIO_ENCODERS[codec];
  const args = ['-c:a', encoder.encoder];
  const bitrate = options.audioBitrate === undefined ? undefined : parseBitrate(options.audioBitrate);
  if (bitrate !== undefined) args.push('-b:a', String(bitrate));
  else args.push(...(encoder.qualityArgs ?? []));
  const channels =
    options.audioChannels ??
    (stream.channels !== undefined && stream.channels > encoder.maxChannels
      ? encoder.maxChannels
      : undefined);
  if (channels !== undefined) args.push('-ac', String(channels));
  const rate = options.sampleRate ?? encodableSampleRate(encoder, stream.sampleRate);
  if (rate !== undefined) args.push('-ar', String(rate));
  return args;
}
