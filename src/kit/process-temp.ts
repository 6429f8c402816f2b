/**
 * Temp dirs named after the process that owns them, so a process restarted after a SIGKILL (which
 * runs no cleanup) removes what its predecessor left, and never a dir of a process still running,
 * such as another fileconv sharing the same TMPDIR. A dead owner's pid reused by an unrelated
 * process only keeps its dir until that process ends: a leak, never a dir removed under a live
 * owner.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** True when a process `pid` exists (ESRCH: it does not; EPERM: it runs as another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A fresh dir `<parent>/<prefix>-<pid>-XXXXXX` of this process's own, made after removing the
 * `<prefix>-<pid>-*` dirs there whose pid no longer runs. A dir that cannot be removed (another
 * user's) is left alone: the sweep never fails the caller.
 */
export async function ownedTempDir(parent: string, prefix: string): Promise<string> {
  await removeDeadOwners(parent, prefix);
  return mkdtemp(join(parent, `${prefix}-${process.pid}-`));
}

/** Removes `<parent>/<prefix>-<pid>-*` whose pid no longer runs; returns the names removed. */
export function removeDeadOwners(parent: string, prefix: string): Promise<string[]> {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return removeWhereDead(parent, new RegExp(`^${escaped}-(\\d+)-[^/]+$`));
}

/**
 * Removes every `<parent>/fileconv-<engine>-<pid>-*` (ownedTempDir's names, whatever engine made
 * them) whose pid no longer runs. A process started again after a SIGKILL calls it at start, so
 * what its predecessor's LibreOffice and Chromium left goes at once, not only when the new
 * process first uses those engines (which it may never do).
 */
export function removeDeadProcessDirs(parent: string): Promise<string[]> {
  return removeWhereDead(parent, /^fileconv-[a-z]+-(\d+)-[^/]+$/);
}

/** Removes the entries of `parent` whose name matches `pattern` (the pid its first group) and whose pid no longer runs. */
async function removeWhereDead(parent: string, pattern: RegExp): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(parent).catch(() => [])) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || isRunning(pid)) continue;
    try {
      await rm(join(parent, name), { recursive: true, force: true, maxRetries: 2 });
      removed.push(name);
    } catch {
      // another user's dir, or one being removed: not ours to fight over
    }
  }
  return removed;
}
