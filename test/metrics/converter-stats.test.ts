/**
 * The optional Converter.stats() hook and Engine.stats(), which the scrape-time metrics read:
 * the LibreOffice pool's and the ffmpeg converter's reports (without needing either engine
 * installed), and an engine that degrades instead of failing when a part cannot report.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../../src/adapters/storage/memory.js';
import { createFfmpegConverter, type FfmpegRunner } from '../../src/converters/ffmpeg/index.js';
import { LibreOfficePool } from '../../src/converters/libreoffice/libreoffice-pool.js';
import { createEngine, FileconvError, type Queue } from '../../src/index.js';
import { createFakeConverter, fixturePath, testConverter } from '../../src/testing/index.js';
import { tempDir } from '../helpers/temp.js';

describe('Converter.stats', () => {
  it('LibreOffice: the pool reports processes, busy, queued and restarts beside its own counters', async () => {
    const pool = new LibreOfficePool({
      size: 2,
      maxConversions: 200,
      maxRssBytes: 1024 ** 3,
      timeoutMs: 1000,
      startupTimeoutMs: 1000,
      tempDir: await tempDir(),
      python: 'python3',
      bridge: 'uno-bridge.py',
      soffice: 'soffice',
    });
    // Nothing runs until the first conversion: an idle pool is all zeros, not absent.
    expect(pool.stats()).toEqual({
      processes: 0,
      busy: 0,
      queued: 0,
      restarts: 0,
      workers: [],
      started: 0,
      recycled: 0,
      killed: 0,
      lost: 0,
    });
    await pool.close();
  });

  it('ffmpeg: counts the runs in flight', async () => {
    const dir = await tempDir();
    const input = join(dir, 'input.mp4');
    await writeFile(input, 'not really a video');
    let fail: (error: Error) => void = () => {};
    const probing = new Promise<never>((_, reject) => {
      fail = reject;
    });
    let probed: () => void = () => {};
    const probeStarted = new Promise<void>((resolve) => {
      probed = resolve;
    });
    const runner: FfmpegRunner = {
      kind: 'native',
      available: async () => ({ ok: true }),
      probe: () => {
        probed();
        return probing;
      },
      run: () => Promise.reject(new Error('not reached')),
    };
    const converter = createFfmpegConverter({ runner });
    expect(converter.stats?.()).toEqual({ processes: 0, busy: 0 });
    const converting = converter.convert({
      inputPath: input,
      outputPath: join(dir, 'out.webm'),
      from: 'mp4',
      to: 'webm',
      options: {},
      tempDir: dir,
      signal: new AbortController().signal,
      onProgress: () => {},
      limits: { maxPixels: 1_000_000 },
    });
    await probeStarted;
    expect(converter.stats?.()).toEqual({ processes: 1, busy: 1 });
    fail(new FileconvError('CORRUPT_INPUT', 'ffprobe could not read it'));
    await expect(converting).rejects.toThrow(/ffprobe/);
    expect(converter.stats?.()).toEqual({ processes: 0, busy: 0 });
  });
});

// The conformance suite's stats() check, on a converter that has the hook: none of those in
// test/testing/converter-conformance.test.ts has one (LibreOffice and ffmpeg do, and are not there).
testConverter(
  'fake with stats',
  () => ({ ...createFakeConverter(), stats: () => ({ processes: 1, busy: 0, queued: 0, restarts: 0 }) }),
  { samples: [{ from: 'txt', to: 'md', input: fixturePath('txt'), damagedInput: 'tolerated' }] },
);

describe('Engine.stats', () => {
  it('reports what it can when a converter hook throws or the queue cannot count', async () => {
    const errors: string[] = [];
    const memoryQueue = createMemoryQueue();
    // A queue without the optional size(): its depth is unknown, not 0.
    const queue: Queue = {
      enqueue: (id, options) => memoryQueue.enqueue(id, options),
      process: (handler, options) => memoryQueue.process(handler, options),
      close: () => memoryQueue.close(),
    };
    const engine = createEngine({
      converters: [
        { ...createFakeConverter({ name: 'pooled' }), stats: () => ({ processes: 3, busy: 1 }) },
        {
          ...createFakeConverter({ name: 'flaky', edges: [{ from: 'md', to: 'html', cost: 1 }] }),
          stats: () => {
            throw new Error('stats broke');
          },
        },
        createFakeConverter({ name: 'plain', edges: [{ from: 'html', to: 'txt', cost: 1 }] }),
      ],
      storage: createMemoryStorage(),
      jobs: createMemoryJobStore(),
      queue,
      onError: (_error, context) => errors.push(context),
    });
    expect(await engine.stats()).toEqual({
      queued: undefined,
      processing: 0,
      converters: { pooled: { processes: 3, busy: 1 } },
    });
    expect(errors).toEqual(['stats of flaky']);
    await engine.close();
  });

  it('leaves the depth unknown while the queue is out of reach', async () => {
    const memoryQueue = createMemoryQueue();
    const engine = createEngine({
      converters: [createFakeConverter()],
      storage: createMemoryStorage(),
      jobs: createMemoryJobStore(),
      queue: {
        enqueue: (id, options) => memoryQueue.enqueue(id, options),
        process: (handler, options) => memoryQueue.process(handler, options),
        close: () => memoryQueue.close(),
        size: () => Promise.reject(new FileconvError('UNAVAILABLE', 'Redis is away.')),
      },
    });
    expect((await engine.stats()).queued).toBeUndefined();
    await engine.close();
  });
});
