/**
 * Worker-thread entry for ffmpeg.wasm (see wasm-runner.ts for the main-thread side). `core.exec`
 * is synchronous and runs for seconds to minutes: here it blocks only this thread, and the main
 * thread can always stop it by terminating the thread.
 *
 * One job at a time, each on a fresh core instance (wasm-core.ts says why). The input is read
 * from disk into the core's in-memory file system (MEMFS), the arguments are rewritten to name the
 * MEMFS files, and the output is written to a temporary name beside the real one and renamed, so
 * a failed or killed job leaves at most the temporary file, which the main side removes.
 *
 * Built as its own tsup entry (dist/adapters/converters/media/wasm-worker.js); under vitest or
 * tsx wasm-runner.ts starts this TypeScript file through tsx.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { FileconvError, toFileconvError } from '../../core/errors.js';
import { TRUNCATION_WARNING } from './media-errors.js';
import type { MediaProbe } from './runner.js';
import { type CoreFiles, callCore, freshCore, threadCpuMs } from './wasm-core.js';
import { exceedsMaxPixels, LogTail, parseProbe } from './wasm-probe.js';

export type WasmRequest =
  | {
      id: number;
      type: 'run';
      args: string[];
      inputPath: string;
      outputPath: string;
      /** Where the output is written before being renamed to outputPath; chosen by the main side. */
      tempPath: string;
      durationSeconds?: number;
    }
  | { id: number; type: 'probe'; path: string; maxPixels?: number };

export type WasmResponse =
  | { id: number; type: 'progress'; fraction: number }
  | { id: number; type: 'ran'; cpuMs: number }
  | { id: number; type: 'probed'; probe: MediaProbe }
  | { id: number; type: 'failed'; code: string; message: string; details?: Record<string, unknown> };

/**
 * Largest input: Node reads at most 2 GiB - 1 into one buffer (fs's kIoMaxLength), and MEMFS
 * holds the whole file in memory.
 */
export const MAX_INPUT_BYTES = 2 ** 31 - 1;

/** Safety flags for every run; the core itself adds `-nostdin -y`. */
const RUN_FLAGS = ['-hide_banner', '-protocol_whitelist', 'file'];
const PROBE_FLAGS = ['-v', 'error', '-protocol_whitelist', 'file'];
const PROBE_OUTPUT = ['-print_format', 'json', '-show_format', '-show_streams'];

const port = parentPort;
if (!port) throw new Error('wasm-worker.ts runs as a worker thread only');
const files = workerData as CoreFiles;

/** Reads an input whole, refusing what MEMFS cannot take before anything is loaded. */
function readInput(path: string): Uint8Array {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    throw toFileconvError(error, 'CONVERSION_FAILED', `The input file could not be read: ${path}`);
  }
  if (size > MAX_INPUT_BYTES) {
    throw new FileconvError('INPUT_LIMIT_EXCEEDED', 'ffmpeg.wasm reads inputs of up to 2 GB only', {
      details: { size, limit: MAX_INPUT_BYTES },
    });
  }
  return readFileSync(path);
}

/** The MEMFS name standing for a host path: same extension, since ffmpeg picks muxers by it. */
function memfsName(stem: string, path: string): string {
  return `/${stem}${extname(path).toLowerCase()}`;
}

/** Turns the core's progress callbacks into increasing fractions in [0, 1] for the main side. */
function progressReporter(id: number, durationSeconds: number | undefined) {
  let last = -1;
  return ({ progress, time }: { progress: number; time: number }) => {
    // Before the first timestamp ffmpeg reports AV_NOPTS_VALUE (about 9.2e18 us): skip it.
    if (!Number.isFinite(time) || Math.abs(time) >= 2 ** 53) return;
    // The core's own fraction is relative to the input's duration; the caller's expected output
    // duration is better when the conversion trims.
    const raw = durationSeconds && durationSeconds > 0 ? time / 1e6 / durationSeconds : progress;
    if (!Number.isFinite(raw) || raw < 0) return;
    const fraction = Math.min(1, raw);
    // A message per 0.5 s stats period at most; skipping tiny steps keeps the main side quiet.
    if (fraction < last + 0.005 && !(fraction === 1 && last < 1)) return;
    last = fraction;
    port!.postMessage({ id, type: 'progress', fraction } satisfies WasmResponse);
  };
}

/**
 * A trap inside the WebAssembly (an out-of-bounds access, as libvpx-vp9 and libopus hit in core
 * 0.12.10 with its own 64 KB stack: wasm-core.ts) or a throw the glue does not expect. The
 * instance is discarded with the job anyway.
 * While probing, the input is the likely cause: CORRUPT_INPUT.
 */
function crashed(error: unknown, log: LogTail, code: 'CONVERSION_FAILED' | 'CORRUPT_INPUT'): FileconvError {
  const message = error instanceof Error ? error.message : String(error);
  return new FileconvError(code, `ffmpeg.wasm crashed: ${message}`, {
    cause: error,
    details: { crash: message, log: log.toArray() },
  });
}

