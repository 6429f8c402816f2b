/**
 * What `fileconv convert` may write over: never an input (the same file by device and inode, so
 * also through a symlink or a hard link), an existing output only with --force. The result is
 * written beside its destination under a temporary name and then put in place, so a file that
 * appeared meanwhile is still not replaced without --force.
 */
import { link, rename, rm, stat } from 'node:fs/promises';
import { FileconvError } from '../../src/core/errors.js';
import { checkOutputPath, outputFileError } from '../../src/kit/local-files.js';

export interface OverwriteFlags {
  force?: boolean | undefined;
  skipExisting?: boolean | undefined;
}

/** A file's identity across names (symlinks followed, hard links alike); undefined when it is not there. */
export async function fileIdentity(path: string): Promise<string | undefined> {
  const stats = await stat(path).catch(() => undefined);
  return stats === undefined ? undefined : `${stats.dev}:${stats.ino}`;
}

function outputIsInputError(output: string): FileconvError {
  return new FileconvError(
    'OUTPUT_EXISTS',
    `${output} is an input: fileconv never writes over its input. Name another output (-o).`,
    { details: { path: output, reason: 'input' } },
  );
}

function outputExistsError(output: string): FileconvError {
  return new FileconvError(
    'OUTPUT_EXISTS',
    `${output} exists: pass --force (-y) to replace it, or --skip-existing (-n) to leave it.`,
    { details: { path: output, reason: 'exists' } },
  );
}

/**
 * Whether to convert into `output` ('write') or leave it ('skip', --skip-existing); throws
 * OUTPUT_EXISTS for an input or an existing file without --force, OUTPUT_NOT_WRITABLE for a
 * path that cannot be written (checked before converting, as the engine does).
 */
export async function outputDecision(
  output: string,
  inputs: ReadonlySet<string>,
  flags: OverwriteFlags,
): Promise<'write' | 'skip'> {
  await checkOutputPath(output);
  const identity = await fileIdentity(output);
  if (identity === undefined) return 'write';
  if (inputs.has(identity)) throw outputIsInputError(output);
  if (flags.force) return 'write';
  if (flags.skipExisting) return 'skip';
  throw outputExistsError(output);
}

/**
 * Moves the finished `scratch` to `output`. Without --force a hard link puts it there only if no
 * file has the name (EEXIST otherwise); where hard links are refused, a rename after a check.
 */
export async function placeResult(
  scratch: string,
  output: string,
  inputs: ReadonlySet<string>,
  flags: OverwriteFlags,
): Promise<void> {
  try {
    const identity = await fileIdentity(output);
    if (identity !== undefined && inputs.has(identity)) throw outputIsInputError(output);
    if (flags.force) {
      await rename(scratch, output);
      return;
    }
    try {
      await link(scratch, output);
    } catch (error) {
      const errno = (error as NodeJS.ErrnoException).code;
      if (errno === 'EEXIST') throw outputExistsError(output);
      if (errno !== 'EPERM' && errno !== 'ENOTSUP' && errno !== 'EXDEV') throw error;
      if (identity !== undefined) throw outputExistsError(output);
      await rename(scratch, output);
    }
  } catch (error) {
    throw error instanceof FileconvError ? error : outputFileError(output, error);
  } finally {
    await rm(scratch, { force: true });
  }
}
