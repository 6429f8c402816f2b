/**
 * A private folder for one operation's intermediate files (a tool's output before it is checked,
 * a generated PostScript prologue), removed on every path out: success, error or abort.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workDirError } from './local-files.js';

export interface WorkDirOptions {
  /** Where the operation's work folder is made (and removed). Default: the OS temp dir. */
  tempDir?: string | undefined;
  /** The folder name's start, naming the engine in a listing. Default 'fileconv-pdf-'. */
  prefix?: string | undefined;
}

export async function withWorkDir<T>(options: WorkDirOptions, work: (dir: string) => Promise<T>): Promise<T> {
  const parent = options.tempDir ?? tmpdir();
  const dir = await mkdtemp(join(parent, options.prefix ?? 'fileconv-pdf-')).catch((error: unknown) => {
    throw workDirError(parent, error);
  });
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
