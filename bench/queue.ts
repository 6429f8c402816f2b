/**
 * Queue throughput: no-op jobs through createBullmqQueue against raw BullMQ doing the same work
 * on the same private redis-server, plus the in-process createMemoryQueue for scale.
 *
 * Like with like: raw BullMQ gets the adapter's job options (attempts 3, exponential backoff
 * 1000 ms, removeOnComplete/removeOnFail, job id `fc.<id>`, priority 2^20 - ours), its worker
 * options (concurrency 8, lock 30 s, stalled check 15 s, maxStalledCount 1) and its ioredis
 * client options (storeClientOptions for the producer, workerClientOptions for the worker:
 * command timeout, retry limits), so the only difference left is what the adapter does on top:
 * its id checks and error mapping. Ids are enqueued as the engine enqueues the jobs it creates
 * (`firstTime`: one BullMQ add, as raw; a repeat of an id would cost one more round trip, a
 * state check, which recovery on a start pays, not job creation).
 * Each round uses a fresh queue (its own prefix and name) and untimed warm-up work, so opening
 * connections and starting the worker are never timed.
 *
 * Three measurements, each alternating adapter and raw over min(BENCH_ROUNDS, 25) rounds after
 * one warm-up round each (which goes first alternates too, so drift in the machine's load hits
 * both alike), N = BENCH_QUEUE_JOBS ids (default 1000), priorities cycling 0, 1, 2:
 * - enqueue: N enqueues one after the other into a queue without a worker (the round trips of
 *   createJobs and recovery);
 * - process: N ids enqueued beforehand, then the worker starts; the time runs from the delivery
 *   of a warm-up id enqueued first with a higher priority until the handler has seen all N;
 * - end-to-end: a running worker (warm-up id handled first), then N enqueues one after the
 *   other, timed from the first enqueue until the handler has seen all N.
 * The ratio is raw time / adapter time (adapter throughput over raw throughput; 1.0 = no
 * overhead); each line also lists the ratios of the individual rounds (raw and adapter of one
 * round ran back to back) and their median, which drift between rounds disturbs least. A round
 * takes well under a second: on a noisy machine ask for more of them (BENCH_ROUNDS=15).
 */
import { Queue as BullQueue, Worker as BullWorker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { createBullmqQueue, toBullmqPriority } from '../src/adapters/queue/bullmq.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import {
  resolveRedisSettings,
  storeClientOptions,
  workerClientOptions,
} from '../src/adapters/redis/connection.js';
import type { Queue } from '../src/core/ports/index.js';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { median, report } from './stats.js';

const CONCURRENCY = 8;
const WARM_ID = 'warm';

/** The priority (ours: higher first) of the i-th id: a few levels, like plans use. */
const priorityOf = (index: number) => index % 3;

/** A handler counting the ids it sees; `seen(n)` resolves once n ids (besides the warm one) arrived. */
function counter() {
  let count = 0;
  let warmAt: number | undefined;
  let waiting: { target: number; resolve: () => void } | undefined;
  let warmed: (() => void) | undefined;
  const warmedPromise = new Promise<void>((resolve) => {
    warmed = resolve;
  });
  return {
    async handle(jobId: string): Promise<void> {
      if (jobId === WARM_ID) {
        warmAt = performance.now();
        warmed?.();
        return;
      }
      count++;
      if (waiting && count >= waiting.target) waiting.resolve();
    },
    /** Resolves with the time the warm-up id was delivered. */
    warm: async (): Promise<number> => {
      await warmedPromise;
      return warmAt!;
    },
    seen(target: number): Promise<void> {
      if (count >= target) return Promise.resolve();
      return new Promise((resolve) => {
        waiting = { target, resolve };
      });
    },
  };
}

type Measure = (open: () => Queue, jobs: number) => Promise<number>;

/** N new jobs, enqueued as the engine enqueues the jobs it creates (firstTime). */
async function enqueueAll(queue: Queue, jobs: number): Promise<void> {
  for (let i = 0; i < jobs; i++)
    await queue.enqueue(`job-${i}`, { priority: priorityOf(i), firstTime: true });
}

/** N enqueues without a worker; a first enqueue (untimed) opens the connection. */
const enqueueOnly: Measure = async (open, jobs) => {
  const queue = open();
  try {
    await queue.enqueue(WARM_ID);
    const started = performance.now();
    await enqueueAll(queue, jobs);
    return performance.now() - started;
  } finally {
    await queue.close();
  }
};

/** N waiting ids, then the worker: from the warm-up id's delivery until all N were handled. */
const processOnly: Measure = async (open, jobs) => {
  const queue = open();
  const seen = counter();
  try {
    await queue.enqueue(WARM_ID, { priority: 10 });
    await enqueueAll(queue, jobs);
    queue.process(seen.handle, { concurrency: CONCURRENCY });
    const started = await seen.warm();
    await seen.seen(jobs);
    return performance.now() - started;
  } finally {
    await queue.close();
  }
};

