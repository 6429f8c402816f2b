import { Worker } from 'node:worker_threads';
import { abortError } from '../../core/abort.js';
import { type ErrorCode, FileconvError } from '../../core/errors.js';
import { findScript, tsxModuleUrl } from '../../kit/script-path.js';
import type { RawImage } from './heic-wasm.js';
import type { HeicRequest, HeicResponse } from './heic-worker.js';

export type { RawImage } from './heic-wasm.js';

/** How long an idle worker is kept before it is ended (its memory returned). */
const IDLE_MS = 30_000;

interface Request {
  id: number;
  bytes: Uint8Array;
  maxPixels: number;
  signal: AbortSignal | undefined;
  onAbort: () => void;
  resolve(image: RawImage): void;
  reject(error: unknown): void;
}

let worker: Worker | undefined;
let running: Request | undefined;
const waiting: Request[] = [];
let idleTimer: NodeJS.Timeout | undefined;
let nextId = 1;

/**
 * The worker script: heic-worker.ts beside this file in the sources, its own entry once built
 * (kit/script-path.ts finds it).
 */
function workerScript(): URL {
  return findScript(import.meta.url, 'src/converters/sharp/heic-worker', 'The HEIC decoder worker script');
}

function startWorker(): Worker {
  const script = workerScript();
  let started: Worker;
  if (script.pathname.endsWith('.ts')) {
    // Running from the TypeScript sources (vitest, tsx): Node 20 cannot load .ts in a worker by
    // itself, so the worker registers tsx (a dev dependency) before importing the script.
    const tsx = tsxModuleUrl('tsx/esm/api');
    const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); });`;
    started = new Worker(bootstrap, { eval: true });
  } else {
    started = new Worker(script);
  }
  started.on('message', (response: HeicResponse) => {
    if (started === worker && running?.id === response.id) settle(running, response);
  });
  // Uncaught errors and exits we did not ask for: the script failed to load or the thread died.
  const lost = (cause: unknown) => {
    if (started !== worker) return;
    worker = undefined;
    if (running) {
      settle(running, new FileconvError('CONVERSION_FAILED', 'The HEIC decoder worker stopped', { cause }));
    }
  };
  started.on('error', lost);
  started.on('exit', (code) => lost(new Error(`exit code ${code}`)));
  return started;
}

function stopWorker(): void {
  const stopping = worker;
  worker = undefined;
  // Its events are ignored from now on (started !== worker); termination cannot fail usefully.
  void stopping?.terminate().catch(() => {});
}

/** Sends the next queued request to the worker, starting one when there is none. */
function pump(): void {
  if (running || waiting.length === 0) return;
  const request = waiting.shift()!;
  running = request;
  clearTimeout(idleTimer);
  try {
    worker ??= startWorker();
  } catch (error) {
    settle(request, error instanceof Error ? error : new Error(String(error)));
    return;
  }
  worker.ref(); // a decode in progress keeps the process alive, as any pending work would
  const message: HeicRequest = { id: request.id, bytes: request.bytes, maxPixels: request.maxPixels };
  worker.postMessage(message);
}

/** A worker's answer, or an error raised on this side (abort, lost worker). */
type Outcome = HeicResponse | Error;

/** Ends `request` with its outcome, then moves the queue on or lets the worker idle. */
function settle(request: Request, outcome: Outcome): void {
  request.signal?.removeEventListener('abort', request.onAbort);
  if (running === request) running = undefined;
  if (outcome instanceof Error) {
    request.reject(outcome);
  } else if (outcome.ok) {
    request.resolve({ width: outcome.width, height: outcome.height, data: outcome.data });
  } else {
    const { code, message, details } = outcome;
    request.reject(new FileconvError(code as ErrorCode, message, details ? { details } : {}));
  }
  if (waiting.length > 0) {
    pump();
  } else if (!running && worker) {
    worker.unref();
    idleTimer = setTimeout(stopWorker, IDLE_MS).unref();
  }
}

function cancel(request: Request): void {
  const error = abortError(request.signal!);
  const queued = waiting.indexOf(request);
  if (queued >= 0) {
    waiting.splice(queued, 1);
    request.reject(error);
  } else if (running === request) {
    stopWorker(); // the only way to stop WebAssembly mid-decode
    settle(request, error);
  }
}

/**
 * Decodes the first image of a HEIC/HEIF file to RGBA in the worker thread. The size is checked
 * from the container before decoding (INPUT_LIMIT_EXCEEDED); unreadable files are CORRUPT_INPUT;
 * aborting `signal` rejects at once with the abort's error and stops the decode.
 */
export function decodeHeic(bytes: Uint8Array, maxPixels: number, signal?: AbortSignal): Promise<RawImage> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise<RawImage>((resolve, reject) => {
    const request: Request = {
      id: nextId++,
      bytes,
      maxPixels,
      signal,
      onAbort: () => cancel(request),
      resolve,
      reject,
    };
    signal?.addEventListener('abort', request.onAbort, { once: true });
    waiting.push(request);
    pump();
  });
}

/** Ends the worker now if it is idle (tests, hosts shutting down); a later decode starts a new one. */
export function stopHeicWorker(): void {
  clearTimeout(idleTimer);
  if (!running) stopWorker();
}
