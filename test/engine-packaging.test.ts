import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import { type Converter, createEngine } from '../src/index.js';
import { fixture, leftovers, tempDir } from './helpers/temp.js';

const OWNER = 'acct_1';

/** pdf -> png that, asked for every page, writes "a zip" (any bytes: the engine only names it). */
const pagesConverter: Converter = {
  name: 'pages',
  edges: [{ from: 'txt', to: 'png', cost: 1 }],
  available: async () => ({ ok: true }),
  optionsSchema: () => z.strictObject({ pages: z.literal('all').optional() }),
  packaging: (_to, options) => (options.pages === 'all' ? 'zip' : undefined),
  async convert(ctx) {
    await copyFile(ctx.inputPath, ctx.outputPath);
    return { cpuMs: 1 };
  },
};

async function engineWithPages() {
  const engineTemp = await tempDir();
  const engine = createEngine({
    storage: createMemoryStorage(),
    jobs: createMemoryJobStore(),
    queue: createMemoryQueue(),
    converters: [pagesConverter],
    tempDir: engineTemp,
    sweepIntervalMs: 0,
  });
  return { engine, engineTemp };
}

describe('results packaged as a zip', () => {
  it('names and serves a job result as a zip when the last converter packages it', async () => {
    const { engine, engineTemp } = await engineWithPages();
    await engine.start();
    const file = await engine.uploadFile({
      owner: OWNER,
      fileName: 'notes.txt',
      body: Buffer.from('hello\n'),
    });
    const zipped = await engine.createJob({
      owner: OWNER,
      fileId: file.id,
      targetFormat: 'png',
      options: { pages: 'all' },
    });
    expect(zipped).toMatchObject({ outputName: 'notes.zip', packaging: 'zip' });
    const single = await engine.createJob({ owner: OWNER, fileId: file.id, targetFormat: 'png' });
    expect(single.outputName).toBe('notes.png');
    expect(single.packaging).toBeUndefined();
    expect((await engine.waitForJob(zipped.id)).status).toBe('completed');
    expect((await engine.waitForJob(single.id)).status).toBe('completed');
    expect(await engine.openResult(zipped.id, OWNER)).toMatchObject({
      contentType: 'application/zip',
      fileName: 'notes.zip',
    });
    expect(await engine.openResult(single.id, OWNER)).toMatchObject({
      contentType: 'image/png',
      fileName: 'notes.png',
    });
    expect(await leftovers(engineTemp)).toEqual([]);
    await engine.close();
  });

  it('reports the packaging of a direct conversion', async () => {
    const { engine } = await engineWithPages();
    const work = await tempDir();
    const report = await engine.convertFile(fixture('fixture.txt'), join(work, 'out.zip'), {
      to: 'png',
      options: { pages: 'all' },
    });
    expect(report.packaging).toBe('zip');
    expect(await readFile(join(work, 'out.zip'))).toEqual(await readFile(fixture('fixture.txt')));
    await engine.close();
  });
});

describe('password-protected Office documents', () => {
  it.each(['xlsx', 'docx'])(
    'refuse an encrypted .%s with PASSWORD_PROTECTED before planning',
    async (ext) => {
      const { engine } = await engineWithPages();
      const work = await tempDir();
      await expect(
        engine.convertFile(join(fixture('bad'), `encrypted.${ext}`), join(work, 'out.csv')),
      ).rejects.toMatchObject({ code: 'PASSWORD_PROTECTED' });
      await engine.close();
    },
  );
});
