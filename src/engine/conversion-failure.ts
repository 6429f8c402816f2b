/**
 * What a failed conversion is reported as, in a job (the worker) and in a direct conversion alike:
 * a full disk is NO_SPACE whatever a converter called it, a cancel stays a cancel, and an error
 * without a code is CONVERSION_FAILED.
 */
import { FileconvError, isFileconvError, toFileconvError } from '../core/errors.js';
import {
  freeBytes,
  fullDiskSeenSince,
  mebibytes,
  NO_SPACE_RETRY_AFTER_SECONDS,
  noSpaceError,
} from '../kit/local-files.js';

/**
 * The error a failed run stores on its job. A full disk (the work dir, a converter's output, the
 * stored result) is NO_SPACE whatever code a converter wrapped it in: the service's fault, so
 * refunded, and the client is told to retry later. A cancel stays a cancel.
 */
export function failureOf(error: unknown, what: string): FileconvError {
  if (isFileconvError(error, 'CANCELED')) return error;
  return noSpaceError(error, `${what} failed`) ?? toFileconvError(error, 'CONVERSION_FAILED');
}

/**
 * Free bytes below which a conversion that failed for no reason it could name (CONVERSION_FAILED,
 * INTERNAL) is taken to have failed on the full disk: an external program that cannot write its
 * profile or output often exits with a bare status (LibreOffice: 77 while starting), and one
 * that cannot write its temp files often takes its input for damaged (see blameFullDisk).
 */
const NEARLY_FULL_BYTES = 8 * 1024 * 1024;

/**
 * The failure as the full disk's, when `free` bytes (undefined: unknown) make that the likelier
 * cause, or when `seenFull`: this process saw a full disk while the conversion ran (freed since).
 */
export function blameFullDisk(
  failure: FileconvError,
  free: number | undefined,
  seenFull = false,
): FileconvError {
  const unexplained = failure.code === 'CONVERSION_FAILED' || failure.code === 'INTERNAL';
  // Engines cannot tell a full disk from a bad input: LibreOffice "could not open the file",
  // ffmpeg's empty result (it exits 0 when it could write nothing), exceljs's "no worksheets"
  // (its unzipped parts did not fit), all seen by the soak. Damaged-input verdicts are doubted
  // while the disk is full; a file really damaged fails with its own code once there is room.
  const doubtful = failure.code === 'CORRUPT_INPUT';
  if (!(unexplained || doubtful)) return failure;
  const nearlyFull = free !== undefined && free < NEARLY_FULL_BYTES;
  if (!nearlyFull && !seenFull) return failure;
  return new FileconvError(
    'NO_SPACE',
    nearlyFull
      ? `The conversion failed with ${mebibytes(free)} free on the disk of the work folder: ${failure.message}`
      : `The conversion failed while the disk was full: ${failure.message}`,
    { details: { retryAfterSeconds: NO_SPACE_RETRY_AFTER_SECONDS }, cause: failure },
  );
}

/**
 * What a failed conversion tells its caller: NO_SPACE when the disk was full (or nearly, see
 * blameFullDisk), else the converter's own error (CONVERSION_FAILED for an untyped one).
 * `tempDir` is where the conversion worked; `startedAt` (performance.now()) when it began.
 */
export async function conversionFailure(
  tempDir: string,
  error: unknown,
  startedAt: number,
): Promise<FileconvError> {
  const failure = failureOf(error, 'The conversion');
  if (failure.code === 'NO_SPACE' || failure.code === 'CANCELED') return failure;
  const free = await freeBytes(tempDir).catch(() => undefined);
  return blameFullDisk(failure, free, fullDiskSeenSince(startedAt));
}
