/**
 * CPU time (user + system) of one child process, from the kernel's accounting, not wall time.
 *
 * Node has no per-child rusage, and every single source is flawed: polling /proc/<pid>/stat
 * (utime + stime, all threads) misses whatever runs after the last reading, because the child is
 * reaped and its /proc entry gone the moment it exits; /proc/self/stat's cutime + cstime (children
 * waited for) is exact for one child but also counts any other child reaped meanwhile; ffmpeg's
 * own `-benchmark` covers only its transcode loop (measured: ~25 of ~120 ms for a small clip,
 * library loading and input opening are left out); /usr/bin/time is not always installed.
 *
 * So the meter brackets the truth. It polls /proc/<pid>/stat (every 100 ms, and once more when
 * ffmpeg reports `progress=end`, just before it exits), giving a lower bound `last`; the cutime
 * delta over the child's life is an upper bound. The child cannot have used more than
 * `last + gap x cores` (gap: wall time from the last reading to the exit), so the result is
 * min(cutime delta, that bound): exact when nothing else ends meanwhile (measured equal to
 * /usr/bin/time within one tick), off by at most a few ms of `gap` otherwise. Without /proc (not
 * Linux) the meter reports nothing and the runner falls back to ffmpeg's `-benchmark` figure.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';

const POLL_MS = 100;

/** Kernel ticks per second of /proc times (USER_HZ): `getconf CLK_TCK`, 100 on Linux in practice. */
let ticksPerSecond: Promise<number> | undefined;
export function clockTicks(): Promise<number> {
  ticksPerSecond ??= promisify(execFile)('getconf', ['CLK_TCK'], { timeout: 2000 }).then(
    ({ stdout }) => Number.parseInt(stdout, 10) || 100,
    () => 100,
  );
  return ticksPerSecond;
}

/** Fields after the command name of /proc/<pid>/stat (the name may hold spaces and parentheses). */
function statFields(path: string): string[] | undefined {
  try {
    const text = readFileSync(path, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** utime + stime (fields 14, 15) of a process, in ticks. */
function processTicks(pid: number): number | undefined {
  const fields = statFields(`/proc/${pid}/stat`);
  return fields ? Number(fields[11]) + Number(fields[12]) : undefined;
}

/** cutime + cstime (fields 16, 17) of this process: its children that were waited for, in ticks. */
function reapedChildrenTicks(): number | undefined {
  const fields = statFields('/proc/self/stat');
  return fields ? Number(fields[13]) + Number(fields[14]) : undefined;
}

export class ChildCpuMeter {
  private readonly reapedBefore = reapedChildrenTicks();
  private pid: number | undefined;
  private last: number | undefined;
  private lastAt = performance.now();
  private timer: NodeJS.Timeout | undefined;

  /** Call right after spawning; starts polling. */
  watch(pid: number): void {
    this.pid = pid;
    this.sample();
    this.timer = setInterval(() => this.sample(), POLL_MS);
    this.timer.unref();
  }

  /** Reads the child's times now (while it is known to be alive, e.g. at `progress=end`). */
  sample(): void {
    if (this.pid === undefined) return;
    const ticks = processTicks(this.pid);
    if (ticks === undefined || !Number.isFinite(ticks)) return;
    this.last = Math.max(this.last ?? 0, ticks);
    this.lastAt = performance.now();
  }

  /** Call once the child has exited (and been reaped: Node's 'exit' event). Milliseconds, or undefined. */
  async finish(): Promise<number | undefined> {
    const exitedAt = performance.now();
    clearInterval(this.timer);
    const reapedAfter = reapedChildrenTicks();
    const perSecond = await clockTicks();
    if (this.last === undefined) return undefined;
    const msPerTick = 1000 / perSecond;
    let ticks = this.last;
    if (this.reapedBefore !== undefined && reapedAfter !== undefined) {
      const delta = reapedAfter - this.reapedBefore;
      const bound = this.last + ((exitedAt - this.lastAt) * availableParallelism()) / msPerTick + 1;
      ticks = Math.max(this.last, Math.min(delta, bound));
    }
    return Math.round(ticks * msPerTick);
  }

  /** Stops polling without a result (spawn failed). */
  stop(): void {
    clearInterval(this.timer);
  }
}
