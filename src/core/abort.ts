/**
 * Abort handling shared by the engine and the converters: what an aborted signal means (a
 * timeout, a cancel, or the engine's own reason), whose doing a timeout was (the input's, or a
 * busy service's: see awaitingEngine), and waiting on work that cannot be interrupted (libvips,
 * a synchronous WebAssembly call) while still answering an abort at once.
 */
import { FileconvError } from './errors.js';

/**
 * Signals whose work is waiting for its turn at an engine right now: queued for a slot of a
 * pool (LibreOffice, Chromium, ffmpeg.wasm) or waiting for the pool's engine to start. A run's
 * deadline that strikes then was spent by a busy service, not by the input; one that strikes
 * once an engine took the work was spent on the input (see core/policy/settlement.ts). A mark is
 * left in place when the wait is aborted, so whoever maps the abort afterwards, in whatever
 * order the abort listeners ran, still sees where the work was.
 */
const waitingForEngine = new WeakSet<AbortSignal>();

/** Marks `signal`'s work as waiting for an engine (a pool's queue, an engine starting). */
export function awaitingEngine(signal: AbortSignal): void {
  waitingForEngine.add(signal);
}

/** Marks `signal`'s work as taken up by an engine: a deadline from now on is the input's doing. */
export function engineWorking(signal: AbortSignal): void {
  waitingForEngine.delete(signal);
}

/**
 * The FileconvError an aborted signal stands for: its own FileconvError reason, a timeout, or a
 * cancel. A timeout that struck while the work waited for an engine says so with
 * `details.fault: 'service'`.
 */
export function abortError(signal: AbortSignal): FileconvError {
  const reason: unknown = signal.reason;
  if (reason instanceof FileconvError) return reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    if (waitingForEngine.has(signal)) {
      return new FileconvError(
        'CONVERSION_TIMEOUT',
        'The conversion waited too long for a free engine and was stopped.',
        { cause: reason, details: { fault: 'service' } },
      );
    }
    return new FileconvError('CONVERSION_TIMEOUT', 'The conversion took too long and was stopped.', {
      cause: reason,
    });
  }
  return new FileconvError('CANCELED', 'The conversion was canceled.', { cause: reason });
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError(signal);
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts. Work that cannot be interrupted
 * runs on in the background; `cleanup` (if given) runs once it settles.
 */
export function raceAbort<T>(
  work: Promise<T>,
  signal: AbortSignal,
  cleanup?: () => Promise<void>,
): Promise<T> {
  const afterAbort = () => {
    const done = cleanup ?? (async () => {});
    work.then(done, done).catch(() => {});
  };
  if (signal.aborted) {
    afterAbort();
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(abortError(signal));
      afterAbort();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
