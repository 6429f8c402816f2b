/**
 * Turns ffprobe's JSON (`-print_format json -show_entries ...`) into a MediaProbe. The JSON comes
 * from untrusted input through ffprobe, so every field is checked for type and range, and a
 * missing or odd field becomes "unknown" rather than an exception or a NaN.
 */
import { FileconvError } from '../../core/errors.js';
import type { MediaProbe, MediaStream } from './runner.js';

/** The entries ffprobe is asked for: only what MediaProbe needs (no tags, which can be huge). */
export const PROBE_ENTRIES =
  'format=format_name,duration:stream=index,codec_type,codec_name,width,height,avg_frame_rate,' +
  'r_frame_rate,sample_rate,channels:stream_disposition=attached_pic';

const KINDS = new Set<MediaStream['kind']>(['video', 'audio', 'subtitle', 'data', 'attachment']);

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A positive finite number from a number or numeric string; undefined otherwise. */
function positive(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : undefined;
}

/** Frames per second from ffprobe's "30000/1001"; undefined for "0/0" and nonsense. */
function rate(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const [numerator, denominator = '1'] = value.split('/');
  const fps = Number(numerator) / Number(denominator);
  return Number.isFinite(fps) && fps > 0 && fps <= 1000 ? fps : undefined;
}

function parseStream(value: unknown): MediaStream | undefined {
  const stream = record(value);
  const kind = stream.codec_type;
  const index = stream.index;
  if (typeof kind !== 'string' || !KINDS.has(kind as MediaStream['kind'])) return undefined;
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0) return undefined;
  const parsed: MediaStream = {
    index,
    kind: kind as MediaStream['kind'],
    codec: typeof stream.codec_name === 'string' ? stream.codec_name : 'unknown',
  };
  if (parsed.kind === 'video') {
    const width = positive(stream.width);
    const height = positive(stream.height);
    const fps = rate(stream.avg_frame_rate) ?? rate(stream.r_frame_rate);
    if (width !== undefined) parsed.width = width;
    if (height !== undefined) parsed.height = height;
    if (fps !== undefined) parsed.fps = fps;
    const frames = positive(stream.nb_frames);
    if (frames !== undefined) parsed.frames = frames;
    if (record(stream.disposition).attached_pic === 1) parsed.attachedPicture = true;
  }
  if (parsed.kind === 'audio') {
    const sampleRate = positive(stream.sample_rate);
    const channels = positive(stream.channels);
    if (sampleRate !== undefined) parsed.sampleRate = sampleRate;
    if (channels !== undefined) parsed.channels = channels;
  }
  return parsed;
}

/** Parses ffprobe's stdout; CORRUPT_INPUT when it names no container. */
export function parseProbeJson(stdout: string): MediaProbe {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch (error) {
    throw new FileconvError('CORRUPT_INPUT', 'ffprobe could not describe the file', { cause: error });
  }
  const root = record(json);
  const format = record(root.format);
  if (typeof format.format_name !== 'string' || format.format_name === '') {
    throw new FileconvError('CORRUPT_INPUT', 'The file is not a media file ffmpeg can read');
  }
  const streams = Array.isArray(root.streams) ? root.streams : [];
  return {
    formatName: format.format_name,
    durationSeconds: positive(format.duration),
    streams: streams.map(parseStream).filter((stream): stream is MediaStream => stream !== undefined),
  };
}
