/**
 * What must hold at the end of a soak, each check with what it found. `kind` says what a check
 * is about; the test's 60-second soak asserts the counts, states and leaks and only prints the
 * timing and memory ones (a short run on a shared machine proves nothing about those).
 */
import { SERVICE_FAULT_CODES } from '../src/core/policy/settlement.js';
import { statusOfCode } from './client.js';
import type { FaultRecord } from './faults.js';
import type { Attempt, Ledger } from './ledger.js';
import type { NodeSample, Probe, Sample } from './monitor.js';

export interface Check {
  name: string;
  kind: 'counts' | 'states' | 'leaks' | 'timing' | 'memory';
  ok: boolean;
  detail: string;
}

export interface CheckInput {
  ledger: Ledger;
  faults: readonly FaultRecord[];
  probes: readonly Probe[];
  /** After warm-up, before load; and after the drain, once idle. */
  baseline: Sample;
  final: Sample;
  /** Samples taken while the clients ran. */
  loadSamples: readonly Sample[];
  /** Per client: conversions /api/usage counts against expected charges. */
  usage: { client: string; used: number; expected: number; uncertain: number }[];
  /** Engine processes still running after the service stopped. */
  survivors: string[];
  /** Nodes that exited while they should have run. */
  unexpectedExits: string[];
}

const FAULT_STATUSES = new Set([500, 503, 504, 507]);
/**
 * Server-side codes a 5xx may end in; INTERNAL never (that is a bug). A timeout is a 504 whoever
 * caused it (an input that spins is charged, core/policy/settlement.ts, but still answers 504).
 */
const FAULT_CODES = new Set(
  [...SERVICE_FAULT_CODES, 'NO_SPACE', 'CONVERSION_TIMEOUT'].filter((code) => code !== 'INTERNAL'),
);

const sample = <T>(list: readonly T[], count = 5) => list.slice(0, count);

/**
 * Temp dirs left behind, per node. A node that ran throughout must end with no more entries than
 * it had before the load (names may change: a killed LibreOffice worker's profile is made anew
 * under another number). A node restarted mid-run has dirs of its own, named by its new pid and
 * as many as its pools grew to, so it is held to this instead: nothing named by its
 * predecessor's pid remains (the new process sweeps those), and no more unnamed entries (an
 * engine's profile) than before.
 */
export function tempLeaks(baseline: Sample, final: Sample): string[] {
  const leaks: string[] = [];
  const list = (dirs: readonly string[]) => dirs.slice(0, 8).join(', ');
  for (const sampled of final.nodes) {
    const beforeSampled = baseline.nodes.find((b) => b.name === sampled.name);
    if (!beforeSampled) continue;
    // An isolated child's TMPDIR lives as long as the child, and the pools grow and shrink under
    // load: those dirs are held to the children alive, the rest to the rules below.
    const childDirs = sampled.tempDirs.filter(isChildDir);
    if (childDirs.length > sampled.isolatedChildren) {
      leaks.push(
        `${sampled.name}: ${childDirs.length} isolated children's temp dirs for ${sampled.isolatedChildren} children alive: ${list(childDirs)}`,
      );
    }
    const node = withoutChildDirs(sampled);
    const before = withoutChildDirs(beforeSampled);
    if (before.pid === node.pid) {
      if (node.tempDirs.length > before.tempDirs.length) {
        const added = node.tempDirs.filter((dir) => !before.tempDirs.includes(dir));
        const gone = before.tempDirs.filter((dir) => !node.tempDirs.includes(dir));
        leaks.push(
          `${node.name}: ${before.tempDirs.length} temp entries before the load, ${node.tempDirs.length} after; new: ${list(added)}; gone: ${list(gone)}`,
        );
      }
      continue;
    }
    const namedBy = (pid: number) => new RegExp(`-${pid}-|/${pid}(?:/|$)`);
    const left = node.tempDirs.filter((dir) => namedBy(before.pid).test(dir));
    if (left.length > 0) {
      leaks.push(
        `${node.name} (restarted): its predecessor's (pid ${before.pid}) temp dirs remain: ${list(left)}`,
      );
    }
    const unnamed = (dirs: readonly string[]) =>
      dirs.filter((dir) => !namedBy(before.pid).test(dir) && !namedBy(node.pid).test(dir));
    if (unnamed(node.tempDirs).length > unnamed(before.tempDirs).length) {
      leaks.push(
        `${node.name} (restarted): ${unnamed(node.tempDirs).length} engine temp entries after, ${unnamed(before.tempDirs).length} before: ${list(unnamed(node.tempDirs))}`,
      );
    }
  }
  return leaks;
}
/** An isolated child's TMPDIR, `fileconv-isolated-<pid>-XXXXXX` then `child-N` (kit/isolation/child-process.ts). */
const isChildDir = (dir: string) => /\/fileconv-isolated-\d+-[^/]+\/child-\d+$/.test(dir);
const withoutChildDirs = (node: NodeSample): NodeSample => ({
  ...node,
  tempDirs: node.tempDirs.filter((dir) => !isChildDir(dir)),
});