async function run(request: Extract<WasmRequest, { type: 'run' }>): Promise<WasmResponse> {
  const started = threadCpuMs();
  const input = readInput(request.inputPath);
  const core = await freshCore(files);
  const log = new LogTail();
  // Watched on every line, not in the tail: a long run's later lines could push it out of that.
  let truncation: string | undefined;
  core.setLogger(({ message }) => {
    log.push(message);
    if (truncation === undefined && TRUNCATION_WARNING.test(message.trimEnd())) truncation = message.trim();
  });
  core.setProgress(progressReporter(request.id, request.durationSeconds));
  const inName = memfsName('in', request.inputPath);
  const outName = memfsName('out', request.outputPath);
  core.FS.writeFile(inName, input, { canOwn: true }); // MEMFS keeps this buffer rather than copying
  const args = request.args.map((arg) =>
    arg === request.inputPath ? inName : arg === request.outputPath ? outName : arg,
  );
  let exitCode: number;
  try {
    exitCode = callCore(() => core.exec(...RUN_FLAGS, ...args));
  } catch (error) {
    throw crashed(error, log, 'CONVERSION_FAILED');
  }
  if (exitCode !== 0) {
    throw new FileconvError('CONVERSION_FAILED', `ffmpeg.wasm exited with code ${exitCode}`, {
      details: { exitCode, log: log.toArray() },
    });
  }
  // As the native runner: ffmpeg exits 0 on an MP4 whose index points past the end of the file
  // (a truncated upload) and writes what it could read. A silently shortened result is worse than
  // an error: the converter maps this log line to CORRUPT_INPUT. Nothing is written.
  if (truncation !== undefined) {
    const lines = log.toArray();
    throw new FileconvError(
      'CONVERSION_FAILED',
      'ffmpeg.wasm: the input ends before its index says (partial file)',
      {
        details: { exitCode, log: lines.includes(truncation) ? lines : [truncation, ...lines.slice(1)] },
      },
    );
  }
  let output: Uint8Array;
  try {
    output = core.FS.readFile(outName);
  } catch (error) {
    throw new FileconvError('CONVERSION_FAILED', 'ffmpeg.wasm wrote no output file', {
      cause: error,
      details: { log: log.toArray() },
    });
  }
  try {
    writeFileSync(request.tempPath, output, { flag: 'wx' });
    renameSync(request.tempPath, request.outputPath);
  } catch (error) {
    rmSync(request.tempPath, { force: true });
    throw toFileconvError(error, 'CONVERSION_FAILED', 'The output file could not be written');
  }
  return { id: request.id, type: 'ran', cpuMs: threadCpuMs() - started };
}

async function probe(request: Extract<WasmRequest, { type: 'probe' }>): Promise<WasmResponse> {
  const input = readInput(request.path);
  const core = await freshCore(files);
  const stdout: string[] = [];
  const stderr = new LogTail();
  core.setLogger(({ type, message }) => (type === 'stdout' ? stdout.push(message) : stderr.push(message)));
  const name = memfsName('in', request.path);
  core.FS.writeFile(name, input, { canOwn: true });
  // -max_pixels applies to the decoders ffprobe opens to fill in stream parameters: a frame too
  // large is refused before it is allocated (ffprobe then exits 1 with the message below).
  const limit = request.maxPixels ? ['-max_pixels', String(request.maxPixels)] : [];
  try {
    callCore(() => core.ffprobe(...PROBE_FLAGS, ...limit, ...PROBE_OUTPUT, name));
  } catch (error) {
    throw crashed(error, stderr, 'CORRUPT_INPUT');
  }
  const errors = stderr.toArray();
  const tooLarge = () =>
    new FileconvError('INPUT_LIMIT_EXCEEDED', `The video frames exceed ${request.maxPixels} pixels`, {
      details: { maxPixels: request.maxPixels, log: errors },
    });
  if (request.maxPixels && exceedsMaxPixels(errors)) throw tooLarge();
  const result = parseProbe(stdout.join('\n'), errors);
  const largest = Math.max(0, ...result.streams.map((s) => (s.width ?? 0) * (s.height ?? 0)));
  if (request.maxPixels && largest > request.maxPixels) throw tooLarge();
  return { id: request.id, type: 'probed', probe: result };
}

port.on('message', async (request: WasmRequest) => {
  let response: WasmResponse;
  try {
    response = request.type === 'run' ? await run(request) : await probe(request);
  } catch (error) {
    // An Error instance does not survive the trip between threads as itself: send its fields.
    const failure = toFileconvError(error, 'CONVERSION_FAILED', undefined);
    response = {
      id: request.id,
      type: 'failed',
      code: failure.code,
      message: failure.message,
      ...(failure.details ? { details: failure.details } : {}),
    };
  }
  port.postMessage(response);
});