/** A running worker, then N enqueues: from the first enqueue until all N were handled. */
const endToEnd: Measure = async (open, jobs) => {
  const queue = open();
  const seen = counter();
  try {
    queue.process(seen.handle, { concurrency: CONCURRENCY });
    await queue.enqueue(WARM_ID);
    await seen.warm();
    const started = performance.now();
    await enqueueAll(queue, jobs);
    await seen.seen(jobs);
    return performance.now() - started;
  } finally {
    await queue.close();
  }
};

/**
 * Raw BullMQ behind the Queue port's shape, so the same measurements drive both: the adapter's
 * job, worker and client options, none of its checks.
 */
function openRawQueue(url: string, prefix: string, name: string): Queue {
  const settings = resolveRedisSettings('bench', { url, prefix });
  const producerClient = new Redis(url, storeClientOptions(settings, 'queue'));
  const workerClient = new Redis(url, workerClientOptions(settings));
  const bullPrefix = `${prefix}:queue`;
  const queue = new BullQueue<{ jobId: string }>(name, {
    connection: producerClient,
    prefix: bullPrefix,
    defaultJobOptions: {
      attempts: 3,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: true,
      removeOnFail: true,
    },
  });
  let worker: BullWorker<{ jobId: string }> | undefined;
  return {
    async enqueue(jobId, options = {}) {
      const priority = toBullmqPriority(options.priority ?? 0);
      await queue.add('convert', { jobId }, { jobId: `fc.${jobId}`, priority });
    },
    process(handler, options = {}) {
      worker = new BullWorker<{ jobId: string }>(
        name,
        (job: Job<{ jobId: string }>) => handler(job.data.jobId),
        {
          connection: workerClient,
          prefix: bullPrefix,
          concurrency: options.concurrency ?? 1,
          lockDuration: 30_000,
          stalledInterval: 15_000,
          maxStalledCount: 1,
        },
      );
    },
    async close() {
      await worker?.close();
      await queue.close();
      producerClient.disconnect();
      workerClient.disconnect();
    },
  };
}

/** Adapter and raw alternately; returns their medians, the throughput ratio and each round's ratio. */
async function alternate(
  rounds: number,
  adapter: () => Promise<number>,
  raw: () => Promise<number>,
): Promise<{ baselineMs: number; candidateMs: number; ratio: number; roundRatios: number[] }> {
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
  const baselineMs = median(rawTimes);
  const candidateMs = median(adapterTimes);
  return {
    baselineMs,
    candidateMs,
    ratio: baselineMs / candidateMs,
    roundRatios: rawTimes.map((rawMs, index) => rawMs / adapterTimes[index]!),
  };
}

export async function benchQueue(benchRounds: number): Promise<void> {
  const rounds = Math.max(1, Math.min(benchRounds, 25));
  const jobs = Number(process.env.BENCH_QUEUE_JOBS ?? 1000);
  const redis = await startRedisServer();
  try {
    let run = 0;
    const openAdapter = () => {
      run++;
      return createBullmqQueue({ url: redis.url, prefix: `bench-a${run}`, name: `q${run}` });
    };
    const openRaw = () => {
      run++;
      return openRawQueue(redis.url, `bench-r${run}`, `q${run}`);
    };
    const perSecond = (ms: number) => (jobs / (ms / 1000)).toFixed(0).padStart(7);
    const measures: [string, Measure][] = [
      ['enqueue', enqueueOnly],
      ['process', processOnly],
      ['end-to-end', endToEnd],
    ];
    for (const [label, measure] of measures) {
      const result = await alternate(
        rounds,
        () => measure(openAdapter, jobs),
        () => measure(openRaw, jobs),
      );
      report(`queue ${label} (${jobs} jobs, c=${CONCURRENCY})`, result, 'bullmq');
      console.log(
        `${''.padEnd(34)} bullmq: ${perSecond(result.baselineMs)} jobs/s   fileconv: ${perSecond(result.candidateMs)} jobs/s   rounds: ${result.roundRatios.map((ratio) => ratio.toFixed(2)).join(' ')} (median ${median(result.roundRatios).toFixed(2)})`,
      );
    }
    const memoryTimes: number[] = [];
    await endToEnd(createMemoryQueue, jobs);
    for (let round = 0; round < rounds; round++) memoryTimes.push(await endToEnd(createMemoryQueue, jobs));
    console.log(`${'queue end-to-end, memory queue'.padEnd(34)} ${perSecond(median(memoryTimes))} jobs/s`);
  } finally {
    await redis.close();
  }
}
