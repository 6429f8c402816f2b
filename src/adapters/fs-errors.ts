/**
 * File-system adapters answer FileconvErrors only: errors of their own rules pass through,
 * a full disk becomes NO_SPACE, anything else the file system throws becomes INTERNAL naming
 * the store and the action.
 */
import { FileconvError } from '../core/errors.js';
import { noSpaceError } from '../kit/local-files.js';

export async function guardFsErrors<T>(store: string, action: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof FileconvError) throw error;
    // A full disk is NO_SPACE (507, retry later), not an internal error.
    const full = noSpaceError(error, `${store}: ${action} failed`);
    if (full) throw full;
    const message = error instanceof Error ? error.message : String(error);
    throw new FileconvError('INTERNAL', `${store}: ${action} failed: ${message}`, { cause: error });
  }
}
