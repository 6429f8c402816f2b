/**
 * Memory of this process and every process it started (a browser and its zygotes, GPU process and
 * renderers), read from /proc: a browser's memory lives in its children, which
 * process.memoryUsage() does not see. Linux only.
 */
import { readdir, readFile } from 'node:fs/promises';

export interface TreeMemory {
  /** This process's resident set, bytes. */
  selfRss: number;
  /** The resident sets of all its descendants, summed, bytes (shared pages count once per process). */
  childrenRss: number;
  /** Proportional set size of the descendants, bytes: shared pages split between their sharers. */
  childrenPss: number;
  /** How many descendants are alive. */
  children: number;
}

/** A /proc/<pid>/status or smaps_rollup field in kB, as bytes; 0 when the process is gone. */
async function procField(pid: number, file: string, field: string): Promise<number> {
  const text = await readFile(`/proc/${pid}/${file}`, 'utf8').catch(() => '');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) * 1024 : 0;
}

/** The parent of every live process. */
async function parents(): Promise<Map<number, number>> {
  const parentOf = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined);
    // The command name (field 2) may hold spaces and parentheses: the fields after the last ')'.
    const after = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (after) parentOf.set(Number(entry), Number(after[1]));
  }
  return parentOf;
}

/** The descendants of `root` (children, grandchildren...). */
export async function descendants(root: number): Promise<number[]> {
  const parentOf = await parents();
  const found: number[] = [];
  let generation = [root];
  while (generation.length > 0) {
    const next = [...parentOf].filter(([, parent]) => generation.includes(parent)).map(([pid]) => pid);
    found.push(...next);
    generation = next;
  }
  return found;
}

export async function treeMemory(root = process.pid): Promise<TreeMemory> {
  const pids = await descendants(root);
  const rss = await Promise.all(pids.map((pid) => procField(pid, 'status', 'VmRSS')));
  const pss = await Promise.all(pids.map((pid) => procField(pid, 'smaps_rollup', 'Pss')));
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  return {
    selfRss: process.memoryUsage.rss(),
    childrenRss: sum(rss),
    childrenPss: sum(pss),
    children: rss.filter((value) => value > 0).length,
  };
}
