import { existsSync } from 'node:fs';
import { copyFile, lstat, readFile, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { createFsJobStore } from '../src/adapters/jobs/fs.js';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createFsStorage } from '../src/adapters/storage/fs.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import { createSharpConverter } from '../src/converters/sharp/index.js';
import { type Converter, createEngine, type EngineOptions, type Job } from '../src/index.js';
import { truncated } from '../src/testing/bad-inputs.js';
import { copyConverter } from './helpers/fake-converters.js';
import { fixture, leftovers, tempDir } from './helpers/temp.js';

const OWNER = 'acct_1';

async function memoryEngine(overrides: Partial<EngineOptions> = {}) {
  const engineTemp = await tempDir();
  const engine = createEngine({
    storage: createMemoryStorage(),
    jobs: createMemoryJobStore(),
    queue: createMemoryQueue(),
    converters: [createSharpConverter()],
    tempDir: engineTemp,
    sweepIntervalMs: 0,
    ...overrides,
  });
  return { engine, engineTemp };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

describe('jobs', () => {
  it('upload -> job -> worker -> result, with measured CPU time', async () => {
    const { engine, engineTemp } = await memoryEngine();
    await engine.start();
    const file = await engine.uploadFile({
      owner: OWNER,
      fileName: '../../etc/photo.heic',
      body: await readFile(fixture('fixture.heic')),
    });
    expect(file.fileName).toBe('photo.heic');
    const job = await engine.createJob({
      owner: OWNER,
      fileId: file.id,
      sourceFormat: 'heic',
      targetFormat: 'webp',
      fileSize: file.size,
    });
    expect(job).toMatchObject({
      status: 'queued',
      sourceFormat: 'heic',
      targetFormat: 'webp',
      outputName: 'photo.webp',
    });
    const done = await engine.waitForJob(job.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.cpuMs).toBeGreaterThan(0);
    expect(done.completedAt).not.toBeNull();
    const result = await engine.openResult(job.id, OWNER);
    expect(result).toMatchObject({ contentType: 'image/webp', fileName: 'photo.webp' });
    const meta = await sharp(await readAll(result.stream)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 64, 48]);
    expect(await leftovers(engineTemp)).toEqual([]);
    await engine.close();
  });

  it('on the fs store, converts the upload where it is stored and keeps no meta file beside the result', async () => {
    const dataDir = await tempDir();
    const engineTemp = await tempDir();
    const storage = createFsStorage({ dir: join(dataDir, 'files') });
    // What the converter was handed: a link to the stored upload, not a copy of it.
    const seen: { symlink: boolean; target: string }[] = [];
    const sharpConverter = createSharpConverter();
    const engine = createEngine({
      storage,
      jobs: createMemoryJobStore(),
      queue: createMemoryQueue(),
      converters: [
        {
          ...sharpConverter,
          async convert(ctx) {
            seen.push({
              symlink: (await lstat(ctx.inputPath)).isSymbolicLink(),
              target: await realpath(ctx.inputPath),
            });
            return sharpConverter.convert(ctx);
          },
        },
      ],
      tempDir: engineTemp,
      sweepIntervalMs: 0,
    });
    await engine.start();
    try {
      const file = await engine.uploadFile({
        owner: OWNER,
        fileName: 'photo.png',
        body: await readFile(fixture('fixture.png')),
      });
      const job = await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'webp' });
      const done = await engine.waitForJob(job.id);
      expect(done.status, JSON.stringify(done.error)).toBe('completed');
      expect(seen).toEqual([{ symlink: true, target: await realpath((await storage.localPath(file.key))!) }]);
      // The upload is untouched, the result decodes, and the download is typed from the job.
      expect(await readFile((await storage.localPath(file.key))!)).toEqual(
        await readFile(fixture('fixture.png')),
      );
      const result = await engine.openResult(job.id, OWNER);
      expect(result.contentType).toBe('image/webp');
      expect((await sharp(await readAll(result.stream)).metadata()).format).toBe('webp');
      expect(existsSync(join(dataDir, 'files', '.fileconv-meta', 'results'))).toBe(false);
      expect(await leftovers(engineTemp)).toEqual([]);
    } finally {
      await engine.close();
    }
  });

  it('refuses bad requests before queueing', async () => {
    const { engine } = await memoryEngine();
    const file = await engine.uploadFile({
      owner: OWNER,
      fileName: 'a.png',
      body: await readFile(fixture('fixture.png')),
    });
    await expect(
      engine.createJob({ owner: 'someone-else', fileId: file.id, targetFormat: 'jpg' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'jpg', fileSize: 1 }),
    ).rejects.toMatchObject({ code: 'SIZE_MISMATCH' });
    await expect(
      engine.createJob({ owner: OWNER, fileId: file.id, sourceFormat: 'gif', targetFormat: 'jpg' }),
    ).rejects.toMatchObject({ code: 'CONTENT_MISMATCH' });
    await expect(
      engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'nope' }),
    ).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
    await expect(
      engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'docx' }),
    ).rejects.toMatchObject({ code: 'UNSUPPORTED_CONVERSION' });
    await expect(
      engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'jpg', options: { quality: 'x' } }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(
      engine.uploadFile({ owner: OWNER, fileName: 'big.png', body: Buffer.alloc(2048), maxBytes: 1024 }),
    ).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
  });

  it('a corrupt input fails its job with CORRUPT_INPUT and the worker goes on', async () => {
    const { engine, engineTemp } = await memoryEngine();
    await engine.start();
    const bad = await engine.uploadFile({
      owner: OWNER,
      fileName: 'cut.jpg',
      body: truncated(await readFile(fixture('fixture.jpg'))),
    });
    const good = await engine.uploadFile({
      owner: OWNER,
      fileName: 'ok.jpg',
      body: await readFile(fixture('fixture.jpg')),
    });
    const badJob = await engine.createJob({ owner: OWNER, fileId: bad.id, targetFormat: 'png' });
    const goodJob = await engine.createJob({ owner: OWNER, fileId: good.id, targetFormat: 'png' });
    const failed = await engine.waitForJob(badJob.id);
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('CORRUPT_INPUT');
    await expect(engine.openResult(badJob.id, OWNER)).rejects.toMatchObject({ code: 'INVALID_STATE' });
    expect((await engine.waitForJob(goodJob.id)).status).toBe('completed');
    expect(await leftovers(engineTemp)).toEqual([]);
    await engine.close();
  });

  it('hides another owner\u2019s job and cancels a queued one', async () => {
    const { engine } = await memoryEngine();
    const file = await engine.uploadFile({
      owner: OWNER,
      fileName: 'a.png',
      body: await readFile(fixture('fixture.png')),
    });
    const job = await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'webp' });
    await expect(engine.getJob(job.id, 'intruder')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const canceled = await engine.cancelJob(job.id, OWNER);
    expect(canceled.status).toBe('canceled');
    await expect(engine.cancelJob(job.id, OWNER)).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await engine.start(); // the queued id is delivered, and skipped
    await engine.close();
    expect((await engine.getJob(job.id)).status).toBe('canceled');
  });

  it('runs higher-priority jobs first', async () => {
    const { engine } = await memoryEngine({ concurrency: 1 });
    const body = await readFile(fixture('fixture.png'));
    const order: string[] = [];
    const jobs: Job[] = [];
    for (const priority of [0, 5, 1]) {
      const file = await engine.uploadFile({ owner: OWNER, fileName: `p${priority}.png`, body });
      jobs.push(await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'jpg', priority }));
    }
    await engine.start();
    for (const job of jobs) order.push(`${(await engine.waitForJob(job.id)).startedAt}|${job.priority}`);
    const byStart = [...order].sort().map((entry) => entry.split('|')[1]);
    expect(byStart).toEqual(['5', '1', '0']);
    await engine.close();
  });

  it('starts the next conversion while the last result is still being stored, never more than `concurrency`', async () => {
    let running = 0;
    let most = 0;
    const order: string[] = [];
    const slow: Converter = {
      ...copyConverter('slow', [{ from: 'png', to: 'jpg', cost: 1 }]),
      async convert(ctx) {
        running++;
        most = Math.max(most, running);
        order.push('convert');
        await copyFile(ctx.inputPath, ctx.outputPath);
        running--;
        return { cpuMs: 1 };
      },
    };
    // Storing a result waits until the next conversion has started (a slow disk or network).
    const storage = createMemoryStorage();
    const slowStorage = {
      ...storage,
      async put(...args: Parameters<typeof storage.put>) {
        if (args[0].startsWith('results/')) {
          const before = order.filter((step) => step === 'convert').length;
          await vi
            .waitFor(
              () => expect(order.filter((step) => step === 'convert').length).toBeGreaterThan(before),
              {
                timeout: 500,
              },
            )
            .catch(() => {}); // the last job has no next conversion to wait for
          order.push('stored');
        }
        return storage.put(...args);
      },
    };
    const { engine } = await memoryEngine({ converters: [slow], concurrency: 1, storage: slowStorage });
    const body = await readFile(fixture('fixture.png'));
    const jobs: Job[] = [];
    for (let index = 0; index < 3; index++) {
      const file = await engine.uploadFile({ owner: OWNER, fileName: `f${index}.png`, body });
      jobs.push(await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'jpg' }));
    }
    await engine.start();
    const done = await Promise.all(jobs.map((job) => engine.waitForJob(job.id)));
    expect(done.map((job) => job.status)).toEqual(['completed', 'completed', 'completed']);
    expect(most).toBe(1);
    // The second conversion ran before the first result was stored.
    const secondConvert = order.indexOf('convert', order.indexOf('convert') + 1);
    expect(secondConvert).toBeGreaterThan(0);
    expect(order.indexOf('stored')).toBeGreaterThan(secondConvert);
    expect(order.filter((step) => step === 'stored')).toHaveLength(3);
    await engine.close();
  });

  it('engine.processJob, as a custom worker calls it, resolves once the job is settled', async () => {
    const { engine } = await memoryEngine();
    const file = await engine.uploadFile({
      owner: OWNER,
      fileName: 'a.png',
      body: await readFile(fixture('fixture.png')),
    });
    const job = await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'jpg' });
    await engine.processJob(job.id);
    expect((await engine.getJob(job.id)).status).toBe('completed');
    await engine.close();
  });

  it('a job whose stored input vanished fails with NOT_FOUND and the worker goes on', async () => {
    const storage = createMemoryStorage();
    const { engine, engineTemp } = await memoryEngine({ storage });
    const file = await engine.uploadFile({
      owner: OWNER,
      fileName: 'a.png',
      body: await readFile(fixture('fixture.png')),
    });
    const job = await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'webp' });
    await storage.delete(file.key);
    await engine.start();
    const failed = await engine.waitForJob(job.id, { timeoutMs: 10_000 });
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('NOT_FOUND');
    expect(await leftovers(engineTemp)).toEqual([]);
    await engine.close();
  });

  it('keeps working when its temp dir is removed underneath it', async () => {
    const { engine, engineTemp } = await memoryEngine();
    await engine.start();
    await rm(engineTemp, { recursive: true, force: true });
    const file = await engine.uploadFile({
      owner: OWNER,
      fileName: 'a.png',
      body: await readFile(fixture('fixture.png')),
    });
    const job = await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'webp' });
    expect((await engine.waitForJob(job.id, { timeoutMs: 10_000 })).status).toBe('completed');
    expect(await leftovers(engineTemp)).toEqual([]);
    await engine.close();
  });

  it('expires results after their retention', async () => {
    let now = Date.parse('2026-11-22T00:00:00Z');
    const { engine } = await memoryEngine({ now: () => new Date(now), resultTtlMs: 60_000 });
    await engine.start();
    const file = await engine.uploadFile({
      owner: OWNER,
      fileName: 'a.png',
      body: await readFile(fixture('fixture.png')),
    });
    const job = await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'gif' });
    expect((await engine.waitForJob(job.id)).status).toBe('completed');
    expect(await engine.sweepExpired()).toBe(0);
    now += 61_000;
    expect(await engine.sweepExpired()).toBe(1); // the result; the upload lives longer (uploadTtlMs)
    now += 3_600_000;
    expect(await engine.sweepExpired()).toBe(1); // now the upload
    await expect(engine.getFile(file.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await engine.getJob(job.id)).status).toBe('expired');
    await expect(engine.openResult(job.id, OWNER)).rejects.toMatchObject({ code: 'RESULT_EXPIRED' });
    await engine.close();
  });
});

