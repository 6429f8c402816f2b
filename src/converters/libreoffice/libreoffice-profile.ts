/**
 * The private LibreOffice profile (UserInstallation) every soffice gets, pool worker or cold run,
 * and what a killed soffice leaves behind that only we can clean.
 *
 * One profile per process: LibreOffice keeps a single-instance lock and IPC pipe per profile, and
 * two conversions sharing one silently lose outputs. The profile is written before the first
 * start with the security settings below, so they hold from the very first document.
 */
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { guardPath, unguardPath } from './libreoffice-guard.js';

/**
 * Measured with LibreOffice 7.4 against a docx linking http://127.0.0.1:<port>/x.png (blip
 * r:link and r:embed with TargetMode="External") and an HTML page with <img>, <link
 * rel=stylesheet>, @import, <iframe>, <embed>, <object> and background images:
 *
 * - By default LibreOffice fetches the linked images and the stylesheet (even UpdateDocMode
 *   NO_UPDATE on load does not stop linked graphics, which load when the page is laid out).
 * - BlockUntrustedRefererLinks=true refuses every link whose referer (the document) is not a
 *   trusted location: linked images from docx, <img> and backgrounds in HTML, for http: and
 *   file: alike (an strace showed no open() of a linked local image). Not the HTML import's
 *   <link rel=stylesheet>, which sw reads through its own FileDownload without that check.
 * - So, as a second wall for such paths, every internet protocol goes through a manual proxy at
 *   127.0.0.1:1, where nothing listens: the request fails at once, the host is never resolved.
 *   Residual: a <link rel=stylesheet href="file:..."> in an HTML input is still read, as CSS
 *   only (its text can never appear in the output).
 * - Macros: MacroExecutionMode NEVER_EXECUTE is passed on every load; on top, the security level
 *   is "very high" (3: only signed macros from trusted locations, and there are none) and macro
 *   execution is disabled outright, which also covers the cold `--convert-to` path.
 */
const SETTINGS: readonly [path: string, name: string, type: string, value: string][] = [
  ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', 'xs:boolean', 'true'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'MacroSecurityLevel', 'xs:int', '3'],
  ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', 'xs:boolean', 'true'],
  ['/org.openoffice.Inet/Settings', 'ooInetProxyType', 'xs:int', '2'],
  ['/org.openoffice.Inet/Settings', 'ooInetNoProxy', 'xs:string', ''],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPProxyName', 'xs:string', '127.0.0.1'],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPProxyPort', 'xs:int', '1'],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPSProxyName', 'xs:string', '127.0.0.1'],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPSProxyPort', 'xs:int', '1'],
  ['/org.openoffice.Inet/Settings', 'ooInetFTPProxyName', 'xs:string', '127.0.0.1'],
  ['/org.openoffice.Inet/Settings', 'ooInetFTPProxyPort', 'xs:int', '1'],
  // No "document recovery" copies of what we convert, and no update checks.
  ['/org.openoffice.Office.Recovery/RecoveryInfo', 'Enabled', 'xs:boolean', 'false'],
  ['/org.openoffice.Office.Recovery/AutoSave', 'Enabled', 'xs:boolean', 'false'],
  ['/org.openoffice.Office.Common/Misc', 'UseLocking', 'xs:boolean', 'false'],
];

function registryModifications(): string {
  const items = SETTINGS.map(
    ([path, name, type, value]) =>
      `<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse" oor:type="${type}"><value>${value}</value></prop></item>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    ...items,
    '</oor:items>',
    '',
  ].join('\n');
}

export interface OfficeProfile {
  /** The directory holding the profile and soffice's own temp dir; remove it to clean up. */
  root: string;
  /** The UserInstallation URL, exactly as given to soffice (the IPC pipe name hashes it). */
  url: string;
  /** TMPDIR for soffice: its lu*.tmp scratch dirs land here instead of /tmp. */
  tmp: string;
}

/** The environment soffice runs in: its scratch dirs (lu*.tmp) in the profile's tmp, not /tmp. */
export function sofficeEnv(profile: OfficeProfile): NodeJS.ProcessEnv {
  return { ...process.env, TMPDIR: profile.tmp };
}

/** Creates `root` with a fresh profile carrying the security settings. */
export async function createProfile(root: string): Promise<OfficeProfile> {
  const user = join(root, 'profile', 'user');
  const tmp = join(root, 'tmp');
  await mkdir(user, { recursive: true });
  await mkdir(tmp, { recursive: true });
  await writeFile(join(user, 'registrymodifications.xcu'), registryModifications());
  return { root, url: pathToFileURL(join(root, 'profile')).href, tmp };
}

/**
 * The Unix sockets soffice makes in /tmp (a fixed path in LibreOffice's osl, not TMPDIR): the
 * `--accept` pipe, and the single-instance pipe named after the MD5 of the profile URL in UTF-16,
 * each byte in hex without padding (desktop/source/app/officeipcthread.cxx CreateMD5FromString).
 * soffice removes both when it exits normally; after a SIGKILL they stay.
 */
export function pipeSockets(profileUrl: string, acceptPipe?: string): string[] {
  const uid = process.getuid?.() ?? 0;
  const digest = createHash('md5').update(Buffer.from(profileUrl, 'utf16le')).digest();
  const hash = [...digest].map((byte) => byte.toString(16)).join('');
  const sockets = [join('/tmp', `OSL_PIPE_${uid}_SingleOfficeIPC_${hash}`)];
  if (acceptPipe) sockets.push(join('/tmp', `OSL_PIPE_${uid}_${acceptPipe}`));
  return sockets;
}

/** Has the sockets of a soffice on `profile` removed if this process exits while it runs. */
export function guardSockets(profile: OfficeProfile, acceptPipe?: string): void {
  for (const socket of pipeSockets(profile.url, acceptPipe)) guardPath(socket);
}

/** Removes a profile dir and the sockets a killed soffice left. Never throws. */
export async function removeProfile(profile: OfficeProfile, acceptPipe?: string): Promise<void> {
  const sockets = pipeSockets(profile.url, acceptPipe);
  await Promise.all([
    rm(profile.root, { recursive: true, force: true, maxRetries: 3 }),
    ...sockets.map((socket) => rm(socket, { force: true })),
  ]).catch(() => {});
  for (const socket of sockets) unguardPath(socket);
}
