/**
 * The package's entries as package.json "exports" declares them, with subpath patterns expanded:
 * `./converters/*` is every folder of src/converters/ that has an index.ts, so a new converter
 * folder is a subpath without another line anywhere. The build (tsup.config.ts), the test
 * aliases (vitest.config.ts) and the package tests read them here, so none of them can disagree.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PackageEntry {
  /** The subpath clients import: '.', './storage/fs', './converters/sharp'. */
  subpath: string;
  /** The export's conditions with the pattern filled in. */
  target: { import: { types: string; default: string }; require: { types: string; default: string } };
  /** The source file it is built from, from the repository root: 'src/converters/sharp/index.ts'. */
  source: string;
}

type Target = PackageEntry['target'];

/**
 * Every entry of the package at `root` (the repository: the configs and tests pass their own
 * folder's, since a bundled config no longer sits where its source did), patterns expanded, a
 * pattern's matches sorted by name.
 */
export function packageEntries(root: string): PackageEntry[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Target>;
  };
  const entries: PackageEntry[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue;
    const source = sourceOf(target.import.default);
    if (!subpath.includes('*')) {
      entries.push({ subpath, target, source });
      continue;
    }
    // './converters/*' -> 'src/converters/*/index.ts': each folder that holds the source file.
    const [before, after] = source.split('*') as [string, string];
    for (const name of readdirSync(join(root, before)).sort()) {
      if (!existsSync(join(root, before, name + after))) continue;
      // An explicit key wins over the pattern in Node's resolution: it is listed as itself.
      const named = subpath.replace('*', name);
      if (named in pkg.exports) continue;
      const fill = (path: string) => path.replace('*', name);
      entries.push({
        subpath: named,
        target: {
          import: { types: fill(target.import.types), default: fill(target.import.default) },
          require: { types: fill(target.require.types), default: fill(target.require.default) },
        },
        source: before + name + after,
      });
    }
  }
  return entries;
}

/** './dist/src/x/index.js' -> 'src/x/index.ts'. */
function sourceOf(built: string): string {
  return built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');
}
