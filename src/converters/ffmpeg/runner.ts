/**
 * The contract between the ffmpeg converter and the engines that run ffmpeg: the native binary
 * (a child process) or @ffmpeg/core (WebAssembly in a worker thread). The converter builds the
 * arguments and decides codecs; a runner only probes and runs, safely, abortably, with progress.
 */
import type { Availability } from '../../core/ports/index.js';

/** What probing an input found: enough to check its kind and plan the conversion. */
export interface MediaProbe {
  /** Container name(s) as ffmpeg reports them ('mov,mp4,m4a,3gp,3g2,mj2', 'matroska,webm', ...). */
  formatName: string;
  /** Seconds; undefined when unknown (a raw stream without an index). */
  durationSeconds: number | undefined;
  streams: MediaStream[];
}

export interface MediaStream {
  index: number;
  kind: 'video' | 'audio' | 'subtitle' | 'data' | 'attachment';
  /** Codec name as ffmpeg calls it ('h264', 'aac', 'vp9', 'png', 'mjpeg', ...). */
  codec: string;
  width?: number;
  height?: number;
  /** Frames per second, when known. */
  fps?: number;
  /** Frames in the stream, when the container says (ffprobe's nb_frames). */
  frames?: number;
  sampleRate?: number;
  channels?: number;
  /** True for an attached picture (cover art), which is not a video track. */
  attachedPicture?: boolean;
}

export interface ProbeOptions {
  /** Largest frame (width x height) a decoder opened while probing may allocate. */
  maxPixels?: number;
}

export interface FfmpegRunInput {
  /**
   * ffmpeg arguments between the runner's fixed safety and progress flags and nothing else:
   * they name the input as `inputPath` and the output as `outputPath` exactly. The runner adds
   * `-nostdin -hide_banner -y`, the protocol whitelist (local files only) and progress reporting.
   */
  args: readonly string[];
  inputPath: string;
  outputPath: string;
  signal: AbortSignal;
  /** Expected output duration in seconds, to turn ffmpeg's out_time into a fraction. */
  durationSeconds?: number;
  onProgress?: (fraction: number) => void;
}

export interface FfmpegRunResult {
  /** CPU time (user + system) of the ffmpeg process or worker, ms, from the OS accounting where possible. */
  cpuMs: number;
}

/** Which ffmpeg a runner drives: the native binary or @ffmpeg/core (WebAssembly). */
export type RunnerKind = 'native' | 'wasm';

export interface FfmpegRunner {
  readonly kind: RunnerKind;
  /** Whether this engine can run here; for native, the binaries found and their version. */
  available(): Promise<Availability>;
  /**
   * Probes a local file; CORRUPT_INPUT when ffmpeg cannot read it as media. `options` is optional
   * (a runner may ignore it): with `maxPixels`, a frame above the limit is refused with
   * INPUT_LIMIT_EXCEEDED before the decoder allocates it.
   */
  probe(path: string, signal: AbortSignal, options?: ProbeOptions): Promise<MediaProbe>;
  /**
   * Runs ffmpeg. Rejects with CONVERSION_FAILED (stderr's last lines in details) on a non-zero
   * exit, CANCELED / CONVERSION_TIMEOUT when `signal` aborts (the process or worker is killed
   * and reaped first: no orphan survives), and never leaves a partial output behind.
   */
  run(input: FfmpegRunInput): Promise<FfmpegRunResult>;
  /** Stops background resources (worker threads). */
  close?(): Promise<void>;
}