/** One attempt for a check's message; its clock times line up with the fault log's. */
const describe = (attempt: Attempt) => {
  const clock = (at: number) => new Date(at).toISOString().slice(11, 19);
  return `${attempt.label} flow ${attempt.flow} (${clock(attempt.startedAt)}-${clock(attempt.endedAt)}): ${attempt.outcome} ${attempt.status ?? ''} ${attempt.code ?? ''} ${attempt.problem ?? ''}`.trim();
};
/** The least-squares line through `points` (time, value): its rise over `spanMs`, relative to the mean. */
export function trendGrowth(points: readonly (readonly [number, number])[], spanMs: number): number {
  const n = points.length;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let numerator = 0;
  let denominator = 0;
  for (const [x, y] of points) {
    numerator += (x - meanX) * (y - meanY);
    denominator += (x - meanX) ** 2;
  }
  return denominator === 0 || meanY === 0 ? 0 : ((numerator / denominator) * spanMs) / meanY;
}

export function runChecks(input: CheckInput): Check[] {
  const { ledger } = input;
  const checks: Check[] = [];
  const add = (name: string, kind: Check['kind'], problems: string[], okDetail: string) =>
    checks.push({
      name,
      kind,
      ok: problems.length === 0,
      detail: problems.length ? sample(problems).join('; ') : okDetail,
    });

  const jobs = [...ledger.jobs.values()];
  add(
    'every acknowledged job reached a terminal state (none lost, none stuck)',
    'states',
    jobs
      .filter((job) => job.final === null || job.final.code === 'NOT_FOUND')
      .map((job) => `${job.jobId}: ${job.final ? `lost (${job.final.code})` : 'still queued or processing'}`),
    `${jobs.length} jobs: ${jobs.filter((job) => job.final?.status === 'completed').length} completed, ${jobs.filter((job) => job.final?.status === 'failed').length} failed`,
  );

  const good = ledger.attempts.filter((attempt) => !attempt.bad);
  const bad = ledger.attempts.filter((attempt) => attempt.bad);
  add(
    'good inputs: every failure is a service fault with a stable code (never an input error, never INTERNAL)',
    'counts',
    good
      .filter((attempt) => attempt.outcome === 'failed' || attempt.outcome === 'refused')
      .filter((attempt) => !FAULT_CODES.has(attempt.code ?? '') || !FAULT_STATUSES.has(attempt.status ?? 0))
      .map(describe),
    `${good.length} attempts, ${good.filter((attempt) => attempt.outcome === 'completed').length} completed and checked`,
  );
  add(
    'good inputs: every result downloaded is what it claims (file-type), no request lost past its retries',
    'counts',
    good.filter((attempt) => attempt.outcome === 'broken').map(describe),
    'none broken',
  );
  add(
    'bad inputs: refused with a 4xx code, never a 5xx',
    'counts',
    bad
      .filter((attempt) => attempt.outcome === 'broken' || (attempt.status ?? 0) >= 500)
      .filter((attempt) => !FAULT_CODES.has(attempt.code ?? '') || attempt.code === 'CONVERSION_FAILED')
      .map(describe),
    `${bad.length} bad inputs: ${bad.filter((attempt) => (attempt.status ?? 0) >= 400 && (attempt.status ?? 0) < 500).length} refused with 4xx`,
  );
  add(
    '5xx answers carry a stable fault code, and 503/507 a Retry-After',
    'counts',
    ledger.serverErrors
      .filter(
        (record) =>
          !FAULT_CODES.has(record.code) ||
          statusOfCode(record.code) !== record.status ||
          ((record.status === 503 || record.status === 507) && !record.retryAfter),
      )
      .map(
        (record) =>
          `${record.method} ${record.path}: ${record.status} ${record.code}${record.retryAfter ? '' : ' without Retry-After'}`,
      ),
    `${ledger.serverErrors.length} 5xx answers, all of them faults with codes`,
  );
  add(
    'service faults are refunded: each key was charged for its jobs that did not fail by a fault (and at most one more per create retried after an answer that left it open)',
    'counts',
    input.usage
      .filter((entry) => entry.used < entry.expected || entry.used > entry.expected + entry.uncertain)
      .map(
        (entry) =>
          `${entry.client}: charged ${entry.used}, expected ${entry.expected}${entry.uncertain ? ` to ${entry.expected + entry.uncertain}` : ''}`,
      ),
    `${input.usage.length} keys: ${input.usage.filter((entry) => entry.used === entry.expected).length} charged exactly, ${
      input.usage
        .filter((entry) => entry.used > entry.expected)
        .map(
          (entry) =>
            `${entry.client} ${entry.used - entry.expected} more for ${entry.uncertain} retried creates`,
        )
        .join(', ') || 'none more'
    }`,
  );
  add('no node exited on its own', 'states', input.unexpectedExits, 'all nodes ran to the end');
  add('no engine process outlives the service', 'leaks', input.survivors, 'none left after the stop');

  const fdProblems: string[] = [];
  for (const node of input.final.nodes) {
    const before = input.baseline.nodes.find((candidate) => candidate.name === node.name);
    if (!before) continue;
    const allowed = before.fds + Math.max(8, Math.ceil(before.fds * 0.1));
    if (node.fds > allowed)
      fdProblems.push(`${node.name}: ${before.fds} fds before the load, ${node.fds} after`);
  }
  add(
    'open file descriptors return to their start',
    'leaks',
    fdProblems,
    input.final.nodes
      .map(
        (node) =>
          `${node.name} ${input.baseline.nodes.find((b) => b.name === node.name)?.fds ?? '?'} -> ${node.fds}`,
      )
      .join(', '),
  );
  const tempCount = (sample: Sample) => sample.nodes.reduce((sum, node) => sum + node.tempDirs.length, 0);
  add(
    'temp dirs return to their start',
    'leaks',
    tempLeaks(input.baseline, input.final),
    `${tempCount(input.baseline)} before, ${tempCount(input.final)} after (${input.baseline.temp.files} and ${input.final.temp.files} files in all)`,
  );

  const outages = input.faults.filter((fault) => fault.outage);
  const readinessProblems: string[] = [];
  for (const fault of outages) {
    // From 3 s in (a readiness check may still be answering from before) to the restart.
    const during = input.probes.filter(
      (probe) => probe.at >= fault.startedAt + 3000 && probe.at + 1000 < fault.endedAt,
    );
    const ready = during.filter((probe) => probe.ready.status === 200);
    if (during.length === 0) readinessProblems.push(`${fault.name}: no probe answered during it`);
    else if (ready.length > 0)
      readinessProblems.push(`${fault.name}: ${ready.length} of ${during.length} probes said ready`);
  }
  // The last round of probes (one per API node).
  const lastRound = input.probes.at(-1)?.at ?? 0;
  const lastProbes = input.probes.filter((probe) => probe.at === lastRound);
  if (lastProbes.some((probe) => probe.ready.status !== 200)) readinessProblems.push('not ready at the end');
  add(
    'readiness says "not ready" while Redis or S3 is down, and ready again after',
    'states',
    readinessProblems,
    outages.length ? `${outages.length} outages, not ready throughout each` : 'no outage in this deployment',
  );

  const slow = input.probes.filter((probe) => probe.health.status !== 200 || probe.health.ms >= 1000);
  const worst = input.probes.length ? Math.max(...input.probes.map((probe) => probe.health.ms)) : 0;
  add(
    '/api/health answers within 1 s throughout',
    'timing',
    slow.map(
      (probe) =>
        `${new Date(probe.at).toISOString()}: ${probe.health.status} in ${probe.health.ms.toFixed(0)} ms`,
    ),
    `${input.probes.length} probes, worst ${worst.toFixed(0)} ms`,
  );

  // RSS of each node over the second half: the least-squares trend of every sample (one each 5 s)
  // across it, against its mean. Garbage collection and big images make RSS swing by 20% within
  // a minute (measured: 455 to 555 MB and back), which a comparison of two moments takes for
  // growth; a trend over ~60 samples does not.
  const memoryProblems: string[] = [];
  const memoryDetail: string[] = [];
  const samples = input.loadSamples;
  if (samples.length >= 4) {
    const start = samples[0]!.at;
    const end = samples.at(-1)!.at;
    const middle = start + (end - start) / 2;
    for (const node of input.final.nodes) {
      if (input.baseline.nodes.find((before) => before.name === node.name)?.pid !== node.pid) {
        memoryDetail.push(`${node.name} restarted during the load, not compared`);
        continue;
      }
      const points = samples
        .filter((sample) => sample.at >= middle)
        .flatMap((sample) =>
          sample.nodes.filter((n) => n.name === node.name).map((n) => [sample.at, n.rssBytes] as const),
        );
      if (points.length < 3) continue;
      const growth = trendGrowth(points, end - middle);
      const mean = points.reduce((sum, [, rss]) => sum + rss, 0) / points.length;
      memoryDetail.push(
        `${node.name} ${(mean / 2 ** 20).toFixed(0)} MB, trend ${(growth * 100).toFixed(1)}%`,
      );
      if (growth >= 0.1) memoryProblems.push(memoryDetail.at(-1)!);
    }
  }
  add(
    'RSS grows less than 10% over the second half',
    'memory',
    memoryProblems,
    memoryDetail.join(', ') || 'too few samples',
  );
  return checks;
}
