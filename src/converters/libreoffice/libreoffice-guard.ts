/**
 * What LibreOffice leaves must not outlive this process: every live soffice and bridge pid is
 * SIGKILLed, and the pool's temp dirs and soffice's sockets removed, synchronously on 'exit' (an
 * 'exit' handler can do nothing asynchronous). A process killed outright runs no handler; then
 * PR_SET_PDEATHSIG, set by the bridge, ends the processes, and only files may remain.
 * Also reads a process's CPU ticks, for the CPU time a conversion reports.
 */
import { readFileSync, rmSync } from 'node:fs';

const guarded = new Set<number>();
const paths = new Set<string>();

function atExit(): void {
  for (const pid of guarded) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  for (const path of paths) rmSync(path, { recursive: true, force: true });
}

function arm(): void {
  if (guarded.size + paths.size === 1) process.on('exit', atExit);
}

function disarm(): void {
  if (guarded.size + paths.size === 0) process.off('exit', atExit);
}

/** SIGKILL `pid` if this process exits while it runs. */
export function guardPid(pid: number): void {
  if (guarded.has(pid)) return;
  guarded.add(pid);
  arm();
}

export function unguardPid(pid: number): void {
  if (guarded.delete(pid)) disarm();
}

/** Remove `path` (a pool's temp dir, a killed soffice's socket) if this process exits first. */
export function guardPath(path: string): void {
  if (paths.has(path)) return;
  paths.add(path);
  arm();
}

export function unguardPath(path: string): void {
  if (paths.delete(path)) disarm();
}

/** utime + stime of a process, in clock ticks (Linux /proc); undefined when unreadable. */
export function processTicks(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}
