/**
 * Finds what the LibreOffice converter runs: the soffice.bin binary, a Python that can
 * `import uno` (for the warm pool's bridge), the bridge script itself, and LibreOffice's version.
 *
 * soffice.bin is run directly, not the `soffice` shell script: the script execs oosplash, which
 * runs soffice.bin as its own child, so the pid we hold would not be the process that uses the
 * memory, and killing it would orphan the real one. Nothing here starts LibreOffice itself
 * except `--version`, once, for available().
 */
import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { findOnPath, isExecutable } from '../../kit/executables.js';
import { findPackageFile } from '../../kit/script-path.js';

const run = promisify(execFile);

export const LIBREOFFICE_INSTALL =
  'apt-get install libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui libreoffice-draw-nogui libreoffice-base-drivers python3-uno';

/**
 * soffice.bin: beside the real path of `soffice` (Debian links /usr/bin/soffice to the script in
 * /usr/lib/libreoffice/program), or the given binary itself when nothing sits beside it (macOS).
 */
export async function locateSoffice(configured: string | undefined): Promise<string | { missing: string }> {
  const wanted = configured ?? process.env.SOFFICE_PATH;
  const launcher = wanted
    ? (await isExecutable(wanted))
      ? wanted
      : undefined
    : ((await findOnPath('soffice')) ?? (await findOnPath('libreoffice')));
  if (!launcher) {
    return { missing: wanted ? `soffice is not executable at ${wanted}` : 'soffice is not on PATH' };
  }
  const real = await realpath(launcher);
  if (real.endsWith('.bin')) return real;
  const beside = join(dirname(real), 'soffice.bin');
  return (await isExecutable(beside)) ? beside : real;
}

/** "7.4.7.2" from `soffice.bin --version` ("LibreOffice 7.4.7.2 40(Build:2)"); undefined if it fails. */
export async function sofficeVersion(soffice: string): Promise<string | undefined> {
  try {
    const { stdout } = await run(soffice, ['--version'], { timeout: 30_000, maxBuffer: 64 * 1024 });
    return /(\d+\.\d+[.\d]*)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

/**
 * A Python whose `import uno` works: the configured one, else /usr/bin/python3 (Debian's
 * python3-uno installs there, and a pyenv or venv python3 earlier on PATH does not see it),
 * else python3 on PATH, else the Python bundled in LibreOffice's program dir (official builds).
 */
export async function locateUnoPython(
  configured: string | undefined,
  soffice: string,
): Promise<string | { missing: string }> {
  const programDir = dirname(soffice);
  const candidates = configured
    ? [configured]
    : ['/usr/bin/python3', await findOnPath('python3'), join(programDir, 'python')].filter(
        (path): path is string => path !== undefined,
      );
  const tried: string[] = [];
  for (const candidate of [...new Set(candidates)]) {
    if (!(await isExecutable(candidate))) continue;
    tried.push(candidate);
    try {
      await run(candidate, ['-c', 'import uno, unohelper'], { timeout: 30_000 });
      return candidate;
    } catch {
      // No uno module here: try the next one.
    }
  }
  return {
    missing: `no Python with the uno module (python3-uno) found${tried.length ? ` (tried ${tried.join(', ')})` : ''}`,
  };
}

/** The bridge script: beside this file in the sources, copied to the same place under dist/ by the build. */
export function bridgeScript(): string | undefined {
  return findPackageFile(import.meta.url, ['src/converters/libreoffice/uno-bridge.py']);
}
