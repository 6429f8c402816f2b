/**
 * A backing service that is briefly away loses no job. The scale-out shape in one process: an
 * API engine and two worker engines, each with its own Redis job store, BullMQ queue and S3
 * storage (s3rver). Jobs are queued and running when S3 (or Redis) goes away; none may fail
 * meanwhile, and once it is back every job completes on its first attempt with the right bytes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisJobStore } from '../src/adapters/jobs/redis.js';
import { createBullmqQueue } from '../src/adapters/queue/bullmq.js';
import { createS3Storage } from '../src/adapters/storage/s3.js';
import { createSharpConverter } from '../src/converters/sharp/index.js';
import {
  type Converter,
  createEngine,
  type Engine,
  isFileconvError,
  type Job,
  type JobStatus,
} from '../src/index.js';
import { createFakeConverter, fakeOutputHeader, readAll } from '../src/testing/index.js';
import { describeWithRedis, freshPrefix, type RedisServer } from './helpers/redis-server.js';
import { S3RVER_CREDENTIALS, type S3rverHandle, startS3rver } from './helpers/s3rver.js';
import { tempDir } from './helpers/temp.js';

const OWNER = 'acct_outage';
/** Each fake conversion takes this long, so jobs are mid-conversion when the service goes. */
const CONVERSION_MS = 2_000;
const WAITING = 'waiting for it to come back';

interface Reported {
  error: unknown;
  context: string;
}

/** An API engine and two workers of one deployment, and what they reported through onError. */
async function deployment(redis: RedisServer, s3: S3rverHandle) {
  const prefix = freshPrefix();
  const reported: Reported[] = [];
  let started = () => {};
  const converting = new Promise<void>((resolve) => {
    started = resolve;
  });
  const fake = createFakeConverter({ delayMs: CONVERSION_MS });
  // Tells when a conversion has its input (read from S3) and is converting.
  const converter: Converter = {
    ...fake,
    convert: (ctx) => {
      started();
      return fake.convert(ctx);
    },
  };
  const node = async () =>
    createEngine({
      storage: createS3Storage({
        bucket: s3.bucket,
        endpoint: s3.endpoint,
        forcePathStyle: true,
        credentials: S3RVER_CREDENTIALS,
        prefix: `${prefix}/`,
      }),
      jobs: createRedisJobStore({ url: redis.url, prefix, onError: () => {} }),
      queue: createBullmqQueue({ url: redis.url, prefix, onError: () => {} }),
      converters: [converter, createSharpConverter()],
      tempDir: await tempDir(),
      sweepIntervalMs: 0,
      concurrency: 2,
      onError: (error, context) => reported.push({ error, context }),
    });
  const api = await node();
  const workers = [await node(), await node()];
  await api.start({ worker: false });
  return {
    api,
    workers,
    reported,
    /** Settles once the first conversion has read its input and is converting. */
    converting,
    close: () => Promise.all([api, ...workers].map((engine) => engine.close({ graceMs: 1000 }))),
  };
}

/** Eight text jobs (the fake converter: exact bytes known) and two PNG -> WebP jobs (sharp). */
async function queueJobs(api: Engine) {
  const texts = Array.from({ length: 8 }, (_, index) => `document ${index}\n`.repeat(2000 + index));
  const png = await sharp({ create: { width: 96, height: 64, channels: 3, background: '#3a7' } })
    .png()
    .toBuffer();
  const jobs: Job[] = [];
  for (const [index, text] of texts.entries()) {
    const file = await api.uploadFile({
      owner: OWNER,
      fileName: `doc-${index}.txt`,
      body: Buffer.from(text),
    });
    jobs.push(await api.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'md' }));
  }
  for (let index = 0; index < 2; index++) {
    const file = await api.uploadFile({ owner: OWNER, fileName: `image-${index}.png`, body: png });
    jobs.push(await api.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'webp' }));
  }
  return {
    jobs,
    /** Every job completed on its first attempt, each result exactly what its input makes. */
    async expectAllCorrect(): Promise<void> {
      for (const [index, job] of jobs.entries()) {
        const done = await api.waitForJob(job.id, { timeoutMs: 60_000, pollMs: 100 });
        expect(done.status, JSON.stringify(done.error)).toBe('completed');
        // Waited out inside the worker, not run again: the queue's attempts were not spent.
        expect(done.attempts).toBe(1);
        const bytes = await readAll((await api.openResult(job.id, OWNER)).stream);
        if (index < texts.length) {
          expect(bytes.equals(Buffer.from(fakeOutputHeader('fake', 'txt', 'md') + texts[index]))).toBe(true);
        } else {
          const meta = await sharp(bytes).metadata();
          expect([meta.format, meta.width, meta.height]).toEqual(['webp', 96, 64]);
        }
      }
    },
  };
}

