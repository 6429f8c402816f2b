/**
 * `fileconv worker`: conversions only, no HTTP. Takes jobs from the shared queue (REDIS_URL) and
 * reads and writes files in the shared storage (S3_BUCKET), so any number of workers can run
 * beside the API nodes (`fileconv serve --no-worker`).
 */
import type { BackendFlags } from '../../adapters/preset/backends.js';
import { createFileconv, dataDirOf } from '../../adapters/preset/index.js';
import { type Engine, FileconvError } from '../../src/index.js';
import { startMetricsEndpoint } from '../metrics-flag.js';
import { untilSignal } from './serve.js';

export interface WorkerFlags extends BackendFlags {
  /** Prometheus metrics (GET /metrics) on this port. */
  metricsPort?: number;
  concurrency?: number;
  graceSeconds?: number;
  retentionHours?: number;
}

export interface RunningWorker {
  engine: Engine;
  /** Where Prometheus scrapes this worker, with --metrics-port. */
  metricsUrl: string | undefined;
  description: string;
  stop(): Promise<void>;
}

export async function startWorker(flags: WorkerFlags): Promise<RunningWorker> {
  const redisUrl = flags.redisUrl ?? process.env.REDIS_URL;
  if (!redisUrl) {
    throw new FileconvError(
      'INVALID_REQUEST',
      'fileconv worker needs a queue shared with the other processes: set REDIS_URL (and S3_BUCKET for files).',
    );
  }
  const fileconv = await createFileconv({
    dataDir: dataDirOf(flags.data),
    redisUrl,
    ...(flags.s3Bucket === undefined ? {} : { s3Bucket: flags.s3Bucket }),
    concurrency: flags.concurrency,
    resultTtlMs: flags.retentionHours === undefined ? undefined : flags.retentionHours * 3_600_000,
    onError: (error, context) => console.error(`fileconv worker: ${context}:`, error),
  });
  const metrics = await startMetricsEndpoint(fileconv.engine, flags.metricsPort).catch(
    async (error: unknown) => {
      await fileconv.close({ graceMs: 0 });
      throw error;
    },
  );
  return {
    engine: fileconv.engine,
    description: fileconv.backends.description,
    metricsUrl: metrics.url,
    async stop() {
      await fileconv.close({ graceMs: (flags.graceSeconds ?? 30) * 1000 });
      await metrics.close();
    },
  };
}

export async function runWorker(flags: WorkerFlags): Promise<void> {
  const worker = await startWorker(flags);
  console.log(`fileconv worker: converting ${flags.concurrency ?? 2} at once (${worker.description})`);
  if (worker.metricsUrl) console.log(`fileconv worker: Prometheus metrics at ${worker.metricsUrl}`);
  await untilSignal(worker.stop, flags.graceSeconds ?? 30);
}
