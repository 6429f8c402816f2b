/**
 * What the soak reads of processes, straight from Linux's /proc (no ps, no extra dependency):
 * who is whose child, resident memory, open file descriptors, and each process's start time, so
 * a PID the kernel reused is never taken for a process seen earlier.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The executable's short name (/proc/<pid>/comm), e.g. "soffice.bin", "ffmpeg", "node". */
  name: string;
  /** The command line, arguments joined by spaces. */
  command: string;
  rssBytes: number;
  /** Clock ticks since boot when it started: with the PID, it names one process for good. */
  startTicks: number;
  /** The kernel's state letter: R, S, D, Z (a zombie: exited, not yet reaped), ... */
  state: string;
}

/** One process, or null when it is gone (or unreadable). */
export async function readProcess(pid: number): Promise<ProcessInfo | null> {
  try {
    const [stat, status, cmdline] = await Promise.all([
      readFile(`/proc/${pid}/stat`, 'utf8'),
      readFile(`/proc/${pid}/status`, 'utf8'),
      readFile(`/proc/${pid}/cmdline`, 'utf8'),
    ]);
    // The name in stat sits in parentheses and may hold spaces or parentheses itself.
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    const rss = /VmRSS:\s+(\d+) kB/.exec(status);
    return {
      pid,
      ppid: Number(fields[1]),
      name: stat.slice(open + 1, close),
      command: cmdline.split('\0').filter(Boolean).join(' '),
      rssBytes: rss ? Number(rss[1]) * 1024 : 0,
      startTicks: Number(fields[19]),
      state: fields[0] ?? '',
    };
  } catch {
    return null;
  }
}

/** Every process this user can see. */
export async function listProcesses(): Promise<ProcessInfo[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const found = await Promise.all(pids.map(readProcess));
  return found.filter((info): info is ProcessInfo => info !== null);
}

/** The processes below `roots` (children, grandchildren, ...), the roots excluded. */
export function descendantsOf(all: readonly ProcessInfo[], roots: readonly number[]): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const info of all) children.set(info.ppid, [...(children.get(info.ppid) ?? []), info]);
  const found: ProcessInfo[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** Open file descriptors of a process, or 0 when it is gone. */
export async function countFds(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`).catch(() => [])).length;
}

/** Whether the very process seen earlier (same PID, same start) still runs; a zombie counts as gone. */
export async function stillRunning(info: Pick<ProcessInfo, 'pid' | 'startTicks'>): Promise<boolean> {
  const now = await readProcess(info.pid);
  return now !== null && now.startTicks === info.startTicks && now.state !== 'Z';
}

/** The engine a process belongs to, by its executable, or null for the service's own. */
export function engineOf(info: ProcessInfo): string | null {
  const { name, command } = info;
  if (/^soffice|^oosplash/.test(name)) return 'libreoffice';
  if (name === 'ffmpeg' || name === 'ffprobe') return 'ffmpeg';
  if (/chrom/i.test(name) || /chromium/.test(command.split(' ')[0] ?? '')) return 'chromium';
  if (/^python/.test(name)) return command.includes('uno') ? 'libreoffice' : 'python';
  if (name === 'node' || name === 'MainThread') return 'node-child';
  if (
    /^(tesseract|gs|qpdf|rsvg-convert|bsdtar|cjxl|djxl|dcraw_emu|heif-enc|magick|convert|pdftocairo)$/.test(
      name,
    )
  )
    return name;
  if (/ebook-|calibre/.test(command)) return 'calibre';
  return name;
}

/** Where an fd points, for telling sockets from files in a leak report. */
export async function fdTargets(pid: number): Promise<string[]> {
  const names = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const targets = await Promise.all(names.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => 'gone')));
  return targets;
}
