/**
 * Local paths of the direct API (convertFile, the CLI): what a file-system error there means to
 * the person who named the path. Every such error is a FileconvError with a stable code and a
 * message naming the path, never a raw ENOENT: NOT_FOUND for an input that is not there,
 * INPUT_NOT_READABLE for one that cannot be read, OUTPUT_NOT_WRITABLE for an output that cannot
 * be written, NO_SPACE when the disk is full. The output is checked before converting, so a long
 * conversion does not end in an error its first millisecond could have given.
 */
import { constants } from 'node:fs';
import { access, stat, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FileconvError } from '../core/errors.js';

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

const NO_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT']);

/**
 * When this process last saw a full disk (performance.now(), ms). A failure that an engine cannot
 * tell apart from a damaged input (blameFullDisk, engine/conversion-failure.ts) is judged by it
 * as well as by the free space after the failure: the disk may have been freed between the two
 * (the soak saw a good ods "could not be opened" in the last second of a full disk).
 */
let fullDiskSeenAt = Number.NEGATIVE_INFINITY;

/** Whether a full disk was seen in this process at or after `at` (performance.now(), ms). */
export function fullDiskSeenSince(at: number): boolean {
  return fullDiskSeenAt >= at;
}

/** Remembers that a full disk was seen now (fullDiskSeenSince); returns true for the caller's answer. */
function sawFullDisk(): true {
  fullDiskSeenAt = performance.now();
  return true;
}

/** True for the errnos of a full disk or quota, remembering the sighting. */
function isNoSpaceErrno(errno: string | undefined): boolean {
  return errno !== undefined && NO_SPACE_CODES.has(errno) && sawFullDisk();
}
const DENIED_CODES = new Set(['EACCES', 'EPERM']);

/** How long a client is told to wait before retrying after NO_SPACE (Retry-After), seconds. */
export const NO_SPACE_RETRY_AFTER_SECONDS = 30;

/**
 * What an engine or a program says when the disk is full, for errors that carry no errno: a
 * converter's message, an external program's stderr (strerror of ENOSPC and EDQUOT).
 */
const NO_SPACE_TEXT = /\b(ENOSPC|EDQUOT)\b|no space left on (the )?device|disk quota exceeded/i;

/**
 * True when `error` (or one of its causes) says the disk is full or over its quota: an errno of
 * ENOSPC or EDQUOT, a NO_SPACE FileconvError, or a message saying so. A full disk is the
 * service's fault, never the client's, whatever code a converter wrapped it in.
 */
export function isNoSpace(error: unknown): boolean {
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 8; depth++) {
    if (at instanceof FileconvError && at.code === 'NO_SPACE') return true;
    if (isNoSpaceErrno(errnoOf(at))) return true;
    const message = at instanceof Error ? at.message : typeof at === 'string' ? at : '';
    if (NO_SPACE_TEXT.test(message)) return sawFullDisk();
    at = at instanceof Error ? at.cause : undefined;
  }
  return false;
}

/**
 * Free bytes on the disk holding `dir`, as an unprivileged writer may use them (a dir not made
 * yet is measured at its nearest parent).
 */
export async function freeBytes(dir: string): Promise<number> {
  for (let at = dir; ; at = dirname(at)) {
    try {
      const stats = await statfs(at);
      return stats.bavail * stats.bsize;
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT' || dirname(at) === at) throw error;
    }
  }
}

/** Bytes as MiB with one decimal, for messages. */
export function mebibytes(bytes: number): string {
  return `${Math.floor((bytes / 1024 / 1024) * 10) / 10} MiB`;
}

/**
 * NO_SPACE (507, with a Retry-After hint) for a failure that `isNoSpace`, naming what could not
 * be written; undefined for any other failure. A NO_SPACE error passes through unchanged.
 */
export function noSpaceError(error: unknown, what: string): FileconvError | undefined {
  if (error instanceof FileconvError && error.code === 'NO_SPACE') return error;
  if (!isNoSpace(error)) return undefined;
  return new FileconvError('NO_SPACE', `${what}: no space left on the device.`, {
    details: { retryAfterSeconds: NO_SPACE_RETRY_AFTER_SECONDS },
    cause: error,
  });
}

/** The error of an input file that could not be opened or read. */
export function inputFileError(path: string, error: unknown): FileconvError {
  const errno = errnoOf(error);
  const details = { path, ...(errno ? { errno } : {}) };
  if (errno === 'ENOENT' || errno === 'ENOTDIR') {
    return new FileconvError('NOT_FOUND', `No such file: ${path}.`, { details, cause: error });
  }
  const why =
    errno === 'EISDIR'
      ? 'it is a folder, not a file'
      : errno !== undefined && DENIED_CODES.has(errno)
        ? 'permission denied'
        : ((error as Error | undefined)?.message ?? String(error));
  return new FileconvError('INPUT_NOT_READABLE', `Cannot read ${path}: ${why}.`, { details, cause: error });
}

/** The error of an output file that could not be written (`path` is where it was to go). */
export function outputFileError(path: string, error: unknown): FileconvError {
  const errno = errnoOf(error);
  const details = { path, ...(errno ? { errno } : {}) };
  if (isNoSpaceErrno(errno)) {
    return new FileconvError('NO_SPACE', `Cannot write ${path}: no space left on the device.`, {
      details,
      cause: error,
    });
  }
  const why =
    errno === 'ENOENT'
      ? `the folder ${dirname(path)} does not exist`
      : errno === 'ENOTDIR'
        ? `${dirname(path)} is not a folder`
        : errno === 'EISDIR'
          ? 'it is a folder; name a file'
          : errno === 'EROFS'
            ? 'the file system is read-only'
            : errno !== undefined && DENIED_CODES.has(errno)
              ? `permission denied (the folder ${dirname(path)} is not writable)`
              : ((error as Error | undefined)?.message ?? String(error));
  return new FileconvError('OUTPUT_NOT_WRITABLE', `Cannot write ${path}: ${why}.`, {
    details,
    cause: error,
  });
}

/** The error of the engine's temp dir refusing a work folder: the disk is full, or `tempDir` is wrong. */
export function workDirError(tempDir: string, error: unknown): FileconvError {
  const errno = errnoOf(error);
  const details = { path: tempDir, ...(errno ? { errno } : {}) };
  if (isNoSpaceErrno(errno)) {
    return new FileconvError(
      'NO_SPACE',
      `Cannot make a work folder in ${tempDir}: no space left on the device.`,
      {
        details: { ...details, retryAfterSeconds: NO_SPACE_RETRY_AFTER_SECONDS },
        cause: error,
      },
    );
  }
  const why = (error as Error | undefined)?.message ?? String(error);
  return new FileconvError(
    'CONFIG',
    `Cannot make a work folder in ${tempDir} (the engine's tempDir): ${why}.`,
    { details, cause: error },
  );
}

/**
 * Checks that a result can be moved to `path` (an absolute path): its folder exists and is
 * writable, and the path is not itself a folder. Throws OUTPUT_NOT_WRITABLE naming the problem.
 */
export async function checkOutputPath(path: string): Promise<void> {
  const folder = dirname(path);
  const folderStat = await stat(folder).catch((error: unknown) => {
    throw outputFileError(path, error);
  });
  if (!folderStat.isDirectory()) {
    throw outputFileError(path, Object.assign(new Error(`${folder} is not a folder`), { code: 'ENOTDIR' }));
  }
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw outputFileError(path, Object.assign(new Error(`${path} is a folder`), { code: 'EISDIR' }));
  }
  await access(folder, constants.W_OK).catch((error: unknown) => {
    throw outputFileError(path, error);
  });
}
