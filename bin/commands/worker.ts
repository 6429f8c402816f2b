/**
 * `fileconv worker`: conversions only, no HTTP. Takes jobs from the shared queue (REDIS_URL) and
 * reads and writes files in the shared storage (S3_BUCKET), so any number of workers can run
 * beside the API nodes (`fileconv serve --no-worker`).
 */
import { createEngine, type Engine, refundFailedConversions } from '../../src/index.js';
import { defaultConverters } from '../assembly.js';
import { type BackendFlags, createBackends, processTempDir, requireShared } from '../backends.js';
import { dataDirOf, untilSignal, webhooksFromEnv } from './serve.js';

export interface WorkerFlags extends BackendFlags {
  concurrency?: number;
  graceSeconds?: number;
  retentionHours?: number;
}

export interface RunningWorker {
  engine: Engine;
  description: string;
  stop(): Promise<void>;
}

export async function startWorker(flags: WorkerFlags): Promise<RunningWorker> {
  const dataDir = dataDirOf(flags);
  const backends = await createBackends(dataDir, flags);
  requireShared(backends, 'fileconv worker');
  const tempDir = await processTempDir(dataDir);
  const engine = createEngine({
    converters: defaultConverters(),
    storage: backends.storage,
    jobs: backends.jobs,
    queue: backends.queue,
    tempDir,
    concurrency: flags.concurrency,
    resultTtlMs: flags.retentionHours === undefined ? undefined : flags.retentionHours * 3_600_000,
    onError: (error, context) => console.error(`fileconv worker: ${context}:`, error),
    onJobSettled: refundFailedConversions(backends.counters),
  });
  const webhooks = webhooksFromEnv(engine, backends.outbox);
  await engine.start({ worker: true });
  let stopping: Promise<void> | undefined;
  return {
    engine,
    description: backends.description,
    stop() {
      stopping ??= (async () => {
        // Before the engine closes its job store, which records delivery outcomes.
        await webhooks?.close();
        await engine.close({ graceMs: (flags.graceSeconds ?? 30) * 1000 });
        await backends.close();
      })();
      return stopping;
    },
  };
}

export async function runWorker(flags: WorkerFlags): Promise<void> {
  const worker = await startWorker(flags);
  console.log(`fileconv worker: converting ${flags.concurrency ?? 2} at once (${worker.description})`);
  await untilSignal(worker.stop, flags.graceSeconds ?? 30);
}
