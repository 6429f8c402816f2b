/**
 * One soak run against one deployment: start it, warm every engine once, take a baseline, let N
 * clients run the mixed workload while faults are injected on schedule, printing a few lines a
 * minute; then stop the clients, wait for every acknowledged job to end, let the service idle,
 * compare with the baseline, stop the service and look for engine processes that outlived it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVICE_FAULT_CODES } from '../src/core/policy/settlement.js';
import { type Check, runChecks, tempLeaks } from './checks.js';
import { pollJob, runClient } from './client.js';
import {
  type Deployment,
  type DeploymentName,
  type DeploymentOptions,
  startEmbedded,
  startScaled,
} from './deployments.js';
import { type FaultRecord, planFaults, runFaults } from './faults.js';
import { createHttpClient } from './http.js';
import { loadInputs, type SoakInput } from './inputs.js';
import { createLedger, type Ledger } from './ledger.js';
import { formatMinute, type MinuteStats, minuteStats } from './minutes.js';
import { startMonitor } from './monitor.js';
import { stillRunning } from './procfs.js';

export interface SoakOptions extends DeploymentOptions {
  deployment: DeploymentName;
  durationMs: number;
  faults: boolean;
  /** How long Redis and S3 stay down, and the disk full. */
  outageMs: number;
  log(line: string): void;
}

export interface SoakReport {
  deployment: DeploymentName;
  /** When the clients started (epoch ms); absent in reports of older runs. */
  startedAt?: number;
  clients: number;
  durationMs: number;
  minutes: MinuteStats[];
  faults: FaultRecord[];
  checks: Check[];
  totals: Record<string, number>;
}

const SETTLE_MS = 8000;

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const inputs = await loadInputs();
  const log = options.log;
  log(`soak: starting the ${options.deployment} deployment`);
  // One key more than clients: the warm-up's, so its charges stay out of the clients' accounts.
  const deployment = await (options.deployment === 'embedded' ? startEmbedded : startScaled)({
    ...options,
    clients: options.clients + 1,
  });
  try {
    return await soakWith(deployment, inputs, options);
  } finally {
    await deployment.stop().catch(() => {}); // at once, when the soak failed; a no-op otherwise
  }
}

