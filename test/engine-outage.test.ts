/**
 * The worker against backing services that go away (test/helpers/outages.ts: memory adapters
 * wrapped to answer UNAVAILABLE on demand). A missing input fails at once with NOT_FOUND; an
 * outage is waited out and the job completes on its first attempt; one that outlasts the budget
 * fails with UNAVAILABLE and is refunded; a wait ends at once on a cancel, here or on another
 * node, and on a shutdown; an outcome is recorded even when the job store is away at that moment.
 */
import { copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { createMemoryCounterStore } from '../src/adapters/counters/memory.js';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import { FileconvError } from '../src/core/errors.js';
import { blameFullDisk, conversionFailure } from '../src/engine/conversion-failure.js';
import {
  type Converter,
  createEngine,
  type EngineOptions,
  type Job,
  type Queue,
  type QueueHandler,
} from '../src/index.js';
import { noSpaceError } from '../src/kit/local-files.js';
import { settleJobCharges } from '../src/service/metering.js';
import { createFakeConverter, fakeOutputHeader, readAll } from '../src/testing/index.js';
import { createOutage } from './helpers/outages.js';
import { leftovers, tempDir } from './helpers/temp.js';

const OWNER = 'acct_1';
const TEXT = 'notes\n'.repeat(100);
const EXPECTED = fakeOutputHeader('fake', 'txt', 'md') + TEXT;

async function setup(
  overrides: Partial<EngineOptions> = {},
  outageCode: 'UNAVAILABLE' | 'NO_SPACE' = 'UNAVAILABLE',
) {
  const outage = createOutage(outageCode);
  const storage = createMemoryStorage();
  const jobs = createMemoryJobStore();
  const counters = createMemoryCounterStore();
  const engineTemp = await tempDir();
  const reported: string[] = [];
  const options: EngineOptions = {
    storage: outage.storage(storage),
    jobs: outage.jobs(jobs),
    queue: createMemoryQueue(),
    converters: [createFakeConverter({ delayMs: 100 })],
    tempDir: engineTemp,
    sweepIntervalMs: 0,
    onJobSettled: settleJobCharges(counters),
    onError: (_, context) => reported.push(context),
    ...overrides,
  };
  const engine = createEngine(options);
  /** A queued job with one charged conversion, the way the HTTP layer charges it. */
  async function chargedJob(): Promise<{ job: Job; quotaKey: string }> {
    const file = await engine.uploadFile({ owner: OWNER, fileName: 'notes.txt', body: Buffer.from(TEXT) });
    const quotaKey = `quota:${file.id}`;
    const charge = { kind: 'conversions', key: quotaKey, expiresAt: Date.now() + 3_600_000, amount: 1 };
    await counters.increment(quotaKey, 1, charge.expiresAt);
    return {
      job: await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'md', charge }),
      quotaKey,
    };
  }
  /** The job as stored, read past the outage. */
  const stored = async (id: string) => (await jobs.getJob(id))!;
  async function until(id: string, check: (job: Job) => boolean, what: string): Promise<Job> {
    for (let waited = 0; waited < 10_000; waited += 20) {
      const job = await stored(id);
      if (check(job)) return job;
      await sleep(20);
    }
    throw new Error(`timed out waiting for ${what}`);
  }
  return {
    engine,
    outage,
    storage,
    jobs,
    counters,
    engineTemp,
    reported,
    options,
    chargedJob,
    stored,
    until,
  };
}

async function resultText(engine: ReturnType<typeof createEngine>, id: string): Promise<string> {
  return (await readAll((await engine.openResult(id, OWNER)).stream)).toString();
}

