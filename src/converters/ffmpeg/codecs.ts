/**
 * The codecs the ffmpeg converter writes, as users name them in options ('h264', 'opus'), with
 * the ffmpeg encoder behind each and what that encoder accepts. Checked against the encoders of
 * Debian's ffmpeg 5.1 (`ffmpeg -h encoder=<name>`); @ffmpeg/core has the same set minus AV1, and
 * the WebAssembly engine does not run two of them (hevc, vp9: wasm-encoders.ts), so the codecs a target offers
 * depend on the engine (usableVideoCodecs). Pure data: no ffmpeg is run here.
 */
import type { RunnerKind } from './runner.js';
import { WASM_UNUSABLE_ENCODERS } from './wasm-encoders.js';

export const VIDEO_CODECS = ['h264', 'hevc', 'vp8', 'vp9', 'mpeg4', 'mpeg2video', 'theora', 'wmv2'] as const;
export type VideoCodec = (typeof VIDEO_CODECS)[number];

export const AUDIO_CODECS = [
  'aac',
  'mp3',
  'opus',
  'vorbis',
  'flac',
  'alac',
  'ac3',
  'mp2',
  'wmav2',
  'pcm_s16le',
  'pcm_s16be',
] as const;
export type AudioCodec = (typeof AUDIO_CODECS)[number];

export interface VideoEncoder {
  /** ffmpeg's encoder name. */
  encoder: string;
  /** Constant-quality range (`crf` option) when the encoder has one; others use `-q:v`. */
  crf?: { max: number; fallback: number };
  /**
   * Arguments for this project's default quality/speed trade-off. Measured on this 2-core machine,
   * 10 s of 640x360: x264 veryfast 1.4 s CPU (medium 2.7 s); VP9 realtime cpu-used 8 with row-mt
   * 1.3-1.6 s (VP8 realtime 6-13 s, VP9 'good' cpu-used 5 9.3 s), so WebM defaults to VP9
   * natively. The wasm engine does not run libvpx-vp9: there WebM defaults to VP8 (usableVideoCodecs).
   */
  speedArgs: readonly string[];
  /** `-q:v` default for encoders without CRF. */
  qscale?: number;
}

export const VIDEO_ENCODERS: Readonly<Record<VideoCodec, VideoEncoder>> = {
  h264: { encoder: 'libx264', crf: { max: 51, fallback: 23 }, speedArgs: ['-preset', 'veryfast'] },
  // x265 logs to stderr on its own unless told not to.
  hevc: {
    encoder: 'libx265',
    crf: { max: 51, fallback: 28 },
    speedArgs: ['-preset', 'ultrafast', '-x265-params', 'log-level=error'],
  },
  vp8: {
    encoder: 'libvpx',
    crf: { max: 63, fallback: 10 },
    speedArgs: ['-deadline', 'good', '-cpu-used', '5'],
  },
  vp9: {
    encoder: 'libvpx-vp9',
    crf: { max: 63, fallback: 35 },
    speedArgs: ['-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1'],
  },
  mpeg4: { encoder: 'mpeg4', speedArgs: [], qscale: 5 },
  mpeg2video: { encoder: 'mpeg2video', speedArgs: [], qscale: 5 },
  theora: { encoder: 'libtheora', speedArgs: [], qscale: 6 },
  wmv2: { encoder: 'wmv2', speedArgs: [], qscale: 5 },
};

/** Video codecs whose encoder the WebAssembly engine does not run: hevc (libx265) and vp9 (libvpx-vp9). */
export const WASM_UNUSABLE_VIDEO_CODECS: ReadonlySet<VideoCodec> = new Set(
  VIDEO_CODECS.filter((codec) => WASM_UNUSABLE_ENCODERS.has(VIDEO_ENCODERS[codec].encoder)),
);

/** Whether `engine` can encode `codec`. */
export function canEncodeVideo(codec: VideoCodec, engine: RunnerKind): boolean {
  return engine === 'native' || !WASM_UNUSABLE_VIDEO_CODECS.has(codec);
}

/**
 * The codecs of `codecs` (a container's list, default first) that `engine` can encode, in the same
 * order: the first one left is that engine's default (webm: vp9 natively, vp8 in WebAssembly).
 */
export function usableVideoCodecs(codecs: readonly VideoCodec[], engine: RunnerKind): readonly VideoCodec[] {
  return engine === 'native' ? codecs : codecs.filter((codec) => canEncodeVideo(codec, engine));
}

export interface AudioEncoder {
  encoder: string;
  /** Sample rates the encoder takes; undefined when any rate works. */
  sampleRates?: readonly number[];
  /** Most channels the encoder writes. */
  maxChannels: number;
  /** Whether a bitrate means something (false for PCM and FLAC, which are lossless). */
  bitrate: boolean;
  /** Default quality arguments, when the encoder's own default is not good enough. */
  qualityArgs?: readonly string[];
}

const AAC_RATES = [7350, 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000];
const MPEG_AUDIO_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000];

export const AUDIO_ENCODERS: Readonly<Record<AudioCodec, AudioEncoder>> = {
  aac: { encoder: 'aac', sampleRates: AAC_RATES, maxChannels: 8, bitrate: true },
  // VBR ~190 kbit/s: LAME's recommended "transparent" setting, instead of its 128k CBR default.
  mp3: {
    encoder: 'libmp3lame',
    sampleRates: MPEG_AUDIO_RATES,
    maxChannels: 2,
    bitrate: true,
    qualityArgs: ['-q:a', '2'],
  },
  // Opus always decodes at 48 kHz; other rates only change the input header.
  opus: { encoder: 'libopus', sampleRates: [48000], maxChannels: 8, bitrate: true },
  vorbis: { encoder: 'libvorbis', maxChannels: 8, bitrate: true, qualityArgs: ['-q:a', '4'] },
  flac: { encoder: 'flac', maxChannels: 8, bitrate: false },
  alac: { encoder: 'alac', maxChannels: 8, bitrate: false },
  ac3: { encoder: 'ac3', sampleRates: [32000, 44100, 48000], maxChannels: 6, bitrate: true },
  mp2: { encoder: 'mp2', sampleRates: MPEG_AUDIO_RATES.slice(3), maxChannels: 2, bitrate: true },
  wmav2: { encoder: 'wmav2', sampleRates: MPEG_AUDIO_RATES, maxChannels: 2, bitrate: true },
  pcm_s16le: { encoder: 'pcm_s16le', maxChannels: 8, bitrate: false },
  pcm_s16be: { encoder: 'pcm_s16be', maxChannels: 8, bitrate: false },
};

/**
 * The sample rate to encode at: the source's when the encoder takes it, else the nearest rate
 * above it (no information is thrown away), else the highest the encoder has.
 */
export function encodableSampleRate(encoder: AudioEncoder, source: number | undefined): number | undefined {
  const rates = encoder.sampleRates;
  if (!rates) return undefined;
  if (source !== undefined && rates.includes(source)) return undefined;
  const sorted = [...rates].sort((a, b) => a - b);
  if (source === undefined) return sorted.includes(48000) ? 48000 : sorted.at(-1);
  return sorted.find((rate) => rate >= source) ?? sorted.at(-1);
}
