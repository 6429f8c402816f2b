/**
 * What a Chromium killed with its fileconv process (SIGKILL runs no cleanup) leaves in TMPDIR, and
 * how the next launch removes it.
 *
 * Playwright makes the profile, `playwright_chromiumdev_profile-XXXXXX`, in os.tmpdir() itself and
 * removes it on a clean close only. launchServer() takes no option for where it goes (its
 * userDataDir turns the launch into a persistent context, a private `_userDataDir` option there),
 * so the pool sweeps the profiles no running process uses: on Linux, a profile is in use while a
 * process's /proc/<pid>/cmdline holds `--user-data-dir=<it>` (Chromium and its zygotes do, until
 * they exit; our Chromium dies with its fileconv, its pipe to it closed). Another user's
 * profiles are not ours (skipped), profiles younger than a minute may be between Playwright's
 * mkdtemp and Chromium's start (skipped), and without /proc nothing is swept. /proc is read
 * only when a profile old enough is there, once per pool: every /proc/<pid>/cmdline of 150
 * processes took 16-25 ms (80 ms the first time) on a busy 2-core machine.
 *
 * Playwright's artifacts dir (downloads, traces; `playwright-artifacts-XXXXXX` in TMPDIR unless
 * given, equally left by a SIGKILL) goes into a dir of the pool's own named after its process
 * (process-temp.ts), swept by pid like the LibreOffice pool's. Chromium's own
 * `org.chromium.Chromium.XXXXXX` (its singleton socket) stays in TMPDIR: Chromium removes it when
 * it exits on its closed pipe, and a TMPDIR of ours would push the socket's path past the 108
 * bytes a unix socket may have (Chromium then aborts at start).
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const PROFILE_PREFIX = 'playwright_chromiumdev_profile-';
/** A profile younger than this may not have its Chromium yet. */
export const PROFILE_MIN_AGE_MS = 60_000;

export interface ProfileSweep {
  /** The profiles removed. */
  removed: string[];
  /**
   * Profiles left for being too young to judge (a supervisor restarts a killed process within
   * seconds, so its predecessor's profile is one of them): worth a second sweep a minute later.
   */
  young: number;
}

/**
 * Removes the Playwright Chromium profiles in `tempDir` that no running process uses and that are
 * this user's and older than a minute. Nothing without /proc.
 */
export async function sweepChromiumProfiles(tempDir: string, now = Date.now()): Promise<ProfileSweep> {
  const result: ProfileSweep = { removed: [], young: 0 };
  const names = (await readdir(tempDir).catch(() => [] as string[])).filter((name) =>
    name.startsWith(PROFILE_PREFIX),
  );
  if (names.length === 0) return result;
  const uid = process.getuid?.();
  const candidates: string[] = [];
  for (const name of names) {
    const info = await stat(join(tempDir, name)).catch(() => undefined);
    if (!info?.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
    if (now - info.mtimeMs < PROFILE_MIN_AGE_MS) result.young++;
    else candidates.push(name);
  }
  if (candidates.length === 0) return result;
  const inUse = await userDataDirsInUse();
  if (!inUse) return result;
  const { removed } = result;
  for (const name of candidates) {
    const path = join(tempDir, name);
    if (inUse.has(path)) continue;
    try {
      await rm(path, { recursive: true, force: true, maxRetries: 2 });
      removed.push(name);
    } catch {
      // being removed by its own Playwright, or not ours: left alone
    }
  }
  return result;
}

/** The `--user-data-dir` of every process this user can see; undefined without /proc. */
async function userDataDirsInUse(): Promise<Set<string> | undefined> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
    await stat('/proc/self/cmdline');
  } catch {
    return undefined;
  }
  const dirs = new Set<string>();
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
        for (const arg of cmdline.split('\0'))
          if (arg.startsWith('--user-data-dir=')) dirs.add(arg.slice('--user-data-dir='.length));
      }),
  );
  return dirs;
}
