/**
 * Finds the Chromium the converter drives: the configured path (option or CHROMIUM_PATH), else
 * the first of chromium, chromium-browser, google-chrome(-stable) on PATH, and its version from
 * `--version`. Nothing here starts a browser beyond that one `--version`, once.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { installLine } from '../../kit/engine-packages.js';
import { findOnPath, isExecutable } from '../../kit/executables.js';

const run = promisify(execFile);

/** The system package and the npm package the converter needs. */
export const CHROMIUM_INSTALL = `apt-get install chromium; ${installLine('chromium')}`;

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The browser's path, or why there is none. */
export async function locateChromium(configured: string | undefined): Promise<string | { missing: string }> {
  const wanted = configured ?? (process.env.CHROMIUM_PATH || undefined);
  if (wanted) {
    return (await isExecutable(wanted)) ? wanted : { missing: `Chromium is not executable at ${wanted}` };
  }
  for (const name of CANDIDATES) {
    const found = await findOnPath(name, ['/usr/bin']);
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
