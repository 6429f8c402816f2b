/**
 * The two refusals of a file by its size, written once: over a limit (FILE_TOO_LARGE, 413) and
 * empty (CORRUPT_INPUT, 422). A file is sized in many places, by what is known there: a declared
 * size (an upload grant, a tus creation, a Content-Length), bytes counted as they stream (a
 * multipart body, a storage put, a tus append), a file on disk. Each place checks with what it
 * has; the answer a client reads is the same wherever it came from.
 */
import { FileconvError } from './errors.js';

export interface FileTooLarge {
  /** The most bytes allowed. */
  limit: number;
  /** The file's size, when it is known (declared, or counted whole); absent when bytes were cut off. */
  size?: number;
  /** Whose limit it is, for the message: 'the Free plan', "the upload's declared size". */
  setBy?: string;
  /** What else the place that refuses knows (the plan's name), added to `limit` and `size`. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * FILE_TOO_LARGE: "The file is[ <size> bytes,] over the limit of <limit> bytes[ set by <setBy>]."
 * with `details.limit` and, when known, `details.size`.
 */
export function fileTooLarge({ limit, size, setBy, details, cause }: FileTooLarge): FileconvError {
  const sized = size === undefined ? '' : ` ${size} bytes,`;
  const whose = setBy === undefined ? '' : ` set by ${setBy}`;
  return new FileconvError(
    'FILE_TOO_LARGE',
    `The file is${sized} over the limit of ${limit} bytes${whose}.`,
    {
      details: { ...details, limit, ...(size === undefined ? {} : { size }) },
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

/** CORRUPT_INPUT for a file of no bytes: nothing converts from it. */
export function emptyFile(): FileconvError {
  return new FileconvError('CORRUPT_INPUT', 'The file is empty.', { details: { reason: 'empty' } });
}

/** Throws emptyFile() when `size` (a file's bytes, or the length of its first bytes) is 0. */
export function assertNotEmpty(size: number): void {
  if (size === 0) throw emptyFile();
}
