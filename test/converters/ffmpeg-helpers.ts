/**
 * Shared pieces of the ffmpeg converter tests: whether ffmpeg is here, a per-test workspace, a
 * context builder, and output checks that ask ffprobe (and ffmpeg's decoder) what was written.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { createNativeFfmpegRunner } from '../../src/converters/ffmpeg/native-runner.js';
import type { FfmpegRunner } from '../../src/converters/ffmpeg/runner.js';
import { workspace as sharedWorkspace } from './converter-harness.js';

/** Every audio and video fixture is this long (scripts/make-media-fixtures.sh); fixture.gif is 3 frames. */
export const FIXTURE_SECONDS = 2;

export const FFMPEG_AVAILABLE =
  spawnSync('ffmpeg', ['-hide_banner', '-version']).status === 0 &&
  spawnSync('ffprobe', ['-hide_banner', '-version']).status === 0;
export const FFMPEG_INSTALL = 'apt-get install ffmpeg';

export {
  type ContextOverrides,
  context,
  expectCode,
  expectNoLeftovers,
  FIXTURES,
  fixture,
  MAX_PIXELS,
  type Workspace,
} from './converter-harness.js';

/** A fresh workspace for an ffmpeg test. */
export const workspace = () => sharedWorkspace('fileconv-ffmpeg-');

export interface ProbedStream {
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  sample_rate?: string;
  channels?: number;
  nb_read_packets?: string;
}

export interface ProbedOutput {
  formatName: string;
  video: ProbedStream | undefined;
  audio: ProbedStream | undefined;
  streams: ProbedStream[];
}

/** What ffprobe finds in a file, packets counted (a frame is a packet for every video codec here). */
export function probeFile(path: string): ProbedOutput {
  const json = execFileSync('ffprobe', [
    '-v',
    'error',
    '-count_packets',
    '-print_format',
    'json',
    '-show_entries',
    'format=format_name:stream=codec_type,codec_name,width,height,avg_frame_rate,r_frame_rate,sample_rate,channels,nb_read_packets',
    path,
  ]).toString();
  const parsed = JSON.parse(json) as { format: { format_name: string }; streams: ProbedStream[] };
  return {
    formatName: parsed.format.format_name,
    video: parsed.streams.find((s) => s.codec_type === 'video'),
    audio: parsed.streams.find((s) => s.codec_type === 'audio'),
    streams: parsed.streams,
  };
}

function rate(text: string | undefined): number {
  const [n = '0', d = '1'] = (text ?? '0/1').split('/');
  return Number(n) / Number(d);
}

/**
 * Seconds of video in a file: the span of its frame timestamps plus one frame. Not the frame
 * count: Theora codes an unchanged frame as an empty packet that the Ogg demuxer skips, and not
 * the container duration, which MPEG streams only estimate.
 */
export function videoSeconds(path: string): number {
  const json = execFileSync('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-print_format',
    'json',
    '-show_entries',
    'packet=pts_time,dts_time:stream=avg_frame_rate,r_frame_rate',
    path,
  ]).toString();
  const parsed = JSON.parse(json) as {
    packets: { pts_time?: string; dts_time?: string }[];
    streams: ProbedStream[];
  };
  const stream = parsed.streams[0];
  const fps = rate(stream?.avg_frame_rate) || rate(stream?.r_frame_rate);
  // MPEG packets of B-frames may carry only a decoding timestamp.
  const times = parsed.packets
    .map((packet) => Number(packet.pts_time ?? packet.dts_time))
    .filter(Number.isFinite);
  return Math.max(...times) - Math.min(...times) + 1 / fps;
}

/** Seconds of audio actually decoded from the first audio stream (after any gapless trimming). */
export function decodedAudioSeconds(path: string): number {
  const pcm = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', path, '-map', '0:a:0', '-ac', '1', '-ar', '8000', '-f', 's16le', 'pipe:1'],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return pcm.length / 2 / 8000;
}

/** Samples per frame of lossy audio codecs: an encode adds up to one frame of priming and one of padding. */
const FRAME_SAMPLES: Record<string, number> = {
  aac: 1024,
  mp3: 1152,
  mp2: 1152,
  ac3: 1536,
  vorbis: 2048,
  opus: 960,
  wmav2: 2048,
};

/**
 * How far an audio duration may be from the truth after `codecs` encoded it: 0.1 s, plus two
 * frames per lossy codec involved. At the fixtures' 8 kHz one AAC frame is 128 ms, and formats
 * without gapless metadata (ADTS, AVI, ASF) keep the encoder's priming.
 */
export function audioTolerance(...streams: (ProbedStream | undefined)[]): number {
  let tolerance = 0.1;
  for (const stream of streams) {
    if (!stream) continue;
    const samples = FRAME_SAMPLES[stream.codec_name] ?? 0;
    tolerance += (2 * samples) / Number(stream.sample_rate ?? 8000);
  }
  return tolerance;
}

/**
 * The native runner, noting every input it is asked to probe with ffprobe: what the header
 * readers' tests check is left out.
 */
export function probeCountingRunner(probed: string[]): FfmpegRunner {
  const native = createNativeFfmpegRunner();
  return {
    kind: native.kind,
    available: () => native.available(),
    probe: (path, signal, options) => {
      probed.push(path);
      return native.probe(path, signal, options);
    },
    run: (input) => native.run(input),
  };
}
