/**
 * The ffmpeg.wasm runner: ffmpeg and ffprobe from @ffmpeg/core (WebAssembly) for machines without
 * the ffmpeg binary. 3-6x slower than native and single-threaded, but nothing to install beyond
 * npm. `core.exec` is synchronous, so every job runs in a worker thread (wasm-worker.ts); this
 * module is the main-thread side: a queue feeding up to `maxWorkers` workers, one job each.
 * Encoders that hang in the core or are not trusted there are refused up front (wasm-encoders.ts).
 *
 * Lifecycle (as image/heic.ts): a worker starts on the first job and stays for the next ones,
 * because compiling the 32 MB module costs 0.3-0.8 s while a job on the warm worker only pays
 * ~20 ms to instantiate a fresh core (wasm-core.ts). It is unref'd while idle, so it never keeps
 * the process alive, and ended after IDLE_MS without work, which returns the compiled code and
 * the memory of the last job. Aborting a running job terminates its worker, the only way to stop
 * WebAssembly mid-call, and the next job starts a new one. Aborting a queued job just drops it.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { awaitingEngine, engineWorking } from '../../core/abort.js';
import { type ErrorCode, FileconvError } from '../../core/errors.js';
import type { Availability } from '../../core/ports/index.js';
import type { FfmpegRunInput, FfmpegRunner, FfmpegRunResult, MediaProbe, ProbeOptions } from './runner.js';
import type { CoreFiles } from './wasm-core.js';
import { refuseUnusableEncoders } from './wasm-encoders.js';
import { coreAvailability, INSTALL, resolveCore, startWasmWorker } from './wasm-thread.js';
import type { WasmRequest, WasmResponse } from './wasm-worker.js';

/** How long an idle worker is kept before it is ended (its memory returned). */
const IDLE_MS = 30_000;

export interface WasmFfmpegRunnerOptions {
  /**
   * Jobs run at once, one worker thread each (default 1). Each worker holds its own compiled
   * module (~100 MB of code and data) plus the job's memory: raise only with cores and RAM to spare.
   */
  maxWorkers?: number;
  /**
   * C stack of each core instance, bytes. Default 8 MB (wasm-core.ts: libopus and libvpx-vp9
   * overflow the core's own); 0 keeps the core's 64 KB (tests use it to provoke a crash).
   */
  stackBytes?: number;
}

type Outcome = Extract<WasmResponse, { type: 'ran' | 'probed' }>;

interface Job {
  request: WasmRequest;
  signal: AbortSignal;
  onProgress: ((fraction: number) => void) | undefined;
  /** Removed when the job fails: a run's temporary and final output. */
  cleanup: string[];
  settled: boolean;
  onAbort: () => void;
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker | undefined;
  job: Job | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

/** The error an aborted signal stands for, as the engine maps it: its reason, a timeout, a cancel. */
function abortError(signal: AbortSignal): FileconvError {
  const reason: unknown = signal.reason;
  if (reason instanceof FileconvError) return reason;
  if ((reason as { name?: unknown } | undefined)?.name === 'TimeoutError') {
    return new FileconvError('CONVERSION_TIMEOUT', 'The ffmpeg.wasm conversion timed out', { cause: reason });
  }
  return new FileconvError('CANCELED', 'The ffmpeg.wasm conversion was canceled', { cause: reason });
}

async function removeAll(paths: string[]): Promise<void> {
  await Promise.all(paths.map((path) => rm(path, { force: true }).catch(() => {})));
}

class WasmFfmpegRunner implements FfmpegRunner {
  readonly kind = 'wasm' as const;
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  private nextId = 1;
  private files: CoreFiles | undefined;

  constructor(
    private readonly maxWorkers: number,
    private readonly stackBytes: number | undefined,
  ) {}

  async available(): Promise<Availability> {
    return coreAvailability();
  }

  async probe(path: string, signal: AbortSignal, options?: ProbeOptions): Promise<MediaProbe> {
    const request: WasmRequest = { id: this.nextId++, type: 'probe', path };
    if (options?.maxPixels) request.maxPixels = options.maxPixels;
    const outcome = await this.submit(request, signal, undefined, []);
    if (outcome.type !== 'probed') throw new FileconvError('INTERNAL', 'Unexpected ffmpeg.wasm answer');
    return outcome.probe;
  }

  async run(input: FfmpegRunInput): Promise<FfmpegRunResult> {
    const { inputPath, outputPath } = input;
    if (!input.args.includes(inputPath) || !input.args.includes(outputPath)) {
      // The worker maps exactly these two strings to its in-memory files; any other path is unknown there.
      throw new FileconvError('INTERNAL', 'ffmpeg arguments must name the input and output paths exactly');
    }
    refuseUnusableEncoders(input.args);
    const tempPath = join(
      dirname(outputPath),
      `.${basename(outputPath)}.${randomBytes(4).toString('hex')}.part`,
    );
    const request: WasmRequest = {
      id: this.nextId++,
      type: 'run',
      args: [...input.args],
      inputPath,
      outputPath,
      tempPath,
    };
    if (input.durationSeconds !== undefined) request.durationSeconds = input.durationSeconds;
    const outcome = await this.submit(request, input.signal, input.onProgress, [tempPath, outputPath]);
    if (outcome.type !== 'ran') throw new FileconvError('INTERNAL', 'Unexpected ffmpeg.wasm answer');
    return { cpuMs: outcome.cpuMs };
  }

