/**
 * Finds the Chromium the converter drives: the configured path (option or CHROMIUM_PATH), else
 * the first of chromium, chromium-browser, google-chrome(-stable) on PATH, and its version from
 * `--version`. Nothing here starts a browser beyond that one `--version`, once.
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import { installLine } from '../../engine-packages.js';

const run = promisify(execFile);

/** The system package and the npm package the converter needs. */
export const CHROMIUM_INSTALL = `apt-get install chromium; ${installLine('chromium')}`;

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function onPath(name: string): Promise<string | undefined> {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir && isAbsolute(dir));
  // /usr/bin is where Debian puts it, and a service's PATH may be minimal.
  for (const dir of [...dirs, '/usr/bin']) {
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The browser's path, or why there is none. */
export async function locateChromium(configured: string | undefined): Promise<string | { missing: string }> {
  const wanted = configured ?? (process.env.CHROMIUM_PATH || undefined);
  if (wanted) {
    return (await isExecutable(wanted)) ? wanted : { missing: `Chromium is not executable at ${wanted}` };
  }
  for (const name of CANDIDATES) {
    const found = await onPath(name);
    if (found) return found;
  }
  return { missing: `no Chromium found (looked for ${CANDIDATES.join(', ')} on PATH; set CHROMIUM_PATH)` };
}

/** "Chromium 156.0.8078.108" from `--version`; undefined when it does not answer. */
export async function chromiumVersion(path: string): Promise<string | undefined> {
  try {
    const { stdout } = await run(path, ['--version'], { timeout: 15_000 });
    return /(Chromium|Google Chrome)[^\n]*?\d+(\.\d+)+/.exec(stdout)?.[0]?.trim();
  } catch {
    return undefined;
  }
}
