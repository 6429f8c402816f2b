/**
 * The sRGB ICC profile a PDF/A output intent embeds: the one Ghostscript ships (Debian puts it in
 * /usr/share/color/icc/ghostscript and /usr/share/ghostscript/<version>/iccprofiles), or the file
 * GHOSTSCRIPT_ICC_PROFILE names.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FileconvError } from '../../core/errors.js';

const SHARE_DIRS = ['/usr/share', '/usr/local/share', '/opt/homebrew/share'];

async function candidates(): Promise<string[]> {
  const found: string[] = [];
  for (const share of SHARE_DIRS) {
    found.push(join(share, 'color/icc/ghostscript/srgb.icc'));
    const versions = await readdir(join(share, 'ghostscript')).catch(() => [] as string[]);
    // Newest version first: "10.00.0" sorts after "9.56.1" numerically.
    versions.sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
    for (const version of versions) found.push(join(share, 'ghostscript', version, 'iccprofiles/srgb.icc'));
  }
  return found;
}

async function isReadableFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

export async function findSrgbProfile(): Promise<string> {
  const configured = process.env.GHOSTSCRIPT_ICC_PROFILE;
  const list = configured ? [configured] : await candidates();
  for (const path of list) if (await isReadableFile(path)) return path;
  throw new FileconvError(
    'ENGINE_UNAVAILABLE',
    configured
      ? `GHOSTSCRIPT_ICC_PROFILE=${configured} is not a readable file.`
      : "PDF/A needs Ghostscript's sRGB ICC profile (srgb.icc), found nowhere; set GHOSTSCRIPT_ICC_PROFILE.",
    { details: { install: 'apt-get install ghostscript (AGPL-3.0)' } },
  );
}
