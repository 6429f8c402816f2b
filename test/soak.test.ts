/**
 * The soak (`npm run soak`, soak/) for 60 seconds on each deployment, with every fault: a
 * LibreOffice worker and an ffmpeg child SIGKILLed, the data disk filled and freed (where a
 * tmpfs can be mounted), and, scaled out, a worker process SIGKILLed and restarted, Redis and the
 * S3 server stopped for 10 s each. It asserts what a short run can prove: every acknowledged job
 * ended, failures carry stable codes and were refunded, no node died, no engine process, file
 * descriptor or temp file leaked, readiness followed the outages. Health latency and memory
 * growth are printed, not asserted: a minute on a shared machine proves nothing about them
 * (the 10-minute runs in the README do). About 2 minutes per deployment.
 */
import { expect, it } from 'vitest';
import type { DeploymentName } from '../soak/deployments.js';
import { runSoak, type SoakReport } from '../soak/soak.js';
import { LO_AVAILABLE, LO_INSTALL } from './converters/libreoffice-helpers.js';
import { describeWithEngine } from './helpers/engines.js';
import { REDIS_INSTALL_HINT, redisServerAvailable } from './helpers/redis-process.js';
import { CLI_ARGS } from './helpers/serve-process.js';

async function soakFor(deployment: DeploymentName): Promise<SoakReport> {
  const lines: string[] = [];
  const report = await runSoak({
    deployment,
    durationMs: 60_000,
    clients: 4,
    faults: true,
    outageMs: 10_000,
    diskMegabytes: 2048,
    workerConcurrency: 2,
    cli: CLI_ARGS,
    log: (line) => lines.push(line),
  });
  console.log(
    [
      ...lines,
      `soak ${deployment}: ${Object.entries(report.totals)
        .map(([name, count]) => `${count} ${name}`)
        .join(', ')}`,
      ...report.checks.map((check) => `  ${check.ok ? 'pass' : 'FAIL'}  ${check.name}: ${check.detail}`),
    ].join('\n'),
  );
  return report;
}

function expectSound(report: SoakReport): void {
  const asserted = report.checks.filter((check) => check.kind !== 'timing' && check.kind !== 'memory');
  expect(asserted.filter((check) => !check.ok).map((check) => `${check.name}: ${check.detail}`)).toEqual([]);
  // The run did real work, and the faults were injected, not left out for want of a target.
  expect(report.totals.completed ?? 0).toBeGreaterThan(50);
  const leftOut = report.faults.filter((fault) => fault.skipped && !/tmpfs/.test(fault.skipped));
  expect(leftOut.map((fault) => `${fault.name}: ${fault.skipped}`)).toEqual([]);
}

describeWithEngine('LibreOffice', LO_AVAILABLE, LO_INSTALL, 'soak, 60 s', () => {
  it('embedded (fileconv serve): mixed load with faults, nothing lost or leaked', async () => {
    expectSound(await soakFor('embedded'));
  }, 400_000);

  it.runIf(redisServerAvailable)(
    'two API nodes + two workers on Redis and S3: mixed load with faults, nothing lost or leaked',
    async () => {
      expectSound(await soakFor('scaled'));
    },
    400_000,
  );
});

if (!redisServerAvailable && process.env.FILECONV_REQUIRE_ENGINES === '1') {
  throw new Error(`redis-server is required (FILECONV_REQUIRE_ENGINES=1): ${REDIS_INSTALL_HINT}`);
}