describe('a worker whose backing services go away', () => {
  it('fails a job whose input is really gone at once with NOT_FOUND, not refunded', async () => {
    const { engine, storage, counters, chargedJob } = await setup(); // the default 2-minute budget
    const { job, quotaKey } = await chargedJob();
    await storage.delete(job.inputKey);
    const started = Date.now();
    await engine.start();
    const failed = await engine.waitForJob(job.id, { timeoutMs: 10_000 });
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('is gone') });
    expect(Date.now() - started).toBeLessThan(2_000);
    await sleep(50); // a refund would have happened by now
    expect(await counters.get(quotaKey)).toBe(1); // the client's file, not the service's fault
    await engine.close();
  });

  it('waits out a brief storage outage: the job completes on its first attempt, bytes intact', async () => {
    const { engine, outage, chargedJob, until, reported } = await setup();
    const { job } = await chargedJob();
    outage.takeDown('storage.get', 'storage.put');
    await engine.start();
    await until(job.id, () => (outage.failures.get('storage.get') ?? 0) >= 2, 'retries');
    expect((await engine.getJob(job.id)).status).toBe('processing');
    outage.bringBack();
    const done = await engine.waitForJob(job.id, { timeoutMs: 10_000 });
    expect(done).toMatchObject({ status: 'completed', attempts: 1, error: null });
    expect(await resultText(engine, job.id)).toBe(EXPECTED);
    // One report for the outage, not one per attempt.
    expect(reported.filter((context) => context.includes('waiting for it to come back'))).toHaveLength(1);
    await engine.close();
  });

  it('retries the upload of a result from the converted file, without converting again', async () => {
    const conversions: string[] = [];
    const fake = createFakeConverter();
    const counting: Converter = {
      ...fake,
      convert: (ctx) => {
        conversions.push(ctx.inputPath);
        return fake.convert(ctx);
      },
    };
    const { engine, outage, chargedJob, until } = await setup({ converters: [counting] });
    const { job } = await chargedJob(); // the upload itself goes through put: take it away after
    outage.takeDown('storage.put');
    await engine.start();
    await until(job.id, () => (outage.failures.get('storage.put') ?? 0) >= 3, 'put retries');
    outage.bringBack();
    const done = await engine.waitForJob(job.id, { timeoutMs: 10_000 });
    expect(done).toMatchObject({ status: 'completed', attempts: 1 });
    expect(await resultText(engine, job.id)).toBe(EXPECTED);
    expect(conversions).toHaveLength(1);
    await engine.close();
  });

  it('fails with UNAVAILABLE once an outage outlasts the budget, stays processing until then, and refunds', async () => {
    const { engine, outage, counters, chargedJob, stored } = await setup({ unavailableRetryMs: 1_500 });
    const { job, quotaKey } = await chargedJob();
    outage.takeDown('storage.get');
    const started = Date.now();
    await engine.start();
    await sleep(700);
    expect((await stored(job.id)).status).toBe('processing');
    const failed = await engine.waitForJob(job.id, { timeoutMs: 10_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(failed.status).toBe('failed');
    expect(failed.attempts).toBe(1);
    expect(failed.error).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/storage\.get: the service is away .*still failing after \d+ attempts/),
    });
    // A service fault: the conversion is given back (by onJobSettled, just after the failure is saved).
    await vi.waitFor(async () => expect(await counters.get(quotaKey)).toBe(0));
    await engine.close();
  });

  it('fails at the first UNAVAILABLE when the budget is 0', async () => {
    const { engine, outage, chargedJob } = await setup({ unavailableRetryMs: 0 });
    const { job } = await chargedJob();
    outage.takeDown('storage.get');
    await engine.start();
    const failed = await engine.waitForJob(job.id, { timeoutMs: 5_000 });
    expect(failed.error?.code).toBe('UNAVAILABLE');
    expect(outage.failures.get('storage.get')).toBe(1);
    await engine.close();
  });

  it('a cancel on the same node ends the wait at once', async () => {
    const { engine, outage, chargedJob, until, engineTemp } = await setup();
    const { job } = await chargedJob();
    outage.takeDown('storage.get');
    await engine.start();
    await until(job.id, () => (outage.failures.get('storage.get') ?? 0) >= 1, 'a failed read');
    const canceledAt = Date.now();
    expect((await engine.cancelJob(job.id, OWNER)).status).toBe('canceled');
    // The run is over (its work dir gone) long before the next backoff step would end.
    while ((await leftovers(engineTemp)).length > 0) await sleep(10);
    expect(Date.now() - canceledAt).toBeLessThan(200);
    expect((await engine.getJob(job.id)).status).toBe('canceled');
    await engine.close();
  });

  it('a cancel on another node is noticed between attempts; the job is never marked failed', async () => {
    const worker = await setup();
    const { job } = await worker.chargedJob();
    // An API node: the same job store and storage, a queue of its own, no worker.
    const api = createEngine({ ...worker.options, queue: createMemoryQueue() });
    worker.outage.takeDown('storage.get');
    await worker.engine.start();
    await worker.until(job.id, () => (worker.outage.failures.get('storage.get') ?? 0) >= 2, 'retries');
    expect((await api.cancelJob(job.id, OWNER)).status).toBe('canceled');
    const before = worker.outage.failures.get('storage.get') ?? 0;
    while ((await leftovers(worker.engineTemp)).length > 0) await sleep(20);
    // At most the attempt already under way when the cancel came.
    expect(worker.outage.failures.get('storage.get') ?? 0).toBeLessThanOrEqual(before + 1);
    expect((await worker.stored(job.id)).status).toBe('canceled');
    await Promise.all([worker.engine.close(), api.close()]);
  });

  it('a shutdown past its grace ends the wait and puts the job back in the queue', async () => {
    const { engine, outage, chargedJob, until, stored } = await setup();
    const { job } = await chargedJob();
    outage.takeDown('storage.get');
    await engine.start();
    await until(job.id, () => (outage.failures.get('storage.get') ?? 0) >= 1, 'a failed read');
    const closing = Date.now();
    await engine.close({ graceMs: 100 });
    expect(Date.now() - closing).toBeLessThan(1_000);
    expect(await stored(job.id)).toMatchObject({ status: 'queued', error: null });
  });

  it('records the outcome once the job store is back, keeping the result', async () => {
    const { engine, outage, chargedJob, until, stored } = await setup({
      converters: [createFakeConverter({ delayMs: 300 })],
    });
    const { job } = await chargedJob();
    await engine.start();
    await until(job.id, (current) => current.status === 'processing', 'the start');
    outage.takeDown('jobs.getJob', 'jobs.updateJob');
    await sleep(1_000); // converted meanwhile; recording waits
    expect((await stored(job.id)).status).toBe('processing');
    expect(outage.failures.get('jobs.updateJob') ?? outage.failures.get('jobs.getJob')).toBeGreaterThan(0);
    outage.bringBack();
    const done = await engine.waitForJob(job.id, { timeoutMs: 10_000 });
    expect(done).toMatchObject({ status: 'completed', attempts: 1 });
    expect(await resultText(engine, job.id)).toBe(EXPECTED);
    await engine.close();
  });

  it('a full disk: the conversion fails at once with NO_SPACE and is refunded; the record waits for room', async () => {
    // Storage that cannot give the input a place in the work dir: not waited for, a service fault.
    const full = await setup({ unavailableRetryMs: 60_000 }, 'NO_SPACE');
    const { job, quotaKey } = await full.chargedJob();
    full.outage.takeDown('storage.get');
    const started = Date.now();
    await full.engine.start();
    const failed = await full.engine.waitForJob(job.id, { timeoutMs: 5_000 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'NO_SPACE' } });
    await vi.waitFor(async () => expect(await full.counters.get(quotaKey)).toBe(0));
    await full.engine.close();

    // A job store on a full disk when the outcome is written: waited out, the result is kept.
    const { engine, outage, chargedJob, until, stored } = await setup(
      { converters: [createFakeConverter({ delayMs: 300 })] },
      'NO_SPACE',
    );
    const second = (await chargedJob()).job;
    await engine.start();
    await until(second.id, (current) => current.status === 'processing', 'the start');
    outage.takeDown('jobs.updateJob');
    await sleep(1_000);
    expect((await stored(second.id)).status).toBe('processing');
    expect(outage.failures.get('jobs.updateJob')).toBeGreaterThan(0);
    outage.bringBack();
    const done = await engine.waitForJob(second.id, { timeoutMs: 10_000 });
    expect(done).toMatchObject({ status: 'completed', attempts: 1 });
    expect(await resultText(engine, second.id)).toBe(EXPECTED);
    await engine.close();
  });

  it('takes a completion whose answer was lost for the completion it is, not for a conflict', async () => {
    let outage: ReturnType<typeof createOutage> | undefined;
    // Converts without progress reports, then makes the next job write (the completion) land
    // without an answer, as a dropped Redis connection does.
    const losing: Converter = {
      name: 'losing',
      edges: [{ from: 'txt', to: 'md', cost: 1 }],
      available: async () => ({ ok: true }),
      async convert(ctx) {
        await copyFile(ctx.inputPath, ctx.outputPath);
        outage?.loseReply('jobs.updateJob');
        return { cpuMs: 1 };
      },
    };
    const context = await setup({ converters: [losing] });
    outage = context.outage;
    const events: string[] = [];
    context.engine.onJobEvent((event) => {
      events.push(event.type);
    });
    const { job } = await context.chargedJob();
    await context.engine.start();
    const done = await context.engine.waitForJob(job.id, { timeoutMs: 10_000 });
    expect(done).toMatchObject({ status: 'completed', attempts: 1 });
    expect(outage.failures.get('jobs.updateJob')).toBe(1);
    expect(await resultText(context.engine, job.id)).toBe(TEXT); // not deleted as a loser's output
    expect(events.filter((type) => type === 'completed')).toHaveLength(1);
    await context.engine.close();
  });
});

