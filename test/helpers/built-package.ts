/**
 * Tests that run the built package (dist/, as npm installs it) need it built from the sources
 * they test: CI builds it in `npm ci` (the prepare script); locally, `npm run build`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

/** Throws, naming the newest source, when dist/ is missing or older than a source file. */
export function assertBuiltPackageFresh(): void {
  const built = join(ROOT, 'dist/src/index.js');
  const stale = newestSource(['src', 'client', 'bin']);
  if (!existsSync(built) || statSync(built).mtimeMs < stale.mtimeMs) {
    throw new Error(
      `dist/ is older than ${stale.path}: run \`npm run build\` (this test runs the built package)`,
    );
  }
}

function newestSource(dirs: string[]): { path: string; mtimeMs: number } {
  let newest = { path: '', mtimeMs: 0 };
  for (const dir of dirs) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      const { mtimeMs } = statSync(path);
      if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
    }
  }
  return newest;
}
