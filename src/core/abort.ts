/**
 * Abort handling shared by the engine and the converters: what an aborted signal means (a
 * timeout, a cancel, or the engine's own reason), and waiting on work that cannot be
 * interrupted (libvips, a synchronous WebAssembly call) while still answering an abort at once.
 */
import { FileconvError } from './errors.js';

/** The FileconvError an aborted signal stands for: its own FileconvError reason, a timeout, or a cancel. */
export function abortError(signal: AbortSignal): FileconvError {
  const reason: unknown = signal.reason;
  if (reason instanceof FileconvError) return reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
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
