/**
 * The native FfmpegRunner: Debian's (or any) ffmpeg and ffprobe binaries as child processes.
 *
 * Safety: no shell; stdin closed; only the `file` protocol (an input that names http://, a
 * playlist segment or another protocol cannot be opened); input and output passed as `file:`
 * URLs so a path can never be read as a protocol; the probe may only pick a demuxer from the
 * converter's safe list (no hls, concat, image2 pattern or other reader of further files), and
 * conversions force the demuxer with `-f`. On abort the process is SIGKILLed and reaped before
 * the call settles, and a partial output is removed. CPU time: see cpu-time.ts.
 */
import { rm } from 'node:fs/promises';
import { abortError } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import type { Availability } from '../../core/ports/index.js';
import { type ChildOutcome, runChild } from '../../kit/child-process.js';
import { COMMAND_TOOLS } from '../../kit/command-tools.js';
import { ChildCpuMeter } from '../../kit/cpu-time.js';
import { type BinaryPaths, ffmpegVersion, locateBinaries } from './binaries.js';
import { SAFE_DEMUXERS } from './containers.js';
import { TRUNCATION_WARNING } from './media-errors.js';
import { PROBE_ENTRIES, parseProbeJson } from './probe-json.js';
import { ProgressParser } from './progress.js';
import type { FfmpegRunInput, FfmpegRunner, FfmpegRunResult, MediaProbe, ProbeOptions } from './runner.js';

export interface NativeRunnerOptions {
  /** The ffmpeg binary. Default: FFMPEG_PATH, else `ffmpeg` on PATH. */
  ffmpegPath?: string | undefined;
  /** The ffprobe binary. Default: FFPROBE_PATH, else beside ffmpeg, else on PATH. */
  ffprobePath?: string | undefined;
  /** Called with each child's pid once it runs (lets tests check a killed process is gone). */
  onSpawn?: ((pid: number, tool: 'ffmpeg' | 'ffprobe') => void) | undefined;
}

/** The system package's install line: the one kit/command-tools gives every ffmpeg user. */
export const NATIVE_INSTALL_HINT = COMMAND_TOOLS.ffmpeg.install;

/** Largest ffprobe answer read: a few hundred bytes a stream; more means a hostile stream count. */
const MAX_PROBE_OUTPUT = 1024 * 1024;
/** Only local files: 'pipe' is not needed, -progress pipe:1 is opened outside the whitelist. */
const PROTOCOLS = ['-protocol_whitelist', 'file'];
/** Demuxers that read further files or URLs named inside the input: playlists, concat lists, SDP. */
const REFERENCING_DEMUXERS = new Set(['hls', 'dash', 'concat', 'sdp', 'image2', 'webm_dash_manifest']);
/** Whether /proc exists, so cpu-time.ts can meter the child; otherwise ffmpeg's -benchmark is used. */
const HAS_PROC = process.platform === 'linux';

