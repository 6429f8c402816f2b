/**
 * Files into and out of a private work folder: every converter, operation and the direct API
 * reads its input under a name of its choosing there and writes its result there first, so the
 * destination only ever holds a complete file.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, rename, rm, symlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * A temporary name beside `to`, on its disk, for a file that becomes `to` by a rename: hidden,
 * marked partial, and one pattern everywhere (`.fileconv-<uuid>-<name>.partial`), so a leftover
 * of a killed process is recognisable as one. The name is cut to 64 characters: with the rest it
 * stays under the 255 bytes a file name may have.
 */
export function partialBeside(to: string): string {
  return join(dirname(to), `.fileconv-${randomUUID()}-${basename(to).slice(0, 64)}.partial`);
}

/**
 * Moves `from` to `to`: a rename on the same device; across devices (a tmpfs work dir, an output
 * on another disk) a copy beside `to` under a temp name, then a rename, so `to` is never partial.
 * Errors are the file system's, for the caller to map (a converter's output is the engine's
 * business, a CLI user's path is theirs).
 */
export async function placeFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
  }
  const scratch = partialBeside(to);
  try {
    await copyFile(from, scratch);
    await rename(scratch, to);
  } catch (error) {
    await rm(scratch, { force: true });
    throw error;
  }
  await rm(from, { force: true });
}

/**
 * `source` under the name `target` (an engine that reads the format from the extension, a work
 * folder of the engine's own): a symlink, no bytes copied, or a copy where symlinks are refused.
 */
export async function linkInto(source: string, target: string): Promise<void> {
  try {
    await symlink(resolve(source), target);
  } catch {
    await copyFile(source, target);
  }
}
