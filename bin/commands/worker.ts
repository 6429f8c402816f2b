/**
 * `fileconv worker`: conversions only, no HTTP. Takes jobs from the shared queue (Redis:
 * $FILECONV_REDIS_URL) and reads and writes files in the shared storage (S3:
 * $FILECONV_S3_BUCKET), so any number of workers can run
 * beside the API nodes (`fileconv serve --no-worker`).
 */

import { FileconvError, type JobEngine } from '../../src/index.js';
import { releaseSharpCache } from '../../src/kit/libraries/sharp.js';
import {
  type ConfigFlags,
  type EffectiveConfig,
  fileconvOptionsOf,
  resolveConfig,
} from '../../src/preset/effective-config.js';
import { createFileconv } from '../../src/preset/index.js';
import { startMetricsEndpoint } from '../support/metrics-flag.js';
import { untilSignal } from './serve.js';

/** The command line of `fileconv worker`: a subset of serve's, with the same precedence and config file. */
export type WorkerFlags = ConfigFlags;

export interface RunningWorker {
  engine: JobEngine;
  /** Where Prometheus scrapes this worker, with --metrics-port. */
  metricsUrl: string | undefined;
  description: string;
  /** The settings it runs with (flags, environment, config file, defaults). */
  config: EffectiveConfig;
  stop(): Promise<void>;
}

export async function startWorker(flags: WorkerFlags): Promise<RunningWorker> {
  const config = await resolveConfig(flags);
  if (!config.redis) {
    throw new FileconvError(
      'INVALID_REQUEST',
      'fileconv worker needs a queue shared with the other processes: set FILECONV_REDIS_URL (and FILECONV_S3_BUCKET for files), --redis-url, or redis.url in the config file.',
    );
  }
  releaseSharpCache(); // this process is fileconv's (releaseSharpCache)
  const fileconv = await createFileconv(
    fileconvOptionsOf(config, {
      onError: (error, context) => console.error(`fileconv worker: ${context}:`, error),
    }),
  );
  const metrics = await startMetricsEndpoint(fileconv.jobs, config.metricsPort).catch(
    async (error: unknown) => {
      await fileconv.close({ graceMs: 0 });
      throw error;
    },
  );
  return {
    engine: fileconv.jobs,
    description: fileconv.backends.description,
    metricsUrl: metrics.url,
    config,
    async stop() {
      await fileconv.close({ graceMs: config.workers.graceSeconds * 1000 });
      await metrics.close();
    },
  };
}

export async function runWorker(flags: WorkerFlags): Promise<void> {
  const worker = await startWorker(flags);
  const { config } = worker;
  if (config.configFile) console.log(`fileconv worker: settings from ${config.configFile}`);
  console.log(`fileconv worker: converting ${config.workers.concurrency} at once (${worker.description})`);
  if (worker.metricsUrl) console.log(`fileconv worker: Prometheus metrics at ${worker.metricsUrl}`);
  await untilSignal(worker.stop, config.workers.graceSeconds);
}