describe('restart with the filesystem adapters', () => {
  it('a job that was processing when the process died runs again and completes', async () => {
    const dataDir = await tempDir();
    const engineTemp = await tempDir();
    const assemble = () =>
      createEngine({
        storage: createFsStorage({ dir: join(dataDir, 'files') }),
        jobs: createFsJobStore({ dir: join(dataDir, 'jobs') }),
        queue: createMemoryQueue(),
        converters: [createSharpConverter()],
        tempDir: engineTemp,
        sweepIntervalMs: 0,
      });

    // First life: a job is queued, a worker claims it (queued -> processing) and the process dies
    // before it finishes. Nothing is killed: the first engine is simply abandoned.
    const first = assemble();
    const file = await first.uploadFile({
      owner: OWNER,
      fileName: 'photo.heic',
      body: await readFile(fixture('fixture.heic')),
    });
    const interrupted = await first.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'png' });
    const stillQueued = await first.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'jpg' });
    const jobsOfFirst = createFsJobStore({ dir: join(dataDir, 'jobs') });
    const claimed = {
      ...interrupted,
      version: interrupted.version + 1,
      status: 'processing' as const,
      attempts: 1,
      startedAt: new Date().toISOString(),
    };
    await jobsOfFirst.updateJob(claimed);

    // Second life: same directories, a new engine.
    const second = assemble();
    await second.start();
    const done = await second.waitForJob(interrupted.id);
    expect(done.status).toBe('completed');
    expect(done.attempts).toBe(2);
    expect((await second.waitForJob(stillQueued.id)).status).toBe('completed');
    const meta = await sharp(
      await readAll((await second.openResult(interrupted.id, OWNER)).stream),
    ).metadata();
    expect([meta.format, meta.width]).toEqual(['png', 64]);
    expect(await leftovers(engineTemp)).toEqual([]);
    await second.close();
  });

  it('a canceled job is not resurrected by a restart', async () => {
    const dataDir = await tempDir();
    const engine = createEngine({
      storage: createFsStorage({ dir: join(dataDir, 'files') }),
      jobs: createFsJobStore({ dir: join(dataDir, 'jobs') }),
      queue: createMemoryQueue(),
      converters: [copyConverter('copy', [{ from: 'png', to: 'tiff', cost: 1 }])],
      sweepIntervalMs: 0,
    });
    const file = await engine.uploadFile({
      owner: OWNER,
      fileName: 'a.png',
      body: await readFile(fixture('fixture.png')),
    });
    const job = await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'tiff' });
    await engine.cancelJob(job.id);
    expect(await engine.recoverJobs()).toBe(0);
  });
});

