/**
 * What the soak watches while it runs: every few seconds, each service node's resident memory
 * and open file descriptors, the engine processes below it (LibreOffice, ffmpeg, Chromium, the
 * isolation pool's node children, ...) by count and memory, and the size of the temp and data
 * dirs; every second, from a worker thread, how fast /api/health answers and what /api/ready says.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Deployment } from './deployments.js';
import { dirUsage, tempEntries } from './disk.js';
import { countFds, descendantsOf, engineOf, listProcesses, type ProcessInfo } from './procfs.js';

export interface NodeSample {
  name: string;
  pid: number;
  rssBytes: number;
  fds: number;
  /** Its temp dirs: TMPDIR and the data dir's tmp/, two levels deep below fileconv's own dirs. */
  tempDirs: string[];
  /** Its isolated-conversion processes alive now (node children), each with a TMPDIR of its own. */
  isolatedChildren: number;
}

export interface Sample {
  at: number;
  nodes: NodeSample[];
  /** Engine processes by engine: how many, and their memory together. */
  engines: Record<string, { count: number; rssBytes: number }>;
  temp: { files: number; bytes: number };
  data: { files: number; bytes: number };
}

export interface Probe {
  at: number;
  url: string;
  health: { status: number; ms: number };
  ready: { status: number; ms: number };
}

export interface Monitor {
  samples: Sample[];
  probes: Probe[];
  /** Every engine process seen below a node, by pid (with its start time, against PID reuse). */
  enginesSeen: Map<number, ProcessInfo & { engine: string }>;
  sampleNow(): Promise<Sample>;
  stop(): Promise<void>;
}

async function usageOf(dirs: readonly string[]) {
  const all = await Promise.all(dirs.map(dirUsage));
  return {
    files: all.reduce((sum, one) => sum + one.files, 0),
    bytes: all.reduce((sum, one) => sum + one.bytes, 0),
  };
}

export function startMonitor(deployment: Deployment, options: { sampleMs: number }): Monitor {
  const samples: Sample[] = [];
  const probes: Probe[] = [];
  const enginesSeen = new Map<number, ProcessInfo & { engine: string }>();

  async function sampleNow(): Promise<Sample> {
    const all = await listProcesses();
    const live = deployment.nodes.filter(
      (node) => node.child.pid !== undefined && node.child.exitCode === null,
    );
    const nodes: NodeSample[] = await Promise.all(
      live.map(async (node) => {
        const pid = node.child.pid!;
        const info = all.find((process) => process.pid === pid);
        const tempDirs = (
          await Promise.all([tempEntries(node.tempDir), tempEntries(join(node.dataDir, 'tmp'))])
        ).flat();
        const isolatedChildren = all.filter(
          (process) => process.ppid === pid && engineOf(process) === 'node-child',
        ).length;
        return {
          name: node.name,
          pid,
          rssBytes: info?.rssBytes ?? 0,
          fds: await countFds(pid),
          tempDirs,
          isolatedChildren,
        };
      }),
    );
    const engines: Sample['engines'] = {};
    for (const info of descendantsOf(
      all,
      live.map((node) => node.child.pid!),
    )) {
      const engine = engineOf(info);
      if (engine === null) continue;
      enginesSeen.set(info.pid, { ...info, engine });
      const entry = engines[engine] ?? { count: 0, rssBytes: 0 };
      engines[engine] = { count: entry.count + 1, rssBytes: entry.rssBytes + info.rssBytes };
    }
    const sample: Sample = {
      at: Date.now(),
      nodes,
      engines,
      temp: await usageOf(deployment.nodes.map((node) => node.tempDir)),
      data: await usageOf(deployment.nodes.map((node) => node.dataDir)),
    };
    samples.push(sample);
    return sample;
  }

  let stopped = false;
  const sampling = (async () => {
    while (!stopped) {
      await sampleNow().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, options.sampleMs));
    }
  })();

  const prober = new Worker(new URL('./prober.mjs', import.meta.url), {
    workerData: { urls: deployment.urls, intervalMs: 1000 },
  });
  const proberStopped = new Promise<void>((resolve) => {
    prober.on('message', (message: Probe | 'stopped') => {
      if (message === 'stopped') resolve();
      else probes.push(message);
    });
    prober.once('exit', () => resolve());
  });

  return {
    samples,
    probes,
    enginesSeen,
    sampleNow,
    async stop() {
      stopped = true;
      prober.postMessage('stop');
      await proberStopped;
      await prober.terminate();
      await sampling;
    },
  };
}
