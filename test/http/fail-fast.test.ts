/**
 * Fail fast and loud (issue 15, item 3). Mounting the HTTP service on an engine without a port
 * it needs throws at mount time, through every adapter, naming what is missing and how to give
 * it. An engine whose queue is in-process and whose worker was never started is not ready, and
 * refuses new jobs at once (UNAVAILABLE, nothing charged) instead of letting POST /api/convert
 * wait ten minutes; the host hears of it once, 5 s after mounting. A shared queue (workers
 * elsewhere, `fileconv serve --no-worker`) is never judged.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryCounterStore } from '../../src/adapters/counters/memory.js';
import { createHttpRouter } from '../../src/adapters/http/express.js';
import { createFastifyPlugin } from '../../src/adapters/http/fastify.js';
import { createFetchHandler } from '../../src/adapters/http/fetch.js';
import { createNodeHandler } from '../../src/adapters/http/node.js';
import { createHttpService } from '../../src/adapters/http/service.js';
import { createMemoryJobStore } from '../../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../../src/adapters/queue/memory.js';
import { createFsStorage } from '../../src/adapters/storage/fs.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { createEngine, type Engine, type EngineOptions, FileconvError } from '../../src/index.js';
import { call, expectError, fixture, SECRET, sharedQueue, startServer, uploadA, uploadB } from './harness.js';

const NO_WORKER =
  'No worker is running to convert jobs: call engine.start() (the queue is in-process, so only this process can run its jobs).';

const dirs: string[] = [];
const engines: Engine[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function engineWith(ports: Partial<EngineOptions>): Promise<Engine> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-failfast-'));
  dirs.push(dir);
  const engine = createEngine({
    converters: [createSharpConverter()],
    tempDir: dir,
    sweepIntervalMs: 0,
    ...ports,
  });
  engines.push(engine);
  return engine;
}

async function storageIn(): Promise<ReturnType<typeof createFsStorage>> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-failfast-storage-'));
  dirs.push(dir);
  return createFsStorage({ dir, fsync: false });
}

const MOUNTS = {
  createHttpService: (engine: Engine) => createHttpService(engine, { signingSecret: SECRET }),
  createNodeHandler: (engine: Engine) => createNodeHandler(engine, { signingSecret: SECRET }),
  createHttpRouter: (engine: Engine) => createHttpRouter(engine, { signingSecret: SECRET }),
  createFetchHandler: (engine: Engine) => createFetchHandler(engine, { signingSecret: SECRET }),
  createFastifyPlugin: (engine: Engine) => createFastifyPlugin(engine, { signingSecret: SECRET }),
};

function mountError(mount: () => unknown): FileconvError {
  try {
    mount();
  } catch (error) {
    expect(error).toBeInstanceOf(FileconvError);
    return error as FileconvError;
  }
  throw new Error('mounted without throwing');
}

describe('mounting on an engine without a port the HTTP API needs', () => {
  const cases = [
    {
      missing: 'storage',
      ports: async () => ({ jobs: createMemoryJobStore(), queue: createMemoryQueue() }),
      message:
        'createHttpService: the engine has no storage: pass `storage` to createEngine (e.g. createFsStorage({ dir })).',
    },
    {
      missing: 'jobs',
      ports: async () => ({ storage: await storageIn(), queue: createMemoryQueue() }),
      message:
        "createHttpService: the engine has no job store (jobs): pass `jobs` to createEngine (e.g. createSqliteJobStore({ path: 'fileconv.db' })).",
    },
    {
      missing: 'queue',
      ports: async () => ({ storage: await storageIn(), jobs: createMemoryJobStore() }),
      message:
        'createHttpService: the engine has no queue: pass `queue` to createEngine (e.g. createMemoryQueue(), and call engine.start()).',
    },
  ];
  for (const { missing, ports, message } of cases) {
    for (const [adapter, mount] of Object.entries(MOUNTS)) {
      it(`without ${missing}: ${adapter} throws CONFIG naming it`, async () => {
        const engine = await engineWith(await ports());
        const error = mountError(() => mount(engine));
        expect({ code: error.code, status: error.status, message: error.message }).toEqual({
          code: 'CONFIG',
          status: 500,
          message,
        });
      });
    }
  }

  it('names every missing port at once (the direct-API-only engine)', async () => {
    const engine = await engineWith({});
    expect(mountError(() => MOUNTS.createNodeHandler(engine)).message).toBe(
      'createHttpService: the engine has no storage: pass `storage` to createEngine (e.g. createFsStorage({ dir })); ' +
        "no job store (jobs): pass `jobs` to createEngine (e.g. createSqliteJobStore({ path: 'fileconv.db' })); " +
        'no queue: pass `queue` to createEngine (e.g. createMemoryQueue(), and call engine.start()).',
    );
  });

  it('the engine itself says the same when jobs are used without their ports', async () => {
    const engine = await engineWith({ storage: await storageIn() });
    await expect(engine.getJob('some-job')).rejects.toMatchObject({
      code: 'CONFIG',
      message: expect.stringContaining('no job store (jobs): pass `jobs` to createEngine'),
    });
  });
});

/** Each factory called the way a host slips: whatever arguments, unchecked by the types. */
const UNTYPED_MOUNTS: Record<string, (...args: unknown[]) => unknown> = {
  createHttpService: createHttpService as (...args: unknown[]) => unknown,
  createNodeHandler: createNodeHandler as (...args: unknown[]) => unknown,
  createHttpRouter: createHttpRouter as (...args: unknown[]) => unknown,
  createFetchHandler: createFetchHandler as (...args: unknown[]) => unknown,
  createFastifyPlugin: createFastifyPlugin as (...args: unknown[]) => unknown,
};