  async close(): Promise<void> {
    const closed = new FileconvError('CANCELED', 'The ffmpeg.wasm runner was closed');
    for (const job of this.waiting.splice(0)) this.settle(job, closed);
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.idleTimer);
        const { worker, job } = slot;
        slot.worker = undefined;
        await worker?.terminate().catch(() => {});
        if (job) await this.fail(slot, job, closed);
      }),
    );
  }

  private submit(
    request: WasmRequest,
    signal: AbortSignal,
    onProgress: ((fraction: number) => void) | undefined,
    cleanup: string[],
  ): Promise<Outcome> {
    if (signal.aborted) return Promise.reject(abortError(signal));
    return new Promise<Outcome>((resolve, reject) => {
      const job: Job = {
        request,
        signal,
        onProgress,
        cleanup,
        settled: false,
        onAbort: () => {},
        resolve,
        reject,
      };
      job.onAbort = () => void this.abort(job);
      signal.addEventListener('abort', job.onAbort, { once: true });
      // Until a worker takes it, the job's time is spent by the pool, not its media.
      awaitingEngine(signal);
      this.waiting.push(job);
      this.pump();
    });
  }

  /** Starts queued jobs on free slots: an idle live worker first, then a new slot up to the limit. */
  private pump(): void {
    while (this.waiting.length > 0) {
      let slot = this.slots.find((s) => !s.job && s.worker) ?? this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.maxWorkers) {
        slot = { worker: undefined, job: undefined, idleTimer: undefined };
        this.slots.push(slot);
      }
      if (!slot) return;
      const job = this.waiting.shift()!;
      slot.job = job;
      clearTimeout(slot.idleTimer);
      try {
        this.files ??= {
          ...resolveCore(),
          ...(this.stackBytes === undefined ? {} : { stackBytes: this.stackBytes }),
        };
        slot.worker ??= this.startWorker(slot, this.files);
      } catch (error) {
        const failure =
          error instanceof FileconvError
            ? error
            : new FileconvError('ENGINE_UNAVAILABLE', '@ffmpeg/core is not installed', {
                cause: error,
                details: { install: INSTALL },
              });
        void this.fail(slot, job, failure);
        continue;
      }
      slot.worker.ref(); // a job in progress keeps the process alive, as any pending work would
      engineWorking(job.signal);
      slot.worker.postMessage(job.request);
    }
  }

  private startWorker(slot: Slot, files: CoreFiles): Worker {
    const worker = startWasmWorker(files);
    worker.on('message', (response: WasmResponse) => {
      const job = slot.job;
      if (slot.worker !== worker || !job || job.request.id !== response.id) return;
      if (response.type === 'progress') {
        try {
          job.onProgress?.(response.fraction);
        } catch {
          // a throwing progress callback must not break the conversion
        }
      } else if (response.type === 'failed') {
        const { code, message, details } = response;
        void this.fail(slot, job, new FileconvError(code as ErrorCode, message, details ? { details } : {}));
      } else {
        slot.job = undefined;
        this.settle(job, response);
        this.next(slot);
      }
    });
    // Uncaught errors and exits we did not ask for: the script failed to load or the thread died
    // (a terminate() we asked for first detaches the worker from its slot, so it is ignored here).
    const lost = (cause: unknown) => {
      if (slot.worker !== worker) return;
      slot.worker = undefined;
      const job = slot.job;
      if (job)
        void this.fail(
          slot,
          job,
          new FileconvError('CONVERSION_FAILED', 'The ffmpeg.wasm worker stopped', { cause }),
        );
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`exit code ${code}`)));
    return worker;
  }

  /** Stops the running job's worker, then its files are removed and it rejects. */
  private async abort(job: Job): Promise<void> {
    const error = abortError(job.signal);
    const queued = this.waiting.indexOf(job);
    if (queued >= 0) {
      this.waiting.splice(queued, 1);
      this.settle(job, error);
      return;
    }
    const slot = this.slots.find((s) => s.job === job);
    if (!slot) return;
    const worker = slot.worker;
    slot.worker = undefined; // its messages and exit are ignored from now on
    // The slot stays taken until the thread is gone: maxWorkers bounds threads, dying ones too.
    await worker?.terminate().catch(() => {});
    await this.fail(slot, job, error);
  }

  /** Removes what a failed job may have left, then rejects it and frees its slot. */
  private async fail(slot: Slot, job: Job, error: FileconvError): Promise<void> {
    // Settled in substance already: an abort during the cleanup must not kill a healthy worker.
    job.signal.removeEventListener('abort', job.onAbort);
    await removeAll(job.cleanup);
    if (slot.job === job) slot.job = undefined;
    this.settle(job, error);
    this.next(slot);
  }

  private settle(job: Job, outcome: Outcome | FileconvError): void {
    if (job.settled) return;
    job.settled = true;
    job.signal.removeEventListener('abort', job.onAbort);
    if (outcome instanceof FileconvError) job.reject(outcome);
    else job.resolve(outcome);
  }

  /** After a job: the next one, or idling (unref'd, ended after IDLE_MS). */
  private next(slot: Slot): void {
    this.pump();
    if (slot.job || !slot.worker) return;
    const worker = slot.worker;
    worker.unref();
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (slot.job || slot.worker !== worker) return;
      slot.worker = undefined;
      void worker.terminate().catch(() => {});
    }, IDLE_MS).unref();
  }
}

/** The ffmpeg.wasm runner (kind 'wasm'); see the module comment for its lifecycle. */
export function createWasmFfmpegRunner(
  options: WasmFfmpegRunnerOptions = {},
): FfmpegRunner & { close(): Promise<void> } {
  const stackBytes =
    options.stackBytes === undefined ? undefined : Math.max(0, Math.floor(options.stackBytes));
  return new WasmFfmpegRunner(Math.max(1, Math.floor(options.maxWorkers ?? 1)), stackBytes);
}