/** Waits until some job runs (four run at once: two workers x two) while others still wait. */
async function untilSomeRun(statuses: () => Promise<JobStatus[]>): Promise<void> {
  for (let waited = 0; !(await statuses()).includes('processing'); waited += 50) {
    expect(waited, 'no job started').toBeLessThan(20_000);
    await sleep(50);
  }
}

/**
 * Polls that no job fails, for at least `minMs` and then until `done()` (at most `maxMs`).
 * `statuses` may fail itself (Redis away): then that poll is skipped.
 */
async function noneFailsWhile(
  statuses: () => Promise<JobStatus[]>,
  { minMs, maxMs = minMs, done = () => true }: { minMs: number; maxMs?: number; done?: () => boolean },
): Promise<void> {
  const started = Date.now();
  for (;;) {
    const now = await statuses().catch(() => [] as JobStatus[]);
    expect(now).not.toContain('failed');
    const elapsed = Date.now() - started;
    if (elapsed >= maxMs || (elapsed >= minMs && done())) return;
    await sleep(500);
  }
}

function waitMessages(reported: Reported[]): string[] {
  const waits = reported.filter((entry) => entry.context.includes(WAITING));
  expect(waits.every(({ error }) => isFileconvError(error, 'UNAVAILABLE'))).toBe(true);
  return waits.map(({ error }) => (error as Error).message);
}

// Persistent: BullMQ keeps its ids over the Redis restart of the second test.
describeWithRedis(
  'scale-out on Redis + S3 while a backing service is away',
  { persistent: true },
  (redis) => {
    let s3: S3rverHandle;

    beforeAll(async () => {
      s3 = await startS3rver();
    });

    afterAll(async () => {
      await s3?.stop();
    });

    it('S3 stopped while jobs are read and stored: every job completes, bytes intact', async () => {
      const { api, workers, reported, converting, close } = await deployment(redis, s3);
      try {
        const { jobs, expectAllCorrect } = await queueJobs(api);
        const statuses = () => Promise.all(jobs.map(async (job) => (await api.getJob(job.id)).status));
        // The first worker's jobs are converting when S3 goes: they meet it when storing. The
        // second worker starts during the outage: its jobs meet it when reading their inputs.
        const [first, second] = workers as [Engine, Engine];
        await first.start();
        await converting;

        await s3.pause();
        const atOutage = await statuses();
        expect(atOutage).toContain('processing');
        expect(atOutage).toContain('queued');
        await second.start();
        // The outage lasts at least 6 s, and on a slow machine longer (up to 30 s), until both
        // ends of a job have met it: inputs being read and results being stored. (A job whose
        // result was stored just before may still complete: its record is in Redis.)
        const met = (prefix: string) => () =>
          waitMessages(reported).some((message) => message.startsWith(prefix));
        const reading = met('Reading "uploads/');
        const storing = met('Storing "results/');
        await noneFailsWhile(statuses, { minMs: 6_000, maxMs: 30_000, done: () => reading() && storing() });
        await s3.resume();

        const seen = JSON.stringify(waitMessages(reported));
        expect(reading(), seen).toBe(true);
        expect(storing(), seen).toBe(true);
        await expectAllCorrect();
      } finally {
        await s3.resume(); // for the next test, should this one have failed midway
        await close();
      }
    }, 120_000);

    it('Redis stopped for 6 s with jobs queued and running: every job completes, bytes intact', async () => {
      const { api, workers, reported, close } = await deployment(redis, s3);
      try {
        const { jobs, expectAllCorrect } = await queueJobs(api);
        const statuses = () => Promise.all(jobs.map(async (job) => (await api.getJob(job.id)).status));
        for (const worker of workers) await worker.start();
        await untilSomeRun(statuses);

        await redis.stop();
        await noneFailsWhile(statuses, { minMs: 6_000 });
        await redis.start();

        // The running jobs finished converting while Redis was away and waited to record that.
        const messages = waitMessages(reported);
        expect(messages.some((message) => message.includes('Redis'))).toBe(true);
        await expectAllCorrect();
      } finally {
        await redis.start();
        await close();
      }
    }, 120_000);
  },
);
