/**
 * BullMQ Queue: job ids on Redis, shared by any number of API and worker processes, so a
 * deployment scales out (`fileconv serve --no-worker` + `fileconv worker`). BullMQ is the
 * durable part of the at-least-once promise: an id stays in Redis until a handler settles it,
 * a rejected handler is retried with exponential backoff, and a job whose worker died (its lock
 * lapsed) is handed to another worker by BullMQ's stalled-job check (ahead of waiting ids: it
 * goes back to the front). Redis for BullMQ must be persistent (`appendonly yes`, `appendfsync
 * always` or `everysec`) with `maxmemory-policy noeviction`: a restart of a Redis without
 * persistence forgets every waiting id (the engine re-enqueues them only on its own next start).
 *
 * Ids are BullMQ job ids (`fc.<id>`), which BullMQ dedupes: enqueueing an id that is still
 * waiting does nothing, so recovery on start never doubles the backlog. Telling the cases apart
 * costs a round trip (the entry's state) before the add; a new job (`firstTime`, as the engine
 * enqueues every job it creates) is added at once, with the one round trip raw BullMQ takes. Finished BullMQ jobs are
 * removed at once (the JobStore is the record), and an id enqueued again while an earlier copy
 * is still running is added under a fresh BullMQ id (`fc.<id>.<suffix>`), because that copy may
 * belong to a dead worker or be past its check already: a repeat delivery is harmless (the
 * engine skips jobs that are not queued), a silently dropped one would strand the job.
 *
 * Priority: ours is "higher first" (any integer within +-1048575; plans use 0-20); BullMQ's is
 * "lower first, 1..2^21-1", so BullMQ priority = 1048576 - ours. Every job is prioritized,
 * which keeps first-in-first-out within a priority.
 */
import { randomUUID } from 'node:crypto';
import type { Job as BullJob, Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { FileconvError } from '../../core/errors.js';
import type { EnqueueOptions, Queue, QueueHandler } from '../../core/ports/index.js';
import { isStorableId } from '../jobs/record-rules.js';
import {
  closeClient,
  openRedis,
  type RedisClient,
  type RedisConnectionOptions,
  resolveRedisSettings,
  throttledWarning,
  WORKER_CLIENT_OVERRIDES,
  workerClientOptions,
} from '../redis/connection.js';
import { loadBullmq, loadIoredis } from '../redis/packages.js';
import { createHandlerTracker, watchUnreachable } from '../redis/worker-shutdown.js';
import {
  checkFunction,
  checkNonEmptyString,
  checkOptionsObject,
  checkPositiveInteger,
  invalidOption,
} from '../validate-options.js';

const ADAPTER = 'createBullmqQueue';
const JOB_NAME = 'convert';
/** BullMQ priority of our priority 0; ours may range this much minus one either way. */
const PRIORITY_ORIGIN = 2 ** 20;
/** BullMQ states in which an id will still be delivered: enqueueing it again adds nothing. */
const PENDING_STATES = new Set(['waiting', 'prioritized', 'delayed', 'waiting-children']);

export interface BullmqQueueOptions extends RedisConnectionOptions {
  /** BullMQ queue name; its keys are `<prefix>:queue:<name>:*`. No ':'. Default 'fileconv-jobs'. */
  name?: string;
  /** Deliveries of an id whose handler keeps rejecting, the first included, before it is given up. Default 3. */
  attempts?: number;
  /** Delay before the first retry, ms; it doubles with every further retry. Default 1000. */
  backoffMs?: number;
  /**
   * How long a worker's claim on a running job lasts, ms; it is renewed every half of it while
   * the handler runs. A job whose worker died is handed out again once its claim has lapsed and
   * a stalled check (see stalledIntervalMs) saw it twice: within about lockDurationMs +
   * 2 x stalledIntervalMs. Default 30000.
   */
  lockDurationMs?: number;
  /** How often a worker looks for running jobs whose claim lapsed, ms. Default 15000. */
  stalledIntervalMs?: number;
  /** How often one id may be handed out again after its worker died; once more and it fails. Default 1. */
  maxStalledCount?: number;
  /**
   * Called when an id is given up (its handler rejected on every attempt, or its workers kept
   * dying), with the id, and with connection and BullMQ errors, with null. Delivery goes on.
   * Default: a process warning (connection errors at most once a minute).
   */
  onError?: (error: unknown, jobId: string | null) => void;
}

interface RunningWorker {
  worker: BullWorker<Payload>;
  client: RedisClient;
  /** Resolves once no handler runs. */
  idle(): Promise<void>;
}

/** The payload of a BullMQ job: just our id; the JobStore holds everything else. */
interface Payload {
  jobId: string;
}

function closedError(): FileconvError {
  return new FileconvError('INVALID_STATE', 'The queue is closed.');
}

/** BullMQ priority (lower first, 1..2^21-1) for our priority (higher first). */
export function toBullmqPriority(priority: unknown): number {
  if (
    typeof priority !== 'number' ||
    !Number.isSafeInteger(priority) ||
    Math.abs(priority) >= PRIORITY_ORIGIN
  ) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `A queue priority must be an integer between -${PRIORITY_ORIGIN - 1} and ${PRIORITY_ORIGIN - 1}.`,
      { details: { priority: String(priority) } },
    );
  }
  return PRIORITY_ORIGIN - priority;
}

