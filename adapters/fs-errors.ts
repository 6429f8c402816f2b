/**
 * File-system adapters answer FileconvErrors only: errors of their own rules pass through,
 * anything the file system throws becomes INTERNAL naming the store and the action.
 */
import { FileconvError } from '../src/errors.js';

export async function guardFsErrors<T>(store: string, action: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof FileconvError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new FileconvError('INTERNAL', `${store}: ${action} failed: ${message}`, { cause: error });
  }
}
