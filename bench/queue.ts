/**
 * Queue throughput: no-op jobs per second through createBullmqQueue against raw BullMQ doing
 * the same work on the same private redis-server, plus the in-process createMemoryQueue.
 *
 * Method: per round, a fresh queue (its own prefix and name), a worker at concurrency 8 with a
 * no-op async handler, and one warm-up job handled before the clock starts (so connecting and
 * starting the worker are not timed). Then N ids (BENCH_QUEUE_JOBS, default 500) are enqueued
 * one after the other and the time runs from the first enqueue until the handler has seen all
 * N. Raw BullMQ uses the adapter's job options (attempts 3, exponential backoff 1000 ms,
 * removeOnComplete/removeOnFail, job id `fc.<id>`, priority 2^20 - ours) and worker options;
 * the adapter additionally checks each id's state before adding it (its dedupe). The adapter
 * and raw BullMQ alternate over min(BENCH_ROUNDS, 5) rounds after one warm-up round each.
 */
import { Queue as BullQueue, Worker as BullWorker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { createBullmqQueue, toBullmqPriority } from '../adapters/queue/bullmq.js';
import { createMemoryQueue } from '../adapters/queue/memory.js';
import type { Queue } from '../src/ports.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { median, report } from './stats.js';

const CONCURRENCY = 8;
const WARM_ID = 'warm';

/** The priority (ours: higher first) of the i-th id: a few levels, like plans use. */
const priorityOf = (index: number) => index % 3;

/** A handler counting the ids it sees; `seen(n)` resolves once n ids (besides the warm one) arrived. */
function counter() {
  let count = 0;
  let warm = false;
  let waiting: { target: number; resolve: () => void } | undefined;
  let warmed: (() => void) | undefined;
  const warmedPromise = new Promise<void>((resolve) => {
    warmed = resolve;
  });
  return {
    async handle(jobId: string): Promise<void> {
      if (jobId === WARM_ID) {
        warm = true;
        warmed?.();
        return;
      }
      count++;
      if (waiting && count >= waiting.target) waiting.resolve();
    },
    warm: () => (warm ? Promise.resolve() : warmedPromise),
    seen(target: number): Promise<void> {
      if (count >= target) return Promise.resolve();
      return new Promise((resolve) => {
        waiting = { target, resolve };
      });
    },
  };
}

/** Enqueues a warm-up id, waits for it, then times N enqueues until all N were handled. */
async function runQueue(queue: Queue, jobs: number): Promise<number> {
  const seen = counter();
  try {
    queue.process(seen.handle, { concurrency: CONCURRENCY });
    await queue.enqueue(WARM_ID);
    await seen.warm();
    const started = performance.now();
    for (let i = 0; i < jobs; i++) await queue.enqueue(`job-${i}`, { priority: priorityOf(i) });
    await seen.seen(jobs);
    return performance.now() - started;
  } finally {
    await queue.close();
  }
}

/** Raw BullMQ with the adapter's settings; the same shape as runQueue. */
async function runRaw(url: string, prefix: string, jobs: number): Promise<number> {
  const seen = counter();
  const producerClient = new Redis(url);
  const workerClient = new Redis(url, { maxRetriesPerRequest: null });
  const queue = new BullQueue<{ jobId: string }>('bench', {
    connection: producerClient,
    prefix,
    defaultJobOptions: {
      attempts: 3,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: true,
      removeOnFail: true,
    },
  });
  const worker = new BullWorker<{ jobId: string }>(
    'bench',
    (job: Job<{ jobId: string }>) => seen.handle(job.data.jobId),
    {
      connection: workerClient,
      prefix,
      concurrency: CONCURRENCY,
      lockDuration: 30_000,
      stalledInterval: 15_000,
      maxStalledCount: 1,
    },
  );
  const add = (jobId: string, priority: number) =>
    queue.add('convert', { jobId }, { jobId: `fc.${jobId}`, priority: toBullmqPriority(priority) });
  try {
    await queue.waitUntilReady();
    await add(WARM_ID, 0);
    await seen.warm();
    const started = performance.now();
    for (let i = 0; i < jobs; i++) await add(`job-${i}`, priorityOf(i));
    await seen.seen(jobs);
    return performance.now() - started;
  } finally {
    await worker.close();
    await queue.close();
    producerClient.disconnect();
    workerClient.disconnect();
  }
}

export async function benchQueue(benchRounds: number): Promise<void> {
  const rounds = Math.max(1, Math.min(benchRounds, 5));
  const jobs = Number(process.env.BENCH_QUEUE_JOBS ?? 500);
  const redis = await startRedisServer();
  try {
    let run = 0;
    const adapter = () => {
      run++;
      return runQueue(createBullmqQueue({ url: redis.url, prefix: `bench-a${run}`, name: `q${run}` }), jobs);
    };
    const raw = () => {
      run++;
      return runRaw(redis.url, `bench-r${run}:queue`, jobs);
    };
    await adapter();
    await raw();
    const adapterTimes: number[] = [];
    const rawTimes: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so drift in the machine's load hits both alike.
      if (round % 2 === 0) {
        adapterTimes.push(await adapter());
        rawTimes.push(await raw());
      } else {
        rawTimes.push(await raw());
        adapterTimes.push(await adapter());
      }
    }
    const memoryTimes: number[] = [];
    await runQueue(createMemoryQueue(), jobs);
    for (let round = 0; round < rounds; round++) memoryTimes.push(await runQueue(createMemoryQueue(), jobs));

    const perSecond = (ms: number) => (jobs / (ms / 1000)).toFixed(0).padStart(7);
    const baselineMs = median(rawTimes);
    const candidateMs = median(adapterTimes);
    const memoryMs = median(memoryTimes);
    report(
      `queue: ${jobs} no-op jobs, c=${CONCURRENCY}`,
      {
        baselineMs,
        candidateMs,
        ratio: baselineMs / candidateMs,
      },
      'bullmq',
    );
    console.log(
      `${''.padEnd(34)} bullmq: ${perSecond(baselineMs)} jobs/s   fileconv: ${perSecond(candidateMs)} jobs/s   memory queue: ${perSecond(memoryMs)} jobs/s`,
    );
  } finally {
    await redis.close();
  }
}