describe('progress', () => {
  it('is saved at most once an interval, and not in a job’s first one', async () => {
    const reporting: Converter = {
      ...copyConverter('reporting', [{ from: 'png', to: 'jpg', cost: 1 }]),
      async convert(ctx) {
        for (const fraction of [0.1, 0.2, 0.3]) {
          ctx.onProgress(fraction);
          await sleep(30);
        }
        await sleep(250);
        ctx.onProgress(0.6);
        await sleep(250);
        ctx.onProgress(0.9);
        await copyFile(ctx.inputPath, ctx.outputPath);
        return { cpuMs: 1 };
      },
    };
    const { engine } = await memoryEngine({ converters: [reporting], progressIntervalMs: 200 });
    const saved: number[] = [];
    engine.onJobEvent((event) => {
      if (event.type === 'progress') saved.push(event.job.progress);
    });
    const body = await readFile(fixture('fixture.png'));
    const file = await engine.uploadFile({ owner: OWNER, fileName: 'p.png', body });
    const job = await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'jpg' });
    await engine.start();
    expect((await engine.waitForJob(job.id)).status).toBe('completed');
    // 0.1-0.3 come within the first 200 ms; 0.6 after it; 0.9 another interval later.
    expect(saved).toEqual([0.6, 0.9]);
    await engine.close();
  });
});