describe('mounting with a wrong or missing argument (issue 29): CONFIG at mount time, naming it and the call', () => {
  async function fullEngine(): Promise<Engine> {
    return engineWith({
      storage: await storageIn(),
      jobs: createMemoryJobStore(),
      queue: createMemoryQueue(),
    });
  }
  const configError = (entryPoint: string, message: string) => ({
    code: 'CONFIG',
    status: 500,
    message: expect.stringMatching(new RegExp(`^${entryPoint}: ${message}`)),
  });
  const fields = (error: FileconvError) => ({
    code: error.code,
    status: error.status,
    message: error.message,
  });

  let engine: Engine;
  beforeEach(async () => {
    engine = await fullEngine();
  });

  for (const [entryPoint, mount] of Object.entries(UNTYPED_MOUNTS)) {
    it(`${entryPoint}(engine) without its second argument names it and shows the preset's call`, () => {
      const error = mountError(() => mount(engine));
      expect(fields(error)).toEqual(
        configError(entryPoint, 'the second argument \\(the options\\) is missing'),
      );
      expect(error.message).toContain('(fileconv.jobs, fileconv.http');
      expect(error.message).toContain('{ signingSecret }');
    });
  }

  it('options without signingSecret name options.signingSecret', () => {
    expect(fields(mountError(() => createHttpRouter(engine, {})))).toEqual(
      configError('createHttpRouter', 'options.signingSecret is missing'),
    );
  });

  it('the preset object itself as the engine: "pass fileconv.jobs, not fileconv"', () => {
    const fileconvLike = { jobs: engine, http: { signingSecret: SECRET } };
    expect(
      fields(mountError(() => UNTYPED_MOUNTS.createHttpRouter!(fileconvLike, fileconvLike.http))),
    ).toEqual(
      configError(
        'createHttpRouter',
        'the first argument must be the job engine \\(pass fileconv.jobs, not fileconv\\)',
      ),
    );
  });

  it('options of the wrong type, a secret of the wrong type or too short', () => {
    expect(fields(mountError(() => UNTYPED_MOUNTS.createNodeHandler!(engine, SECRET)))).toEqual(
      configError('createNodeHandler', 'the second argument must be the options object, got a string'),
    );
    expect(
      fields(mountError(() => UNTYPED_MOUNTS.createFetchHandler!(engine, { signingSecret: 42 }))),
    ).toEqual(
      configError(
        'createFetchHandler',
        'options.signingSecret must be a string or a Uint8Array, got a number',
      ),
    );
    expect(fields(mountError(() => createFastifyPlugin(engine, { signingSecret: 'short' })))).toEqual(
      configError(
        'createFastifyPlugin',
        'options.signingSecret: The signing secret must be at least 32 bytes long',
      ),
    );
  });
});

