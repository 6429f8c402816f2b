/**
 * A conversion only an unavailable engine could make: the direct API (whoever runs this machine)
 * hears which engine and the line that installs it; an API client, who is offered only what is
 * available, hears that the conversion is not supported.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import type { Converter } from '../src/core/ports/index.js';
import { createEngine } from '../src/index.js';
import { copyConverter } from './helpers/fake-converters.js';
import { fixture, tempDir } from './helpers/temp.js';

const uninstalled: Converter = {
  ...copyConverter('pdf', [{ from: 'pdf', to: 'txt', cost: 1, lossy: true }]),
  available: async () => ({
    ok: false,
    reason: 'not installed: pdfjs-dist',
    install: 'npm install pdfjs-dist pdf-lib',
  }),
};

describe('a conversion that needs an engine not installed here', () => {
  it('is ENGINE_UNAVAILABLE with the install line in the direct API', async () => {
    const engine = createEngine({ converters: [uninstalled] });
    await expect(
      engine.convertFile(fixture('fixture.pdf'), join(await tempDir(), 'out.txt')),
    ).rejects.toMatchObject({
      code: 'ENGINE_UNAVAILABLE',
      message:
        'Turning pdf into txt needs the pdf engine, which is not available here (not installed: pdfjs-dist): run `npm install pdfjs-dist pdf-lib`',
      details: { converter: 'pdf', install: 'npm install pdfjs-dist pdf-lib' },
    });
  });

  it('is UNSUPPORTED_CONVERSION for a job, as GET /api/formats does not offer it', async () => {
    const engine = createEngine({
      converters: [uninstalled],
      storage: createMemoryStorage(),
      jobs: createMemoryJobStore(),
      queue: createMemoryQueue(),
    });
    const file = await engine.uploadFile({
      owner: 'a',
      fileName: 'doc.pdf',
      body: await import('node:fs/promises').then((fs) => fs.readFile(fixture('fixture.pdf'))),
    });
    await expect(
      engine.createJob({ owner: 'a', fileId: file.id, targetFormat: 'txt' }),
    ).rejects.toMatchObject({
      code: 'UNSUPPORTED_CONVERSION',
    });
  });
});
