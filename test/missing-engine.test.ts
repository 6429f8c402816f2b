/**
 * A conversion only an unavailable engine (or a step's missing package) could make: the direct
 * API and an API client alike hear which engine or package and the line that installs it, not
 * that the conversion does not exist. A step names only the packages it loads.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import { DATA_EDGES } from '../src/converters/data/data-edges.js';
import { TEXT_EDGES } from '../src/converters/text/text-edges.js';
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

  it('is ENGINE_UNAVAILABLE with the install line for a job too (not UNSUPPORTED_CONVERSION)', async () => {
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
      code: 'ENGINE_UNAVAILABLE',
      details: { converter: 'pdf', install: 'npm install pdfjs-dist pdf-lib' },
    });
  });
});

describe('a step whose own package is not installed', () => {
  // The data converter's shape: json -> yaml loads a parser, vcf -> csv none.
  const ABSENT = 'fileconv-test-absent-parser';
  const data = copyConverter('data', [
    { from: 'json', to: 'yaml', cost: 1, packages: [ABSENT] },
    { from: 'vcf', to: 'csv', cost: 1 },
  ]);

  it("is ENGINE_UNAVAILABLE naming that package alone; the converter's other steps still run", async () => {
    const engine = createEngine({ converters: [data] });
    const dir = await tempDir();
    await expect(engine.convertFile(fixture('fixture.json'), join(dir, 'out.yaml'))).rejects.toMatchObject({
      code: 'ENGINE_UNAVAILABLE',
      message: `Turning json into yaml needs the data engine, which is not available here (not installed: ${ABSENT}): run \`npm install ${ABSENT}\``,
      details: { converter: 'data', install: `npm install ${ABSENT}` },
    });
    await engine.convertFile(fixture('fixture.vcf'), join(dir, 'out.csv'));
    expect(await readFile(join(dir, 'out.csv'), 'utf8')).toBe(await readFile(fixture('fixture.vcf'), 'utf8'));
    const targets = new Map((await engine.formats()).map((format) => [format.name, format.targets]));
    expect(targets.get('json')).toEqual([]);
    expect(targets.get('vcf')).toEqual(['csv']);
  });

  it('the shipped data edges name only the parsers they load', () => {
    const packagesOf = (from: string, to: string) =>
      DATA_EDGES.find((edge) => edge.from === from && edge.to === to)?.packages ?? [];
    expect(packagesOf('vcf', 'csv')).toEqual([]);
    expect(packagesOf('ics', 'json')).toEqual([]);
    expect(packagesOf('json', 'jsonl')).toEqual([]);
    expect(packagesOf('json', 'yaml')).toEqual(['yaml']);
    expect(packagesOf('yaml', 'xml')).toEqual(['yaml', 'fast-xml-parser']);
    expect(packagesOf('toml', 'json')).toEqual(['smol-toml']);
  });

  it('the shipped text edges name only the libraries they load (md -> html asks for marked, not a PDF engine)', () => {
    const packagesOf = (from: string, to: string) =>
      TEXT_EDGES.find((edge) => edge.from === from && edge.to === to)?.packages ?? [];
    expect(packagesOf('txt', 'html')).toEqual([]);
    expect(packagesOf('md', 'html')).toEqual(['marked']);
    expect(packagesOf('html', 'md')).toEqual(['turndown']);
    expect(packagesOf('txt', 'pdf')).toEqual([
      'pdf-lib',
      '@pdf-lib/fontkit',
      'dejavu-fonts-ttf',
      'regenerator-runtime',
    ]);
    expect(packagesOf('md', 'pdf')).toContain('marked');
  });
});
