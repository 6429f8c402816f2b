/**
 * Abort handling for conversions that cannot be interrupted: libvips runs a pipeline to its end
 * once started, so the converter stops waiting instead, and cleans up when the work settles.
 */
import { FileconvError } from '../../../src/errors.js';

/** The error an aborted signal stands for: the engine's own reason, a timeout, or a cancel. */
export function abortError(signal: AbortSignal): FileconvError {
  const reason: unknown = signal.reason;
  if (reason instanceof FileconvError) return reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new FileconvError('CONVERSION_TIMEOUT', 'The image conversion timed out', { cause: reason });
  }
  return new FileconvError('CANCELED', 'The image conversion was canceled', { cause: reason });
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError(signal);
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts. libvips cannot be interrupted, so
 * on abort the work runs on in the background and `cleanup` runs once it settles.
 */
export function raceAbort<T>(
  work: Promise<T>,
  signal: AbortSignal,
  cleanup: () => Promise<void>,
): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(abortError(signal));
      work.then(cleanup, cleanup).catch(() => {});
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
