/**
 * Scripts started by path (worker threads, child processes) rather than imported. In the sources
 * they sit beside the code that starts them; after tsup, at their own place under dist/, while
 * the starting code may have been bundled into an entry or a shared chunk at dist/'s root. So
 * each place a build may put them is tried, relative to the caller's `import.meta.url`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FileconvError } from '../../src/errors.js';

export function findScript(base: string, candidates: readonly string[], what: string): URL {
  for (const candidate of candidates) {
    const url = new URL(candidate, base);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new FileconvError('INTERNAL', `${what} is missing from the installation`);
}
