/**
 * Putting a finished file where it belongs: every converter, operation and the direct API writes
 * its result in a private work folder first, so the destination only ever holds a complete file.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

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
  const scratch = join(dirname(to), `.fileconv-${randomUUID()}.partial`);
  try {
    await copyFile(from, scratch);
    await rename(scratch, to);
  } catch (error) {
    await rm(scratch, { force: true });
    throw error;
  }
  await rm(from, { force: true });
}