/** stderr's last lines, with the server's paths replaced (they would leak its layout). */
export function stderrLines(stderr: string, paths: Record<string, string>, count = 12): string[] {
  let text = stderr;
  for (const [path, name] of Object.entries(paths)) text = text.split(path).join(name);
  text = text.replace(/(?<![\w.<])\/(?:[^\s:/'"]+\/)+[^\s:/'"]*/g, '<file>');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(-count);
}

function benchmarkMs(stderr: string): number | undefined {
  const match = /bench: utime=([\d.]+)s stime=([\d.]+)s/.exec(stderr);
  return match ? Math.round((Number(match[1]) + Number(match[2])) * 1000) : undefined;
}

export function createNativeFfmpegRunner(options: NativeRunnerOptions = {}): FfmpegRunner {
  let located: Promise<BinaryPaths | { missing: string }> | undefined;
  const locate = () => {
    located ??= locateBinaries(options);
    return located;
  };
  const binaries = async (): Promise<BinaryPaths> => {
    const found = await locate();
    if ('missing' in found) {
      throw new FileconvError('ENGINE_UNAVAILABLE', `The ffmpeg converter needs ffmpeg: ${found.missing}`, {
        details: { install: NATIVE_INSTALL_HINT },
      });
    }
    return found;
  };
  const unavailable = (outcome: ChildOutcome, tool: string) =>
    new FileconvError('ENGINE_UNAVAILABLE', `${tool} could not be started: ${outcome.spawnError?.message}`, {
      cause: outcome.spawnError,
      details: { install: NATIVE_INSTALL_HINT },
    });

  return {
    kind: 'native',

    async available(): Promise<Availability> {
      const found = await locate();
      if ('missing' in found) return { ok: false, reason: found.missing, install: NATIVE_INSTALL_HINT };
      const version = await ffmpegVersion(found.ffmpeg);
      if (!version)
        return { ok: false, reason: `${found.ffmpeg} does not run`, install: NATIVE_INSTALL_HINT };
      return { ok: true, version: `ffmpeg ${version} (native, ${found.ffmpeg})` };
    },

    async probe(path: string, signal: AbortSignal, probeOptions: ProbeOptions = {}): Promise<MediaProbe> {
      const { ffprobe } = await binaries();
      const args = [
        '-v',
        'error',
        ...PROTOCOLS,
        // Detection may only choose a demuxer the converter uses; hls, concat and friends fail here.
        '-format_whitelist',
        SAFE_DEMUXERS.join(','),
        ...(probeOptions.maxPixels ? ['-max_pixels', String(probeOptions.maxPixels)] : []),
        '-print_format',
        'json',
        '-show_entries',
        PROBE_ENTRIES,
        `file:${path}`,
      ];
      const outcome = await runChild(ffprobe, args, {
        signal,
        keepStdout: MAX_PROBE_OUTPUT,
        onSpawn: (pid) => options.onSpawn?.(pid, 'ffprobe'),
      });
      if (outcome.aborted) throw abortError(signal);
      if (outcome.spawnError) throw unavailable(outcome, 'ffprobe');
      const stderr = stderrLines(outcome.stderr, { [`file:${path}`]: '<input>', [path]: '<input>' }, 4);
      if (/exceeds specified max pixel count/.test(outcome.stderr)) {
        throw new FileconvError('INPUT_LIMIT_EXCEEDED', 'A video frame is larger than the pixel limit', {
          details: { maxPixels: probeOptions.maxPixels, log: stderr },
        });
      }
      const refused = /\[(\w+) @ [^\]]*\] Format not on whitelist/.exec(outcome.stderr)?.[1];
      if (refused && REFERENCING_DEMUXERS.has(refused)) {
        throw new FileconvError(
          'UNSAFE_INPUT',
          `The file is a ${refused} list that refers to other files or URLs`,
          {
            details: { demuxer: refused, log: stderr },
          },
        );
      }
      if (outcome.stdoutOverflow) {
        throw new FileconvError('INPUT_LIMIT_EXCEEDED', 'The file holds too many streams', {
          details: { log: stderr },
        });
      }
      if (outcome.code !== 0) {
        throw new FileconvError(
          'CORRUPT_INPUT',
          'The file is damaged or not a supported audio or video file',
          {
            details: { log: stderr },
          },
        );
      }
      return parseProbeJson(outcome.stdout);
    },

    async run(input: FfmpegRunInput): Promise<FfmpegRunResult> {
      const { ffmpeg } = await binaries();
      const { inputPath, outputPath, signal } = input;
      // The converter names the files by path; ffmpeg gets them as file: URLs.
      const named = input.args.map((arg) =>
        arg === inputPath ? `file:${inputPath}` : arg === outputPath ? `file:${outputPath}` : arg,
      );
      const args = [
        '-nostdin',
        '-hide_banner',
        '-nostats',
        '-y',
        // -benchmark prints only at level info; with /proc the meter is better and stderr stays short.
        ...(HAS_PROC ? ['-v', 'error'] : ['-v', 'info', '-benchmark']),
        '-progress',
        'pipe:1',
        ...PROTOCOLS,
        ...named,
      ];
      const meter = new ChildCpuMeter();
      let metered: Promise<number | undefined> = Promise.resolve(undefined);
      const progress = new ProgressParser(input.durationSeconds, {
        onFraction: (fraction) => input.onProgress?.(fraction),
        onEnd: () => meter.sample(),
      });
      const outcome = await runChild(ffmpeg, args, {
        signal,
        onStdout: (chunk) => progress.push(chunk),
        onSpawn: (pid) => {
          if (HAS_PROC) meter.watch(pid);
          options.onSpawn?.(pid, 'ffmpeg');
        },
        onExit: () => {
          metered = meter.finish();
        },
      });
      meter.stop();
      const cpuMs = (await metered) ?? benchmarkMs(outcome.stderr);
      // ffmpeg exits 0 on an MP4 whose index points past the end of the file (a truncated upload)
      // and writes what it could read: a silently shortened result is worse than an error.
      const truncated = outcome.code === 0 && TRUNCATION_WARNING.test(outcome.stderr);
      if (outcome.aborted || outcome.spawnError || outcome.code !== 0 || truncated) {
        await rm(outputPath, { force: true });
        if (outcome.aborted) throw abortError(signal);
        if (outcome.spawnError) throw unavailable(outcome, 'ffmpeg');
        const stderr = stderrLines(outcome.stderr, {
          [`file:${inputPath}`]: '<input>',
          [`file:${outputPath}`]: '<output>',
          [inputPath]: '<input>',
          [outputPath]: '<output>',
        });
        // ffmpeg's last line is often a bare "Conversion failed!"; the reason is the line before.
        const reason = stderr.filter((line) => !/^Conversion failed!?$/.test(line)).at(-1);
        throw new FileconvError(
          'CONVERSION_FAILED',
          `ffmpeg failed: ${reason ?? `exit code ${outcome.code}`}`,
          {
            details: { exitCode: outcome.code, log: stderr, ...(cpuMs === undefined ? {} : { cpuMs }) },
          },
        );
      }
      input.onProgress?.(1);
      return { cpuMs: cpuMs ?? 0 };
    },
  };
}
