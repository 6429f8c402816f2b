/**
 * Vitest globalSetup: the web page's script (adapters/http/web/app.js) is built from its sources
 * (adapters/http/web/src/) and not committed, so tests that serve the page build it first when
 * it is missing or older than a source. Unchanged sources leave it (and its mtime, which
 * helpers/built-package.ts compares with dist/) alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const WEB = join(ROOT, 'src', 'service', 'web');

export function webAppStale(): boolean {
  const built = join(WEB, 'app.js');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return readdirSync(join(WEB, 'src')).some((name) => statSync(join(WEB, 'src', name)).mtimeMs > builtAt);
}

export default function setup(): void {
  if (webAppStale()) {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-web.mjs')], { cwd: ROOT, stdio: 'inherit' });
  }
}