async function soakWith(
  deployment: Deployment,
  inputs: SoakInput[],
  options: SoakOptions,
): Promise<SoakReport> {
  const { log } = options;
  if (deployment.scratch.unlimitedBecause)
    log(`soak: ${deployment.scratch.unlimitedBecause}; the full-disk fault is left out`);
  const monitor = startMonitor(deployment, { sampleMs: 5000 });
  const unexpectedExits: string[] = [];
  let stoppingService = false;
  const watchExit = (node: Deployment['nodes'][number]) =>
    node.child.once('exit', (code, signal) => {
      if (stoppingService || node.killedOnPurpose) return;
      const line = `${node.name} exited (${code ?? signal}): ${node.stderr().slice(-2000)}`;
      unexpectedExits.push(line);
      log(`soak: ${line}`);
    });
  const watched = new Set<Deployment['nodes'][number]>();
  const watchNodes = () => {
    for (const node of deployment.nodes) {
      if (watched.has(node)) continue;
      watched.add(node);
      watchExit(node);
    }
  };
  watchNodes();
  const watcher = setInterval(watchNodes, 1000);
  const warmKey = deployment.keys.at(-1)!;
  const keys = deployment.keys.slice(0, options.clients);

  // As many at once as there will be clients, so every pool (LibreOffice workers, Chromium tabs,
  // isolation processes) grows to its working size before the baseline is taken.
  log(
    `soak: warm-up (each good input once in ${options.clients} parallel lanes, so every engine pool has grown)`,
  );
  const warmLedger = createLedger();
  const good = inputs.filter((candidate) => !candidate.bad);
  await Promise.all(
    Array.from({ length: options.clients }, async (_, lane) => {
      for (let index = 0; index < good.length; index++) {
        const input = good[(index + lane) % good.length]!;
        let done = false;
        await runClient({
          name: 'warm-up',
          urls: deployment.urls,
          apiKey: warmKey,
          inputs: [{ ...input, weight: 1 }],
          ledger: warmLedger,
          stopping: () => {
            const was = done;
            done = true;
            return was;
          },
          random: () => 0.5, // a normal attempt, always
        });
      }
    }),
  );
  const warmBroken = warmLedger.attempts.filter((attempt) => attempt.outcome !== 'completed');
  for (const attempt of warmBroken) {
    log(
      `soak: warm-up ${attempt.label} did not complete: ${attempt.outcome} ${attempt.status ?? ''} ${attempt.code ?? ''} ${attempt.problem ?? ''}`,
    );
  }
  await sleep(SETTLE_MS);
  const baseline = await monitor.sampleNow();

  const planned = options.faults ? planFaults(deployment, options.outageMs) : [];
  const startedAt = Date.now();
  for (const fault of planned)
    log(`soak: at ${((fault.at * options.durationMs) / 1000).toFixed(0)} s: ${fault.name}`);
  log(`soak: ${options.clients} clients for ${(options.durationMs / 1000).toFixed(0)} s`);

  const ledger = createLedger();
  let stopping = false;
  let reported = 0;
  const reportServerErrors = setInterval(() => {
    // The first few 5xx answers that are not faults with codes, as they happen: what to look into.
    for (const record of ledger.serverErrors.slice(reported)) {
      if (reported >= 20) break;
      reported += 1;
      log(
        `soak: ${record.status} ${record.code} on ${record.method} ${record.path}${record.retryAfter ? ' (Retry-After)' : ''}`,
      );
    }
  }, 1000);
  const clients = keys.map((apiKey, index) =>
    runClient({
      name: `client-${index + 1}`,
      urls: deployment.urls,
      apiKey,
      inputs,
      ledger,
      stopping: () => stopping,
    }),
  );
  const faults = runFaults(
    deployment,
    planned,
    startedAt,
    options.durationMs,
    (record) =>
      log(
        `soak: fault at ${((record.startedAt - startedAt) / 1000).toFixed(0)} s: ${record.name}: ${record.skipped ? `left out (${record.skipped})` : record.detail}`,
      ),
    () => stopping,
  );
  const minutes: MinuteStats[] = [];
  const printMinute = () => {
    const index = minutes.length;
    const stats = minuteStats(
      index + 1,
      startedAt + index * 60_000,
      ledger.attempts,
      monitor.samples,
      monitor.probes,
    );
    minutes.push(stats);
    log(formatMinute(stats));
  };
  const ticker = setInterval(printMinute, 60_000);
  await sleep(options.durationMs);
  stopping = true;
  clearInterval(ticker);
  clearInterval(reportServerErrors);
  log('soak: load stopped; waiting for attempts in flight and faults to end');
  const [faultRecords] = await Promise.all([faults, Promise.all(clients)]);
  const loadEnded = Date.now();
  while (startedAt + minutes.length * 60_000 < loadEnded) printMinute();
  const loadSamples = monitor.samples.filter((sample) => sample.at >= startedAt && sample.at <= loadEnded);

  await drainJobs(deployment, ledger, log);
  const usage = await usageOf(deployment, keys, ledger);
  await sleep(SETTLE_MS);
  // Cleanups that run late (a restarted worker sweeps an unused Chromium profile a minute after
  // its predecessor died) get up to 90 s to bring the temp dirs back.
  let final = await monitor.sampleNow();
  for (let waited = 0; waited < 90_000 && tempLeaks(baseline, final).length > 0; waited += 5000) {
    await sleep(5000);
    final = await monitor.sampleNow();
  }
  await monitor.stop();
  clearInterval(watcher);
  stoppingService = true;

  log('soak: stopping the service');
  await deployment.stop();
  const survivors: string[] = [];
  for (let waited = 0; waited <= 10_000; waited += 1000) {
    survivors.length = 0;
    for (const info of monitor.enginesSeen.values()) {
      if (await stillRunning(info))
        survivors.push(`${info.engine} pid ${info.pid} (${info.command.slice(0, 80)})`);
    }
    if (survivors.length === 0) break;
    await sleep(1000);
  }

  const checks = runChecks({
    ledger,
    faults: faultRecords,
    probes: monitor.probes,
    baseline,
    final,
    loadSamples,
    usage,
    survivors,
    unexpectedExits,
  });
  const totals: Record<string, number> = { attempts: ledger.attempts.length, jobs: ledger.jobs.size };
  for (const attempt of ledger.attempts) totals[attempt.outcome] = (totals[attempt.outcome] ?? 0) + 1;
  return {
    deployment: deployment.name,
    startedAt,
    clients: options.clients,
    durationMs: options.durationMs,
    minutes,
    faults: faultRecords,
    checks,
    totals,
  };
}

/** Asks for every acknowledged job whose end no client saw, until each ends (or 5 minutes pass). */
async function drainJobs(deployment: Deployment, ledger: Ledger, log: (line: string) => void): Promise<void> {
  const open = [...ledger.jobs.values()].filter((job) => job.final === null);
  log(`soak: ${open.length} acknowledged jobs not yet seen ending; polling them`);
  const deadline = Date.now() + 5 * 60_000;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < open.length && Date.now() < deadline) {
        const job = open[next++]!;
        const http = createHttpClient({
          headers: job.headers,
          retryForMs: 60_000,
          onServerError: (record) => ledger.serverErrors.push(record),
        });
        await pollJob(http, deployment.urls[0]!, job, deadline).catch((error: Error) =>
          log(`soak: job ${job.jobId} could not be asked for: ${error.message}`),
        );
      }
    }),
  );
}

/** Each key's conversions as /api/usage counts them, against its jobs that did not fail by a fault. */
async function usageOf(deployment: Deployment, keys: readonly string[], ledger: Ledger) {
  return Promise.all(
    keys.map(async (key, index) => {
      const client = `client-${index + 1}`;
      const response = await fetch(`${deployment.urls[0]}/api/usage`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await response.json()) as { quotas: { conversions: { used: number } } };
      const expected = [...ledger.jobs.values()].filter(
        (job) =>
          job.client === client &&
          !(
            job.final?.status === 'failed' &&
            job.final.code !== null &&
            SERVICE_FAULT_CODES.has(job.final.code as never)
          ),
      ).length;
      const uncertain = ledger.attempts
        .filter((attempt) => attempt.client === client)
        .reduce((sum, attempt) => sum + attempt.uncertainCreates, 0);
      return { client, used: body.quotas.conversions.used, expected, uncertain };
    }),
  );
}
