/**
 * Files found by path at run time rather than imported: the scripts of worker threads and child
 * processes, the LibreOffice bridge, the web page's assets. dist/ mirrors the source tree
 * (src/kit/isolation/converter-process.ts is built to dist/src/kit/isolation/converter-process.js),
 * but the code that looks for them may have been bundled into an entry or a shared chunk anywhere
 * under dist/. So each file is named by its path from the package's root and looked for under
 * every folder above the caller, nearest first, up to the first that holds a package.json: the
 * repository's root in the sources, dist/ (and nothing above the package) once built.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FileconvError } from '../core/errors.js';

/**
 * The first of `names` (paths from the package root, e.g. 'src/service/web/page.html') that
 * exists under a folder above `base` (the caller's import.meta.url); undefined when none does.
 */
export function findPackageFile(base: string, names: readonly string[]): string | undefined {
  let dir = dirname(fileURLToPath(base));
  for (;;) {
    for (const name of names) {
      const path = join(dir, name);
      if (existsSync(path)) return path;
    }
    const parent = dirname(dir);
    if (parent === dir || existsSync(join(dir, 'package.json'))) return undefined;
    dir = parent;
  }
}

/**
 * A script's file URL: `path` (from the package root, without extension) built as .js, or its
 * TypeScript source in a development setup (vitest, tsx); INTERNAL naming `what` when neither is there.
 */
export function findScript(base: string, path: string, what: string): URL {
  const found = findPackageFile(base, [`${path}.js`, `${path}.ts`]);
  if (found) return pathToFileURL(found);
  throw new FileconvError('INTERNAL', `${what} is missing from the installation`);
}

/**
 * The file URL of tsx's loader ('tsx/esm') or API ('tsx/esm/api'), for a worker or child that runs
 * the TypeScript sources (vitest, tsx: a development setup only). Resolved with require rather
 * than import.meta.resolve, which the CommonJS build cannot contain.
 */
export function tsxModuleUrl(specifier: 'tsx/esm' | 'tsx/esm/api'): string {
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm'));
  // require would pick the API's CommonJS build, which cannot be imported: its ESM build sits
  // beside the loader (dist/esm/api/index.mjs).
  return specifier === 'tsx/esm' ? loader.href : new URL('./api/index.mjs', loader).href;
}
