/**
 * Faults the soak injects on purpose, on a schedule it prints before it starts: engine processes
 * SIGKILLed mid-conversion (a LibreOffice worker, an ffmpeg child), a whole worker process
 * SIGKILLed and restarted as a supervisor would, Redis and the S3 server stopped for a while,
 * and the data disk filled to the last byte and freed again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Deployment } from './deployments.js';
import { fillDisk } from './disk.js';
import { descendantsOf, listProcesses, type ProcessInfo } from './procfs.js';

export interface FaultRecord {
  name: string;
  startedAt: number;
  endedAt: number;
  /** What was hit: a process, an outage's length. */
  detail: string;
  /** Why it was left out, when it was. */
  skipped?: string;
  /** An outage of a backing service, during which readiness must say "not ready". */
  outage?: 'redis' | 's3';
}

export interface PlannedFault {
  name: string;
  /** When, as a fraction of the soak's duration. */
  at: number;
  run(deployment: Deployment): Promise<Omit<FaultRecord, 'name' | 'startedAt' | 'endedAt'>>;
}

/** Waits up to `withinMs` for a process below the deployment's nodes that `matches`, then SIGKILLs it. */
async function killEngine(
  deployment: Deployment,
  matches: (info: ProcessInfo) => boolean,
  withinMs = 60_000,
): Promise<string | null> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    const roots = deployment.nodes.map((node) => node.child.pid!).filter(Boolean);
    const victim = descendantsOf(await listProcesses(), roots).find(matches);
    if (victim) {
      try {
        process.kill(victim.pid, 'SIGKILL');
        return `pid ${victim.pid} (${victim.name})`;
      } catch {
        // It ended between the look and the kill (ESRCH): wait for the next one.
      }
    }
    await sleep(100);
  }
  return null;
}

function engineKill(name: string, at: number, matches: (info: ProcessInfo) => boolean): PlannedFault {
  return {
    name,
    at,
    async run(deployment) {
      const hit = await killEngine(deployment, matches);
      return hit ? { detail: `SIGKILL ${hit}` } : { detail: '', skipped: 'no such process ran within 60 s' };
    },
  };
}

function outage(name: string, at: number, which: 'redis' | 's3', outageMs: number): PlannedFault {
  return {
    name,
    at,
    async run(deployment) {
      const target =
        which === 'redis'
          ? deployment.redis && { stop: deployment.redis.stop, start: deployment.redis.start }
          : deployment.s3 && { stop: deployment.s3.pause, start: deployment.s3.resume };
      if (!target) return { detail: '', skipped: `no ${which} in this deployment` };
      await target.stop();
      await sleep(outageMs);
      await target.start();
      return { detail: `down ${outageMs / 1000} s`, outage: which };
    },
  };
}

export function planFaults(deployment: Deployment, outageMs: number): PlannedFault[] {
  const libreoffice = engineKill('SIGKILL a LibreOffice worker', 0, (info) => info.name === 'soffice.bin');
  const ffmpeg = engineKill('SIGKILL an ffmpeg child', 0, (info) => info.name === 'ffmpeg');
  const disk: PlannedFault = {
    name: `fill the data disk for ${outageMs / 1000} s`,
    at: 0,
    async run(target) {
      if (target.scratch.unlimitedBecause) return { detail: '', skipped: target.scratch.unlimitedBecause };
      const free = await fillDisk(target.scratch.dir);
      await sleep(outageMs);
      await free();
      return { detail: `full for ${outageMs / 1000} s` };
    },
  };
  if (deployment.name === 'embedded') {
    return [
      { ...libreoffice, at: 0.2 },
      { ...ffmpeg, at: 0.35 },
      { ...disk, at: 0.55 },
    ];
  }
  const worker: PlannedFault = {
    name: 'SIGKILL a worker process, then start it again',
    at: 0.3,
    async run(target) {
      const victim = target.nodes.find((node) => node.role === 'worker');
      if (!victim || !target.restartWorker) return { detail: '', skipped: 'no worker process' };
      const pid = victim.child.pid;
      victim.killedOnPurpose = true;
      victim.child.kill('SIGKILL');
      await sleep(2000); // a supervisor's restart delay
      await target.restartWorker(victim);
      return { detail: `SIGKILL pid ${pid} (${victim.name}), restarted 2 s later` };
    },
  };
  return [
    { ...libreoffice, at: 0.1 },
    { ...ffmpeg, at: 0.2 },
    worker,
    outage(`stop Redis for ${outageMs / 1000} s`, 0.42, 'redis', outageMs),
    outage(`stop the S3 server for ${outageMs / 1000} s`, 0.58, 's3', outageMs),
    { ...disk, at: 0.74 },
  ];
}

/** Runs the faults one after another, each at its time (or right after the one before). */
export async function runFaults(
  deployment: Deployment,
  planned: readonly PlannedFault[],
  startedAt: number,
  durationMs: number,
  onRecord: (record: FaultRecord) => void,
  cancelled: () => boolean,
): Promise<FaultRecord[]> {
  const records: FaultRecord[] = [];
  for (const fault of planned) {
    const wait = startedAt + fault.at * durationMs - Date.now();
    if (wait > 0) await sleep(wait);
    if (cancelled()) break;
    const began = Date.now();
    let result: Omit<FaultRecord, 'name' | 'startedAt' | 'endedAt'>;
    try {
      result = await fault.run(deployment);
    } catch (error) {
      result = { detail: '', skipped: `it could not be injected: ${(error as Error).message}` };
    }
    const record: FaultRecord = { name: fault.name, startedAt: began, endedAt: Date.now(), ...result };
    records.push(record);
    onRecord(record);
  }
  return records;
}
