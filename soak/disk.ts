/**
 * The soak's scratch disk: a size-limited tmpfs (when this user may mount one; root may) that
 * holds the service's data and temp dirs, so "the disk is full" can be made true and false again
 * without touching the machine's real disk. Without the privilege the soak still runs, on plain
 * directories, and says that the full-disk fault was left out.
 */
import { execFile } from 'node:child_process';
import { open, readdir, rm, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ScratchDisk {
  dir: string;
  /** Why there is no size-limited filesystem (and so no full-disk fault), or null when there is. */
  unlimitedBecause: string | null;
  release(): Promise<void>;
}

/** Mounts a tmpfs of `megabytes` on `dir` (which must exist), or explains why not. */
export async function mountScratchDisk(dir: string, megabytes: number): Promise<ScratchDisk> {
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir]);
  } catch (error) {
    const reason = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    return { dir, unlimitedBecause: `no tmpfs could be mounted here (${reason})`, release: async () => {} };
  }
  return {
    dir,
    unlimitedBecause: null,
    async release() {
      // Lazily: a process that still holds a file there must not keep the soak from ending.
      await run('umount', ['-l', dir]).catch(() => {});
    },
  };
}

/** Files and bytes under `dir` (what the walk could read; the tree changes while it walks). */
export async function dirUsage(dir: string): Promise<{ files: number; bytes: number }> {
  const usage = { files: 0, bytes: 0 };
  const walk = async (current: string): Promise<void> => {
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        await walk(full);
        continue;
      }
      usage.files += 1;
      usage.bytes += await stat(full).then(
        (stats) => stats.size,
        () => 0,
      );
    }
  };
  await walk(dir);
  return usage;
}

/**
 * The paths one level below `dir`, and two below fileconv's own dirs (a TMPDIR's
 * fileconv-office-x and its worker-n, a data dir's tmp/<pid> and its job dirs): the temp dirs a
 * process makes, without the files that come and go inside a live engine's profile.
 */
export async function tempEntries(dir: string): Promise<string[]> {
  const first = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of first) {
    const full = path.join(dir, entry.name);
    found.push(full);
    // Into fileconv's own dirs (a pool's workers, a process's job dirs), not into an engine's
    // profile, whose files come and go while it runs.
    if (entry.isDirectory() && /^(fileconv-|\d+$)/.test(entry.name)) {
      found.push(...(await readdir(full).catch(() => [])).map((name) => path.join(full, name)));
    }
  }
  return found;
}

/**
 * Fills the filesystem holding `dir` with a ballast file until at most `leaveBytes` are free.
 * Returns a function that frees it again.
 */
export async function fillDisk(dir: string, leaveBytes = 64 * 1024): Promise<() => Promise<void>> {
  const ballast = path.join(dir, `ballast-${process.pid}.bin`);
  const { bavail, bsize } = await statfs(dir);
  const size = Math.max(0, bavail * bsize - leaveBytes);
  try {
    await run('fallocate', ['-l', String(size), ballast]);
  } catch {
    // No fallocate: write zeros instead, until the size or the disk's end.
    const handle = await open(ballast, 'w');
    const chunk = Buffer.alloc(4 * 1024 * 1024);
    try {
      for (let written = 0; written < size; written += chunk.length) {
        await handle.write(chunk, 0, Math.min(chunk.length, size - written));
      }
    } catch {
      // ENOSPC: full, which is the point.
    } finally {
      await handle.close();
    }
  }
  return () => rm(ballast, { force: true });
}
