/**
 * The inputs of `fileconv convert` as files: a folder gives its files (with --recursive, those of
 * its subfolders too), a glob the shell left alone gives what it matches. Each found file keeps
 * the folder it was found in below the one named, for an output folder to mirror.
 */
import { stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { filesUnder, globFiles, globParts, isGlob } from './glob-match.js';
import { isUrlInput, STDIO } from './output-plan.js';

export interface FoundInput {
  /** The file's path (as named, or joined to the folder or glob base), a URL, or `-`. */
  path: string;
  /** Its folder below the folder or glob base it was found under ('' for an input named as is). */
  folder: string;
  /** Found in a folder or by a glob, rather than named. */
  found: boolean;
}

/** The folder of `path` below `base` ('' when it is right in it). */
function folderBelow(base: string, path: string): string {
  const below = dirname(relative(base, path));
  return below === '.' ? '' : below;
}

async function expandOne(input: string, recursive: boolean): Promise<FoundInput[]> {
  if (input === STDIO || isUrlInput(input)) return [{ path: input, folder: '', found: false }];
  const stats = await stat(input).catch(() => undefined);
  if (stats?.isDirectory()) {
    const files = await filesUnder(input, recursive);
    return files.map((file) => {
      const path = join(input, file);
      return { path, folder: folderBelow(input, path), found: true };
    });
  }
  // An existing file whose name has a * is that file; a missing one fails as NOT_FOUND later.
  if (stats !== undefined || !isGlob(input)) return [{ path: input, folder: '', found: false }];
  const { base } = globParts(input);
  const matches = await globFiles(input);
  if (matches.length === 0) return [{ path: input, folder: '', found: false }];
  return matches.map((path) => ({ path, folder: folderBelow(base, path), found: true }));
}

/** Every input, expanded, in the order given (each folder's or glob's files sorted), once each. */
export async function expandInputs(inputs: readonly string[], recursive: boolean): Promise<FoundInput[]> {
  const seen = new Set<string>();
  const all: FoundInput[] = [];
  for (const input of inputs) {
    for (const found of await expandOne(input, recursive)) {
      if (seen.has(found.path)) continue;
      seen.add(found.path);
      all.push(found);
    }
  }
  return all;
}
