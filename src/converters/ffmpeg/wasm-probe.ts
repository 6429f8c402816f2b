/**
 * Reading what ffmpeg.wasm prints: ffprobe's JSON into a MediaProbe, and the tail of ffmpeg's log
 * for failure details. Pure functions, used by wasm-worker.ts.
 *
 * @ffmpeg/core 0.12.10 does include ffprobe (`core.ffprobe`, printing to the logger's stdout), so
 * probing reads its `-show_format -show_streams` JSON rather than scraping `ffmpeg -i`'s banner:
 * the same fields the native ffprobe gives, and no regular expressions over human-readable text.
 */
import { FileconvError } from '../../core/errors.js';
import type { MediaProbe, MediaStream } from './runner.js';

/** How many log lines a CONVERSION_FAILED carries. */
export const LOG_TAIL_LINES = 20;

/**
 * The last lines of ffmpeg's log, without the per-half-second statistics lines (`frame=...`,
 * `size=...`), which would crowd the actual error out, and the glue's own "Aborted()" that ends
 * every run.
 */
export class LogTail {
  private readonly lines: string[] = [];

  push(line: string): void {
    const text = line.trimEnd();
    const trimmed = text.trimStart();
    if (trimmed === '' || trimmed === 'Aborted()' || /^(frame|size)=/.test(trimmed)) return;
    this.lines.push(text);
    if (this.lines.length > LOG_TAIL_LINES) this.lines.shift();
  }

  toArray(): string[] {
    return [...this.lines];
  }
}

interface ProbeJson {
  format?: { format_name?: string; duration?: string };
  streams?: Array<{
    index?: number;
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    avg_frame_rate?: string;
    r_frame_rate?: string;
    sample_rate?: string;
    channels?: number;
    disposition?: { attached_pic?: number };
  }>;
}

const KINDS = new Set<MediaStream['kind']>(['video', 'audio', 'subtitle', 'data', 'attachment']);

/** '30000/1001' -> 29.97; '0/0' and garbage -> undefined. */
function rate(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const [num, den] = text.split('/').map(Number);
  const value = den === undefined ? num : num! / den;
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
}

/**
 * ffprobe's JSON (`-print_format json -show_format -show_streams`) as a MediaProbe. CORRUPT_INPUT
 * when ffprobe printed nothing usable or found no stream: its stderr then says why
 * ("Invalid data found when processing input", ...) and goes into the details.
 */
export function parseProbe(stdout: string, stderr: string[]): MediaProbe {
  let json: ProbeJson;
  try {
    json = JSON.parse(stdout) as ProbeJson;
  } catch {
    json = {};
  }
  const streams: MediaStream[] = [];
  for (const raw of json.streams ?? []) {
    const kind = raw.codec_type as MediaStream['kind'];
    if (!KINDS.has(kind)) continue;
    const stream: MediaStream = {
      index: raw.index ?? streams.length,
      kind,
      codec: raw.codec_name ?? 'unknown',
    };
    if (kind === 'video') {
      const width = positive(raw.width);
      const height = positive(raw.height);
      const fps = rate(raw.avg_frame_rate) ?? rate(raw.r_frame_rate);
      if (width !== undefined) stream.width = width;
      if (height !== undefined) stream.height = height;
      // Cover art reports a time base (90000/1) as its frame rate: it has none.
      if (raw.disposition?.attached_pic === 1) stream.attachedPicture = true;
      else if (fps !== undefined) stream.fps = fps;
    } else if (kind === 'audio') {
      const sampleRate = positive(Number(raw.sample_rate));
      const channels = positive(raw.channels);
      if (sampleRate !== undefined) stream.sampleRate = sampleRate;
      if (channels !== undefined) stream.channels = channels;
    }
    streams.push(stream);
  }
  if (!json.format?.format_name || streams.length === 0) {
    throw new FileconvError('CORRUPT_INPUT', 'The file could not be read as audio or video', {
      details: { log: stderr },
    });
  }
  return {
    formatName: json.format.format_name,
    durationSeconds: positive(Number(json.format.duration)),
    streams,
  };
}

/** ffmpeg's decoders refuse frames above `-max_pixels` with this message (libavutil imgutils). */
export function exceedsMaxPixels(stderr: string[]): boolean {
  return stderr.some((line) => line.includes('exceeds specified max pixel count'));
}
