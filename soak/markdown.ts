/**
 * A soak report as Markdown, for a README or a ticket: one table row a minute (throughput,
 * faults seen, latency of the main kinds, memory of the nodes and the engines, health), the
 * faults injected, and the end checks.
 */
import type { MinuteStats } from './minutes.js';
import type { SoakReport } from './soak.js';

const KINDS = ['image', 'document', 'html', 'video'] as const;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const count = (value: number) => value.toLocaleString('en-US');
/** Nodes in one order every minute (a restarted worker comes back at the end of the list). */
const byName = <T extends { name: string }>(nodes: readonly T[]) =>
  [...nodes].sort((a, b) => a.name.localeCompare(b.name));

function codesOf(stats: MinuteStats): { refused4xx: number; faults: string } {
  let refused4xx = 0;
  const faults: string[] = [];
  for (const [key, times] of Object.entries(stats.codes)) {
    const status = Number(key.split(' ')[0]);
    if (status >= 400 && status < 500) refused4xx += times;
    else faults.push(`${key} ×${times}`);
  }
  return { refused4xx, faults: faults.join(', ') || '-' };
}

function row(stats: MinuteStats): string {
  const { refused4xx, faults } = codesOf(stats);
  const latency = KINDS.map((kind) => {
    const l = stats.latency[kind];
    return l ? `${l.p50.toFixed(1)}/${l.p95.toFixed(1)}` : '-';
  }).join(' · ');
  const sample = stats.sample;
  const nodes = sample
    ? byName(sample.nodes)
        .map((node) => mb(node.rssBytes))
        .join(' · ')
    : '-';
  const engines = sample
    ? `${Object.values(sample.engines).reduce((sum, e) => sum + e.count, 0)} / ${mb(Object.values(sample.engines).reduce((sum, e) => sum + e.rssBytes, 0))}`
    : '-';
  return `| ${stats.minute} | ${count(stats.outcomes.completed ?? 0)} | ${refused4xx} | ${faults} | ${latency} | ${nodes} | ${engines} | ${stats.healthWorstMs?.toFixed(0) ?? '-'} | ${stats.notReady} |`;
}

export function reportMarkdown(report: SoakReport, title: string): string {
  const t = report.totals;
  const passed = report.checks.filter((check) => check.ok).length;
  const nodeNames =
    report.minutes
      .find((m) => m.sample)
      ?.sample?.nodes.map((node) => node.name)
      .join(' · ') ?? '';
  const lines = [
    `**${title}**, ${report.clients} clients, ${report.durationMs / 60_000} minutes: ${count(t.attempts ?? 0)} attempts, ${count(t.completed ?? 0)} results downloaded and checked, ${count(t.failed ?? 0)} jobs failed (bad inputs, and the faults below), ${count(t.refused ?? 0)} refused before a job, ${count(t.abandoned ?? 0)} uploads left midway, ${count(t.unwatched ?? 0)} results never fetched. ${passed} of ${report.checks.length} checks passed.`,
    '',
    `| min | completed | 4xx | 5xx (code ×n) | p50/p95 s: image · document · html · video | RSS MB: ${nodeNames} | engines: processes / MB | health worst ms | not ready |`,
    '|---:|---:|---:|---|---|---|---|---:|---:|',
    ...report.minutes.filter((m) => m.probes > 0).map(row),
    '',
    `Faults: ${report.faults.map((fault) => `${fault.name}${report.startedAt === undefined ? '' : ` at ${((fault.startedAt - report.startedAt) / 1000).toFixed(0)} s`}: ${fault.skipped ? `left out (${fault.skipped})` : fault.detail}`).join('; ')}.`,
    '',
    ...report.checks.map((check) => `- ${check.ok ? 'pass' : '**FAIL**'}: ${check.name}: ${check.detail}`),
  ];
  return lines.join('\n');
}