/** A durable queue whose deliveries the test makes by hand. */
function manualDurableQueue(): Queue & { deliver: QueueHandler } {
  let handler: QueueHandler | undefined;
  return {
    durable: true,
    enqueue: async () => {},
    process: (next) => {
      handler = next;
    },
    close: async () => {},
    deliver: (jobId, delivery) => (handler as QueueHandler)(jobId, delivery),
  };
}

describe('deliveries of a job that is processing elsewhere (durable queue)', () => {
  it('a duplicate entry leaves it to the worker that has it; a redelivery takes it over', async () => {
    const queue = manualDurableQueue();
    const { engine, jobs, chargedJob, stored } = await setup({ queue });
    const { job } = await chargedJob();
    await engine.start();
    // Another worker claimed it and is, say, waiting for storage to come back.
    await jobs.updateJob({ ...job, status: 'processing', attempts: 1, version: job.version + 1 });

    // A second entry of the id (recovery on a start enqueues it again): not a takeover.
    await queue.deliver(job.id, { redelivered: false });
    expect(await stored(job.id)).toMatchObject({ status: 'processing', attempts: 1 });

    // The entry of a worker that died (or whose handler threw) comes back: taken over.
    await queue.deliver(job.id, { redelivered: true });
    expect(await stored(job.id)).toMatchObject({ status: 'completed', attempts: 2 });
    await engine.close();
  });

  it('a takeover the job store cannot record goes back to the queue instead of being dropped', async () => {
    const queue = manualDurableQueue();
    const { engine, jobs, outage, chargedJob, stored } = await setup({ queue, unavailableRetryMs: 300 });
    const { job } = await chargedJob();
    await engine.start();
    await jobs.updateJob({ ...job, status: 'processing', attempts: 1, version: job.version + 1 });
    outage.takeDown('jobs.updateJob');
    // The handler rejects, so the queue delivers it again later (BullMQ: with backoff).
    await expect(queue.deliver(job.id, { redelivered: true })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    outage.bringBack();
    await queue.deliver(job.id, { redelivered: true });
    expect(await stored(job.id)).toMatchObject({ status: 'completed', attempts: 2 });
    await engine.close();
  });
});

describe('a conversion that fails on a nearly full disk', () => {
  const office = (code: 'CORRUPT_INPUT' | 'CONVERSION_FAILED', reason: string) =>
    new FileconvError(code, 'LibreOffice could not open the file', {
      details: { engine: 'libreoffice', reason },
    });
  const MiB = 1024 * 1024;

  it("is the disk's fault when LibreOffice could not open the file or said nothing, with under 8 MiB free", () => {
    expect(blameFullDisk(office('CORRUPT_INPUT', 'corrupt'), 64 * 1024).code).toBe('NO_SPACE');
    expect(blameFullDisk(office('CONVERSION_FAILED', 'failed'), MiB).code).toBe('NO_SPACE');
    const emptyVideo = new FileconvError('CORRUPT_INPUT', 'Nothing in the input could be decoded', {
      details: { engine: 'ffmpeg', reason: 'empty-result' },
    });
    expect(blameFullDisk(emptyVideo, 0).code).toBe('NO_SPACE');
    expect(blameFullDisk(emptyVideo, 100 * MiB).code).toBe('CORRUPT_INPUT');
    const blamed = blameFullDisk(new FileconvError('INTERNAL', 'exit 77'), 0);
    expect([blamed.code, blamed.details?.retryAfterSeconds]).toEqual(['NO_SPACE', 30]);
  });

  it("is the disk's fault when the disk was seen full while it ran, though freed before the failure was judged", async () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const room = tmpdir(); // this machine's temp dir has room
    // A full disk seen before the conversion began proves nothing about it.
    expect(noSpaceError(full, 'An upload')?.code).toBe('NO_SPACE');
    const startedAt = performance.now();
    expect((await conversionFailure(room, office('CORRUPT_INPUT', 'corrupt'), startedAt)).code).toBe(
      'CORRUPT_INPUT',
    );
    // Seen while it ran (another job's upload failed on the disk): the verdict is doubted.
    expect(noSpaceError(full, 'An upload')?.code).toBe('NO_SPACE');
    const blamed = await conversionFailure(room, office('CORRUPT_INPUT', 'corrupt'), startedAt);
    expect([blamed.code, blamed.message]).toEqual([
      'NO_SPACE',
      'The conversion failed while the disk was full: LibreOffice could not open the file',
    ]);
    // A password is read from the file itself, whatever the disk did.
    const locked = new FileconvError('PASSWORD_PROTECTED', 'locked');
    expect((await conversionFailure(room, locked, startedAt)).code).toBe('PASSWORD_PROTECTED');
  });

  it("keeps the input's own codes when there is room or the room is unknown, and codes read from headers always", () => {
    expect(blameFullDisk(office('CORRUPT_INPUT', 'corrupt'), 100 * MiB).code).toBe('CORRUPT_INPUT');
    expect(blameFullDisk(office('CORRUPT_INPUT', 'corrupt'), undefined).code).toBe('CORRUPT_INPUT');
    // A damaged-input verdict with no room left is doubted (exceljs's "no worksheets" on a full disk).
    const sheets = new FileconvError('CORRUPT_INPUT', 'The workbook has no worksheets.');
    expect(blameFullDisk(sheets, 64 * 1024).code).toBe('NO_SPACE');
    expect(blameFullDisk(sheets, 100 * MiB).code).toBe('CORRUPT_INPUT');
    expect(blameFullDisk(new FileconvError('PASSWORD_PROTECTED', 'locked'), 0).code).toBe(
      'PASSWORD_PROTECTED',
    );
  });
});
