/**
 * The globs a shell did not expand (quoted, or from Windows' cmd): `*`, `?` and `**`, over
 * readdir. Node 20 has no fs.glob, and no glob library is a dependency of fileconv; this much
 * is what `fileconv convert "photos/**\/*.heic"` needs. Hidden files and folders are left out,
 * as a shell leaves them out of `*`.
 */
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

const MAGIC = /[*?]/;

/** Whether `pattern` has a wildcard. */
export function isGlob(pattern: string): boolean {
  return MAGIC.test(pattern);
}

/**
 * A glob as the folder it starts at (its leading segments without a wildcard; '.' when none)
 * and the pattern below it, '/'-separated.
 */
export function globParts(pattern: string): { base: string; rest: string } {
  const segments = pattern.split(/[\\/]/);
  const first = segments.findIndex((segment) => MAGIC.test(segment));
  const base = segments.slice(0, first).join('/');
  return {
    base: base === '' ? (pattern.startsWith('/') ? '/' : '.') : base,
    rest: segments.slice(first).join('/'),
  };
}

/** The pattern below its base as a regular expression over '/'-separated relative paths. */
function globRegExp(rest: string): RegExp {
  let source = '';
  for (let at = 0; at < rest.length; at++) {
    const char = rest.charAt(at);
    if (rest.startsWith('**/', at)) {
      source += '(?:[^/]+/)*';
      at += 2;
    } else if (rest.startsWith('**', at)) {
      source += '.*';
      at += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Every file under `folder` (subfolders only when `deep`), as paths relative to it with '/'. */
export async function filesUnder(folder: string, deep: boolean): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: deep });
  return entries
    .filter((entry) => entry.isFile() && !isHiddenBelow(folder, join(entry.parentPath, entry.name)))
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

function isHiddenBelow(folder: string, path: string): boolean {
  return relative(folder, path)
    .split(sep)
    .some((segment) => segment.startsWith('.'));
}

/** The files matching `pattern`, sorted; none when its base folder is not there. */
export async function globFiles(pattern: string): Promise<string[]> {
  const { base, rest } = globParts(pattern);
  const matcher = globRegExp(rest);
  const candidates = await filesUnder(base, rest.includes('/')).catch(() => []);
  return candidates.filter((path) => matcher.test(path)).map((path) => join(base, path));
}
