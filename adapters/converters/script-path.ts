/**
 * Scripts started by path (worker threads, child processes) rather than imported. In the sources
 * they sit beside the code that starts them; after tsup, at their own place under dist/, while
 * the starting code may have been bundled into an entry or a shared chunk at dist/'s root. So
 * each place a build may put them is tried, relative to the caller's `import.meta.url`.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FileconvError } from '../../src/errors.js';

export function findScript(base: string, candidates: readonly string[], what: string): URL {
  for (const candidate of candidates) {
    const url = new URL(candidate, base);
    if (existsSync(fileURLToPath(url))) return url;
  }
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