describe('an in-process queue whose worker was never started', () => {
  it('is not ready (check "worker"); jobs are refused at once with nothing charged; after start() they convert', {
    timeout: 5_000,
  }, async () => {
    const counters = createMemoryCounterStore();
    const server = await startServer({
      start: false,
      engine: { queue: createMemoryQueue() },
      router: { counters },
    });
    expect(server.engine.workerStatus()).toBe('none');

    const ready = await call(server, 'GET', '/api/ready');
    expect(ready.status).toBe(503);
    const failing = (ready.body.checks as { name: string; ok: boolean; error?: unknown }[]).filter(
      (check) => !check.ok,
    );
    expect(failing).toEqual([
      {
        name: 'worker',
        ok: false,
        ms: expect.any(Number),
        error: { code: 'UNAVAILABLE', message: NO_WORKER },
      },
    ]);

    // Flow B: the upload is kept (no worker needed); the conversion is refused, not left to hang.
    const png = await fixture('fixture.png');
    const uploaded = await uploadB(server, png, 'a.png');
    expect(uploaded.status, uploaded.text).toBe(200);
    const convertBody = { fileId: uploaded.body.fileId, fileName: 'a.png', targetFormat: 'webp' };
    const refused = await call(server, 'POST', '/api/convert', { json: convertBody });
    expectError(refused, 503, 'UNAVAILABLE');
    expect(refused.body.error).toEqual({
      code: 'UNAVAILABLE',
      message: NO_WORKER,
      details: { check: 'worker' },
    });

    // Flow A: one job and a batch, both refused before anything is stored.
    const granted = await uploadA(server, png, 'b.png', 'image/png');
    const job = { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: png.length };
    expectError(await call(server, 'POST', '/api/jobs/create', { json: job }), 503, 'UNAVAILABLE');
    expectError(await call(server, 'POST', '/api/jobs/batch', { json: { jobs: [job] } }), 503, 'UNAVAILABLE');
    expect(await server.jobRecords()).toEqual([]);

    const usage = await call(server, 'GET', '/api/usage');
    expect(usage.body.quotas.conversions.used).toBe(0);
    // Each refusal reached the host's log (a 5xx); nothing else did.
    expect(server.serverErrors.map((error) => (error as FileconvError).code)).toEqual([
      'UNAVAILABLE',
      'UNAVAILABLE',
      'UNAVAILABLE',
    ]);
    server.serverErrors.length = 0;

    await server.engine.start();
    expect(server.engine.workerStatus()).toBe('running');
    expect((await call(server, 'GET', '/api/ready')).status).toBe(200);
    const converted = await call(server, 'POST', '/api/convert', { json: convertBody });
    expect(converted.status, converted.text).toBe(200);
    expect(converted.body.outputName).toBe('a.webp');
    expect((await call(server, 'GET', '/api/usage')).body.quotas.conversions.used).toBe(1);
  });

  it('a shared queue (workers elsewhere, as behind `serve --no-worker`) is never judged', async () => {
    const server = await startServer({ start: false });
    expect(server.engine.workerStatus()).toBe('unknown');
    const ready = await call(server, 'GET', '/api/ready');
    expect(ready.status, ready.text).toBe(200);
    expect((ready.body.checks as { name: string }[]).map((check) => check.name)).not.toContain('worker');
    const png = await fixture('fixture.png');
    const granted = await uploadA(server, png, 'a.png', 'image/png');
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey: granted.fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: png.length },
    });
    expect(created.status, created.text).toBe(200);
  });
});

describe('the host hears of a missing worker once, 5 s after mounting', () => {
  async function inProcessEngine(queue = createMemoryQueue()): Promise<Engine> {
    return engineWith({ storage: await storageIn(), jobs: createMemoryJobStore(), queue });
  }

  it('warns through onError with a CONFIG error when start() was not called', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const engine = await inProcessEngine();
    const heard: unknown[] = [];
    createHttpService(engine, { signingSecret: SECRET, onError: (error) => heard.push(error) });
    vi.advanceTimersByTime(4_999);
    expect(heard).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({
      code: 'CONFIG',
      message:
        "createHttpService: no worker started within 5 s of mounting and the engine's queue is in-process: jobs created over HTTP are refused (503 UNAVAILABLE) and GET /api/ready answers 503 until engine.start() is called.",
    });
    vi.advanceTimersByTime(60_000);
    expect(heard).toHaveLength(1);
  });

  it('stays quiet when start() follows the mount, and for a shared queue', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const heard: unknown[] = [];
    const onError = (error: unknown) => heard.push(error);
    const started = await inProcessEngine();
    createHttpService(started, { signingSecret: SECRET, onError });
    await started.start();
    const shared = await inProcessEngine(sharedQueue(createMemoryQueue()));
    createHttpService(shared, { signingSecret: SECRET, onError });
    vi.advanceTimersByTime(10_000);
    expect(heard).toEqual([]);
  });
});
