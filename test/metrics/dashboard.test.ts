/**
 * The Grafana dashboard cannot rot: every metric its PromQL names (panels and template
 * variables) is in what createMetrics exposes, and every label it filters or groups by is a label
 * of one of the metrics of that query (or one Prometheus adds: job, instance; le on buckets).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/adapters/metrics/prometheus.js';
import { parseExposition, seriesNames } from './exposition.js';

const DASHBOARD = join(import.meta.dirname, '..', '..', 'deploy', 'grafana', 'fileconv-dashboard.json');

interface Panel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

interface Dashboard {
  panels: Panel[];
  templating: { list: { query?: string | { query?: string } }[] };
}

/** Every PromQL expression of the dashboard, with where it came from. */
function queries(dashboard: Dashboard): { where: string; expr: string }[] {
  const found: { where: string; expr: string }[] = [];
  const visit = (panel: Panel) => {
    for (const target of panel.targets ?? []) {
      if (target.expr) found.push({ where: `panel "${panel.title}"`, expr: target.expr });
    }
    for (const child of panel.panels ?? []) visit(child);
  };
  for (const panel of dashboard.panels) visit(panel);
  for (const variable of dashboard.templating.list) {
    const query = typeof variable.query === 'string' ? undefined : variable.query?.query;
    if (query) found.push({ where: 'template variable', expr: query });
  }
  return found;
}

const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
]);

/** The metric names and label names a PromQL expression uses (a reader for what dashboards write, not all of PromQL). */
function promqlNames(expr: string): { metrics: string[]; labels: string[] } {
  const labels: string[] = [];
  // String contents first: a regex or a $variable inside quotes is neither a metric nor a label.
  let rest = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  rest = rest.replace(/\{([^}]*)\}/g, (_, matchers: string) => {
    for (const match of matchers.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g))
      labels.push(match[1]!);
    return ' ';
  });
  rest = rest.replace(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g, (_, names: string) => {
    labels.push(
      ...names
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    );
    return ' ';
  });
  // label_values(metric, label): the second argument is a label.
  rest = rest.replace(
    /\blabel_values\s*\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)/g,
    (_, metric: string, label: string) => {
      labels.push(label);
      return ` ${metric} `;
    },
  );
  rest = rest.replace(/\[[^\]]*\]/g, ' ');
  const metrics = [...rest.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?/g)]
    .filter((match) => match[2] === undefined && !PROMQL_WORDS.has(match[1]!))
    .map((match) => match[1]!);
  return { metrics, labels };
}

describe('deploy/grafana/fileconv-dashboard.json', () => {
  it('reads the metric and label names out of PromQL', () => {
    expect(
      promqlNames(
        'histogram_quantile(0.95, sum by (le, converter) (rate(fileconv_conversion_duration_seconds_bucket{job=~"$job",status!="x"}[$__rate_interval])))',
      ),
    ).toEqual({
      metrics: ['fileconv_conversion_duration_seconds_bucket'],
      labels: ['job', 'status', 'le', 'converter'],
    });
    expect(promqlNames('label_values(fileconv_jobs_processing, job)')).toEqual({
      metrics: ['fileconv_jobs_processing'],
      labels: ['job'],
    });
  });

  it('uses only metrics and labels the registry exposes', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
    // As `fileconv serve --metrics-port` exposes them: default prefix, process metrics included.
    const metrics = createMetrics();
    const exposed = seriesNames(parseExposition(await metrics.registry.metrics()));
    const labelsOf = (series: string): string[] => {
      const family = series.replace(/_(bucket|sum|count)$/, '');
      const metric = metrics.registry.getSingleMetric(series) ?? metrics.registry.getSingleMetric(family);
      const names = (metric as { labelNames?: string[] } | undefined)?.labelNames ?? [];
      return [...names, ...(series.endsWith('_bucket') ? ['le'] : [])];
    };

    const all = queries(dashboard);
    expect(all.length).toBeGreaterThanOrEqual(12);
    for (const { where, expr } of all) {
      const used = promqlNames(expr);
      expect(used.metrics.length, `${where}: no metric in ${expr}`).toBeGreaterThan(0);
      for (const name of used.metrics)
        expect(exposed.has(name), `${where}: ${name} is not exported`).toBe(true);
      // job and instance are the scrape target's labels, added by Prometheus itself.
      const known = new Set(['job', 'instance', ...used.metrics.flatMap(labelsOf)]);
      for (const label of used.labels)
        expect(known.has(label), `${where}: no label ${label} in ${expr}`).toBe(true);
    }
  });
});
