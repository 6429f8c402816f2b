/**
 * Finding the programs converters run (ffmpeg, soffice, chromium): an executable file at a given
 * path, or by name on PATH. Only absolute PATH entries count: a relative one would make what runs
 * depend on the current directory.
 */
import { access, constants } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` (with `.exe` too on Windows) in PATH, then in `extraDirs`. */
export async function findOnPath(
  name: string,
  extraDirs: readonly string[] = [],
): Promise<string | undefined> {
  const suffixes = process.platform === 'win32' ? ['.exe', ''] : [''];
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir && isAbsolute(dir));
  for (const dir of [...dirs, ...extraDirs]) {
    for (const suffix of suffixes) {
      const candidate = join(dir, `${name}${suffix}`);
      if (await isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}
