/**
 * Local paths of the direct API (convertFile, the CLI): what a file-system error there means to
 * the person who named the path. Every such error is a FileconvError with a stable code and a
 * message naming the path, never a raw ENOENT: NOT_FOUND for an input that is not there,
 * INPUT_NOT_READABLE for one that cannot be read, OUTPUT_NOT_WRITABLE for an output that cannot
 * be written, NO_SPACE when the disk is full. The output is checked before converting, so a long
 * conversion does not end in an error its first millisecond could have given.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FileconvError } from './errors.js';

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

const NO_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT']);
const DENIED_CODES = new Set(['EACCES', 'EPERM']);

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
  if (errno !== undefined && NO_SPACE_CODES.has(errno)) {
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
  if (errno !== undefined && NO_SPACE_CODES.has(errno)) {
    return new FileconvError(
      'NO_SPACE',
      `Cannot make a work folder in ${tempDir}: no space left on the device.`,
      {
        details,
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
