/**
 * `npm run soak`: the soak from the command line, against the deployments it starts itself.
 *
 *   npm run soak -- [--deployment embedded|scaled|both] [--minutes 10] [--clients 8]
 *                   [--no-faults] [--outage-seconds 10] [--disk-mb 4096] [--json report.json]
 *                   [--markdown report.md]
 *
 * Prints the fault schedule, a few lines a minute, and the end checks; exits 1 when a check fails.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { BUILT_CLI, type DeploymentName } from './deployments.js';
import { reportMarkdown } from './markdown.js';
import { runSoak, type SoakReport } from './soak.js';

const { values } = parseArgs({
  options: {
    deployment: { type: 'string', default: 'both' },
    minutes: { type: 'string', default: '10' },
    clients: { type: 'string', default: '8' },
    'no-faults': { type: 'boolean', default: false },
    'outage-seconds': { type: 'string', default: '10' },
    'disk-mb': { type: 'string', default: '4096' },
    'worker-concurrency': { type: 'string', default: '2' },
    json: { type: 'string' },
    markdown: { type: 'string' },
  },
});

const deployments: DeploymentName[] =
  values.deployment === 'both' ? ['embedded', 'scaled'] : [values.deployment as DeploymentName];
if (!deployments.every((name) => name === 'embedded' || name === 'scaled')) {
  console.error('soak: --deployment is embedded, scaled or both');
  process.exit(2);
}
const number = (name: string, text: string | undefined) => {
  const value = Number(text);
  if (!(value > 0)) {
    console.error(`soak: --${name} must be a positive number, got ${text}`);
    process.exit(2);
  }
  return value;
};

const reports: SoakReport[] = [];
for (const deployment of deployments) {
  const report = await runSoak({
    deployment,
    durationMs: number('minutes', values.minutes) * 60_000,
    clients: number('clients', values.clients),
    faults: !values['no-faults'],
    outageMs: number('outage-seconds', values['outage-seconds']) * 1000,
    diskMegabytes: number('disk-mb', values['disk-mb']),
    workerConcurrency: number('worker-concurrency', values['worker-concurrency']),
    cli: BUILT_CLI,
    log: (line) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`),
  });
  reports.push(report);
  console.log(
    `\nsoak ${deployment}: ${Object.entries(report.totals)
      .map(([name, count]) => `${count} ${name}`)
      .join(', ')}`,
  );
  for (const check of report.checks)
    console.log(`  ${check.ok ? 'pass' : 'FAIL'}  ${check.name}: ${check.detail}`);
  console.log('');
}
if (values.json) await writeFile(values.json, JSON.stringify(reports, null, 2));
if (values.markdown) {
  const titles = { embedded: '`fileconv serve`', scaled: 'Two API nodes and two workers on Redis and S3' };
  await writeFile(
    values.markdown,
    `${reports.map((report) => reportMarkdown(report, titles[report.deployment])).join('\n\n')}\n`,
  );
}
process.exit(reports.every((report) => report.checks.every((check) => check.ok)) ? 0 : 1);
