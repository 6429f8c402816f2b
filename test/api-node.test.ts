/**
 * An API node (a job engine without a worker: `fileconv serve --no-worker`) plans on the declared
 * edges of the converters it is configured with, so it needs no engine installed: with
 * LibreOffice missing it still accepts pptx -> pdf, validates the options with the declared
 * schema, lists the target in GET /api/formats, and loads nothing. A worker on the same queue
 * that has a converter for the step completes the job; one that has none fails it with
 * ENGINE_UNAVAILABLE, a service fault (refunded).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createNodeHandler } from '../src/adapters/http/node.js';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import { LIBREOFFICE } from '../src/converters/libreoffice/registration.js';
import { SERVICE_FAULT_CODES } from '../src/core/policy/index.js';
import {
  type Converter,
  type ConverterRegistration,
  createConverter,
  createEngine,
  createJobEngine,
  type JobStore,
  type Queue,
  type Storage,
} from '../src/index.js';
import { copyConverter } from './helpers/fake-converters.js';
import { listening } from './helpers/listening.js';
import { fixture, tempDir } from './helpers/temp.js';

/** LibreOffice as configured on a machine without it: its module loads, its engine is missing. */
const missingLibreOffice: Converter = {
  ...copyConverter('libreoffice', [...LIBREOFFICE.edges]),
  available: async () => ({
    ok: false,
    reason: 'not installed: soffice',
    install: 'apt-get install libreoffice',
  }),
};

/** LibreOffice's registration whose load fails (its module or engine absent), counting the tries. */
function unloadableLibreOffice(): ConverterRegistration & { loads: number } {
  const registration = {
    ...LIBREOFFICE,
    loads: 0,
    async load(): Promise<Converter> {
      registration.loads++;
      throw new Error('not installed: soffice');
    },
  };
  return registration;
}

/** Ports an API node and its workers share: one store, one storage, one (in-process) queue. */
function sharedPorts(): { storage: Storage; jobs: JobStore; queue: Queue } {
  return { storage: createMemoryStorage(), jobs: createMemoryJobStore(), queue: createMemoryQueue() };
}

async function uploadDeck(engine: {
  uploadFile: ReturnType<typeof createJobEngine>['uploadFile'];
}): Promise<string> {
  const file = await engine.uploadFile({
    owner: 'a',
    fileName: 'deck.pptx',
    body: await readFile(fixture('fixture.pptx')),
  });
  return file.id;
}

describe('an API node (no worker here)', () => {
  it('accepts pptx -> pdf with LibreOffice missing here (createEngine, started without a worker)', async () => {
    const engine = createEngine({ converters: [missingLibreOffice], ...sharedPorts(), sweepIntervalMs: 0 });
    await engine.start({ worker: false });
    const job = await engine.createJob({ owner: 'a', fileId: await uploadDeck(engine), targetFormat: 'pdf' });
    expect(job).toMatchObject({ status: 'queued', path: ['pptx', 'pdf'] });
    expect((await engine.formats()).find((format) => format.name === 'pptx')?.targets).toContain('pdf');
    await engine.close();
  });

  it('plans on declared edges and validates options without loading any converter', async () => {
    const libreoffice = unloadableLibreOffice();
    const api = createJobEngine({
      converter: createConverter({ converters: [libreoffice] }),
      ...sharedPorts(),
      worker: false,
      sweepIntervalMs: 0,
    });
    await api.start();
    const fileId = await uploadDeck(api);
    await expect(
      api.createJob({ owner: 'a', fileId, targetFormat: 'pdf', options: { quality: 0 } }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    const sheet = await api.uploadFile({
      owner: 'a',
      fileName: 'sheet.xlsx',
      body: await readFile(fixture('fixture.xlsx')),
    });
    await expect(
      api.createJob({ owner: 'a', fileId: sheet.id, targetFormat: 'csv', options: { delimiter: 'x' } }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    expect(
      await api.createJob({ owner: 'a', fileId: sheet.id, targetFormat: 'csv', options: { delimiter: ';' } }),
    ).toMatchObject({ path: ['xlsx', 'csv'], options: { delimiter: ';' } });
    const job = await api.createJob({ owner: 'a', fileId, targetFormat: 'pdf' });
    expect(job).toMatchObject({ status: 'queued', path: ['pptx', 'pdf'], outputName: 'deck.pdf' });
    expect(await api.optionsSchema('xlsx', 'csv')).toBe(LIBREOFFICE.optionsSchema?.('csv'));
    expect(api.workerStatus()).toBe('none');

    // GET /api/formats lists the declared targets.
    const mount = await listening(
      createServer(createNodeHandler(api, { signingSecret: 'x'.repeat(32) })),
      '',
    );
    try {
      const body = (await (await fetch(`${mount.url}/api/formats`)).json()) as {
        formats: { name: string; targets: { format: string; converters: string[] | null }[] }[];
      };
      const pdf = body.formats
        .find((format) => format.name === 'pptx')
        ?.targets.find((t) => t.format === 'pdf');
      expect(pdf).toMatchObject({ format: 'pdf', converters: ['libreoffice'] });
    } finally {
      await mount.close();
    }
    expect(libreoffice.loads).toBe(0);
    await api.close();
  });

  it('is completed by a worker on the same queue that has a converter for the step, failed ENGINE_UNAVAILABLE by one that has none', async () => {
    const dir = await tempDir();
    for (const [workerConverters, outcome] of [
      // A converter standing in for LibreOffice, with its edges.
      [[copyConverter('libreoffice', [...LIBREOFFICE.edges])], { status: 'completed' }],
      // LibreOffice configured, its engine missing on this worker.
      [[unloadableLibreOffice()], { status: 'failed', error: { code: 'ENGINE_UNAVAILABLE' } }],
      // No converter for the step at all.
      [[], { status: 'failed', error: { code: 'ENGINE_UNAVAILABLE' } }],
    ] as const) {
      const ports = sharedPorts();
      const api = createJobEngine({
        converter: createConverter({ converters: [unloadableLibreOffice()], tempDir: dir }),
        ...ports,
        worker: false,
        sweepIntervalMs: 0,
      });
      const worker = createJobEngine({
        converter: createConverter({ converters: [...workerConverters], tempDir: dir }),
        ...ports,
        sweepIntervalMs: 0,
      });
      await api.start();
      await worker.start();
      const job = await api.createJob({ owner: 'a', fileId: await uploadDeck(api), targetFormat: 'pdf' });
      const settled = await api.waitForJob(job.id, { pollMs: 20 });
      expect(settled, workerConverters.map((c) => c.name).join() || 'none').toMatchObject(outcome);
      await worker.close();
      await api.close();
    }
    // A service fault: the conversion's quota charge is given back.
    expect(SERVICE_FAULT_CODES.has('ENGINE_UNAVAILABLE')).toBe(true);
  });
});
