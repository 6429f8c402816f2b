/**
 * The soak's per-minute figures: jobs ended by outcome and error code, latency percentiles per
 * kind of input, and the last sample of memory, engines, descriptors and disk in that minute.
 */
import type { Attempt } from './ledger.js';
import type { Probe, Sample } from './monitor.js';

export interface MinuteStats {
  minute: number;
  outcomes: Record<string, number>;
  /** "422 CORRUPT_INPUT" -> how many attempts ended on it. */
  codes: Record<string, number>;
  /** Seconds from the first request to a checked result, per kind: p50, p95, p99. */
  latency: Record<string, { count: number; p50: number; p95: number; p99: number }>;
  sample: Sample | null;
  healthWorstMs: number | null;
  notReady: number;
  probes: number;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index]!;
}

export function minuteStats(
  minute: number,
  from: number,
  attempts: readonly Attempt[],
  samples: readonly Sample[],
  probes: readonly Probe[],
): MinuteStats {
  const to = from + 60_000;
  const within = <T extends { at?: number; endedAt?: number }>(
    list: readonly T[],
    time: (item: T) => number,
  ) => list.filter((item) => time(item) >= from && time(item) < to);
  const ended = within(attempts, (attempt) => attempt.endedAt);
  const outcomes: Record<string, number> = {};
  const codes: Record<string, number> = {};
  const times = new Map<string, number[]>();
  for (const attempt of ended) {
    outcomes[attempt.outcome] = (outcomes[attempt.outcome] ?? 0) + 1;
    if (attempt.code) {
      const key = `${attempt.status ?? ''} ${attempt.code}`.trim();
      codes[key] = (codes[key] ?? 0) + 1;
    }
    if (attempt.outcome === 'completed') {
      times.set(attempt.kind, [
        ...(times.get(attempt.kind) ?? []),
        (attempt.endedAt - attempt.startedAt) / 1000,
      ]);
    }
  }
  const latency: MinuteStats['latency'] = {};
  for (const [kind, list] of times) {
    const sorted = list.sort((a, b) => a - b);
    latency[kind] = {
      count: sorted.length,
      p50: percentile(sorted, 0.5),
      p95: percentile(sorted, 0.95),
      p99: percentile(sorted, 0.99),
    };
  }
  const minuteSamples = within(samples, (sample) => sample.at);
  const minuteProbes = within(probes, (probe) => probe.at);
  return {
    minute,
    outcomes,
    codes,
    latency,
    sample: minuteSamples.at(-1) ?? null,
    healthWorstMs: minuteProbes.length ? Math.max(...minuteProbes.map((probe) => probe.health.ms)) : null,
    notReady: minuteProbes.filter((probe) => probe.ready.status !== 200).length,
    probes: minuteProbes.length,
  };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const seconds = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));

/** A few lines a person can read while the soak runs. */
export function formatMinute(stats: MinuteStats): string {
  const outcomes = Object.entries(stats.outcomes)
    .map(([outcome, count]) => `${count} ${outcome}`)
    .join(', ');
  const codes = Object.entries(stats.codes)
    .sort((a, b) => b[1] - a[1])
    .map(([code, count]) => `${code} x${count}`)
    .join(', ');
  const latency = Object.entries(stats.latency)
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([kind, l]) => `${kind} ${seconds(l.p50)}/${seconds(l.p95)}/${seconds(l.p99)} (${l.count})`)
    .join(' · ');
  const lines = [
    `minute ${stats.minute}: ${outcomes || 'nothing ended'}${codes ? ` | codes: ${codes}` : ''}`,
  ];
  lines.push(`  latency p50/p95/p99 s: ${latency || '-'}`);
  const sample = stats.sample;
  if (sample) {
    const nodes = sample.nodes.map((node) => `${node.name} ${mb(node.rssBytes)} ${node.fds} fds`).join(' · ');
    const engines = Object.entries(sample.engines)
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([engine, e]) => `${engine} ${e.count}x ${mb(e.rssBytes)}`)
      .join(' · ');
    lines.push(`  rss: ${nodes} | engines: ${engines || 'none'}`);
    lines.push(
      `  temp ${sample.temp.files} files ${mb(sample.temp.bytes)} · data ${sample.data.files} files ${mb(sample.data.bytes)}` +
        ` · health worst ${stats.healthWorstMs?.toFixed(0) ?? '-'} ms · not ready ${stats.notReady}/${stats.probes}`,
    );
  }
  return lines.join('\n');
}