function defaultReporter(): (error: unknown, jobId: string | null) => void {
  const connectionWarning = throttledWarning(ADAPTER);
  return (error, jobId) => {
    if (jobId === null) return connectionWarning(error);
    const message = error instanceof Error ? error.message : String(error);
    process.emitWarning(`fileconv queue gave up job ${jobId}: ${message}`, { code: 'FILECONV_QUEUE' });
  };
}

/** A Queue on Redis through BullMQ. */
export function createBullmqQueue(options?: BullmqQueueOptions): Queue {
  const given = checkOptionsObject(ADAPTER, options);
  const settings = resolveRedisSettings(ADAPTER, given);
  const name = given.name === undefined ? 'fileconv-jobs' : checkNonEmptyString(ADAPTER, 'name', given.name);
  if (name.includes(':')) throw invalidOption(ADAPTER, 'name', 'a name without ":"', name);
  const attempts = checkPositiveInteger(ADAPTER, 'attempts', given.attempts, 3);
  const backoffMs = checkPositiveInteger(ADAPTER, 'backoffMs', given.backoffMs, 1000);
  const lockDurationMs = checkPositiveInteger(ADAPTER, 'lockDurationMs', given.lockDurationMs, 30_000);
  const stalledIntervalMs = checkPositiveInteger(
    ADAPTER,
    'stalledIntervalMs',
    given.stalledIntervalMs,
    15_000,
  );
  const maxStalledCount =
    given.maxStalledCount === 0
      ? 0
      : checkPositiveInteger(ADAPTER, 'maxStalledCount', given.maxStalledCount, 1);
  const onError = checkFunction(ADAPTER, 'onError', given.onError, defaultReporter());
  const bullPrefix = `${settings.prefix}:queue`;

  let closed = false;
  let closing: Promise<void> | undefined;
  let handler: QueueHandler | undefined;
  let producer: Promise<BullQueue<Payload>> | undefined;
  let running: Promise<RunningWorker | undefined> | undefined;

  function report(error: unknown, jobId: string | null): void {
    if (closed && jobId === null) return; // connections going away on close are not news
    try {
      onError(error, jobId);
    } catch {
      // A throwing error hook must not stop delivery.
    }
  }

  const redis = openRedis(settings, 'queue', (error) => report(error, null));

  /** The BullMQ Queue that adds ids, made once Redis answers (BullMQ's own start-up would wait forever). */
  async function openProducer(): Promise<BullQueue<Payload>> {
    const { Queue: QueueClass } = await loadBullmq(ADAPTER);
    return redis.run('reach Redis', async (client) => {
      await client.ping();
      const queue = new QueueClass<Payload>(name, {
        connection: client,
        prefix: bullPrefix,
        skipWaitingForReady: true,
        defaultJobOptions: {
          attempts,
          backoff: { type: 'exponential', delay: backoffMs },
          removeOnComplete: true,
          removeOnFail: true,
        },
      });
      queue.on('error', (error) => report(error, null));
      try {
        await queue.waitUntilReady();
      } catch (error) {
        await queue.close().catch(() => {});
        throw error;
      }
      return queue;
    });
  }

  function getProducer(): Promise<BullQueue<Payload>> {
    producer ??= openProducer().catch((error: unknown) => {
      producer = undefined; // the next call tries again, e.g. once Redis is back
      throw error;
    });
    return producer;
  }

  /** The worker's client: one that waits through outages (see WORKER_CLIENT_OVERRIDES). */
  async function openWorkerClient(): Promise<RedisClient> {
    if (settings.connection) return settings.connection.duplicate(WORKER_CLIENT_OVERRIDES);
    const RedisClass = await loadIoredis(ADAPTER);
    return new RedisClass(settings.url, workerClientOptions(settings));
  }

  async function startWorker(run: QueueHandler, concurrency: number): Promise<RunningWorker | undefined> {
    const { Worker: WorkerClass } = await loadBullmq(ADAPTER);
    if (closed) return undefined;
    const client = await openWorkerClient();
    client.on('error', () => {}); // BullMQ reports the same errors through the worker's 'error' event
    const handlers = createHandlerTracker();
    const worker = new WorkerClass<Payload>(
      name,
      (job: BullJob<Payload>) =>
        handlers.track(() =>
          run(job.data.jobId, {
            // attemptsStarted counts this delivery too; a stalled entry went back to wait first.
            redelivered: job.attemptsStarted > 1 || job.stalledCounter > 0 || job.attemptsMade > 0,
          }),
        ),
      {
        connection: client,
        prefix: bullPrefix,
        concurrency,
        lockDuration: lockDurationMs,
        stalledInterval: stalledIntervalMs,
        maxStalledCount,
      },
    );
    worker.on('error', (error) => report(error, null));
    worker.on('failed', (job, error) => {
      // Also emitted for attempts that will be retried; only a job that finished failed is news.
      if (job === undefined) report(error, null);
      else if (typeof job.finishedOn === 'number') report(error, job.data.jobId);
    });
    return { worker, client, idle: handlers.idle };
  }

  /**
   * BullMQ's graceful close waits for running handlers and finishes their bookkeeping, but it
   * also waits for Redis to answer, forever. So with Redis unreachable (at the start, or for a
   * while during the close) close() waits for the running handlers only and then lets go: jobs
   * BullMQ could not mark finished stay in Redis and are handed out again by the stalled check.
   */
  async function stopWorker({ worker, client, idle }: RunningWorker): Promise<void> {
    if (client.status !== 'ready') {
      await idle();
      await worker.close(true);
    } else {
      const watch = watchUnreachable(client, Math.min(settings.commandTimeoutMs, 2000));
      const graceful = worker.close().then(() => true);
      const gaveUp = watch.lost.then(idle).then(() => false);
      const closedGracefully = await Promise.race([graceful, gaveUp]);
      watch.stop();
      if (!closedGracefully) {
        graceful.catch(() => {});
        (await worker.getBackend().blockingClient?.catch(() => undefined))?.disconnect();
      }
    }
    await closeClient(client);
  }

  return {
    // Ids live in Redis and BullMQ's stalled-job check hands a dead worker's job to another one.
    durable: true,
    async enqueue(jobId: string, enqueueOptions: EnqueueOptions = {}): Promise<void> {
      if (closed) throw closedError();
      if (!isStorableId(jobId)) {
        throw new FileconvError(
          'INVALID_REQUEST',
          'A queued job id must be 1-200 characters of A-Z, a-z, 0-9, ".", "_" or "-", starting with a letter or digit.',
          { details: { jobId: String(jobId).slice(0, 200) } },
        );
      }
      const priority = toBullmqPriority(enqueueOptions.priority ?? 0);
      const queue = await getProducer();
      const baseId = `fc.${jobId}`;
      if (enqueueOptions.firstTime === true) {
        // A new job's id has no earlier entry to tell apart: one round trip, as raw BullMQ's.
        // (Were there one after all, BullMQ would dedupe the add by its id.)
        await redis.run('enqueue a job', () => queue.add(JOB_NAME, { jobId }, { jobId: baseId, priority }));
        return;
      }
      await redis.run('enqueue a job', async () => {
        const state = await queue.getJobState(baseId);
        if (PENDING_STATES.has(state)) return;
        let bullId = baseId;
        if (state === 'completed' || state === 'failed') {
          // Left by other job options than ours; a finished copy must not swallow the new one.
          if ((await queue.remove(baseId)) !== 1) bullId = `${baseId}.${randomUUID()}`;
        } else if (state === 'active') {
          bullId = `${baseId}.${randomUUID()}`;
        }
        await queue.add(JOB_NAME, { jobId }, { jobId: bullId, priority });
      });
    },

    process(nextHandler: QueueHandler, processOptions: { concurrency?: number } = {}): void {
      if (typeof nextHandler !== 'function')
        throw invalidOption('queue.process', 'handler', 'a function', nextHandler);
      const concurrency = checkPositiveInteger('queue.process', 'concurrency', processOptions.concurrency, 1);
      if (handler)
        throw new FileconvError('INVALID_STATE', 'queue.process() was already called; call it once.');
      if (closed) throw closedError();
      handler = nextHandler;
      running = startWorker(nextHandler, concurrency).catch((error: unknown) => {
        report(error, null);
        return undefined;
      });
    },

    close(): Promise<void> {
      closed = true;
      closing ??= (async () => {
        // The worker first: it stops taking ids and waits for running handlers to settle.
        const started = await running;
        if (started) await stopWorker(started);
        await (await producer?.catch(() => undefined))?.close();
        await redis.close();
      })();
      return closing;
    },

    async size(): Promise<number> {
      if (closed) throw closedError();
      const queue = await getProducer();
      const counts = await redis.run('count waiting jobs', () =>
        queue.getJobCounts('wait', 'prioritized', 'delayed'),
      );
      return (counts.wait ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
    },
  };
}
