/**
 * Office conversions through the engine: which path the graph picks with and without
 * LibreOffice (layout-keeping paths win; a lossy one only when nothing better exists), slides
 * becoming images through pdf, and what /api/formats says about lossiness.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { createSpreadsheetConverter } from '../src/converters/exceljs/index.js';
import { createLibreOfficeConverter } from '../src/converters/libreoffice/index.js';
import { createMammothConverter } from '../src/converters/mammoth/index.js';
import { createPdfConverter } from '../src/converters/pdf/index.js';
import { createTextConverter } from '../src/converters/text/index.js';
import { createEngine, type Engine } from '../src/index.js';
import { LO_AVAILABLE, LO_INSTALL, readPdf } from './converters/libreoffice-helpers.js';
import { describeWithEngine } from './helpers/engines.js';
import { fixture, leftovers, tempDir } from './helpers/temp.js';

const pureJs = () => [
  createMammothConverter(),
  createTextConverter(),
  createSpreadsheetConverter(),
  createPdfConverter(),
];

const engines: Engine[] = [];
afterAll(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

async function office(withLibreOffice: boolean) {
  const engineTemp = await tempDir();
  const converters = withLibreOffice ? [...pureJs(), createLibreOfficeConverter({ poolSize: 2 })] : pureJs();
  const engine = createEngine({ converters, tempDir: engineTemp });
  engines.push(engine);
  return { engine, engineTemp, work: await tempDir() };
}

/** The entries of a zip file, name -> bytes. */
async function unzip(path: string): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true }, (error, file) => (error ? reject(error) : resolve(file))),
  );
  const entries = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, async (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        entries.set(entry.fileName, Buffer.concat(chunks));
        zip.readEntry();
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

describe('office documents with the pure-JS converters only', () => {
  it('turns docx into pdf through a lossy text step, and says so', async () => {
    const { engine, engineTemp, work } = await office(false);
    const plan = await engine.plan('docx', 'pdf');
    expect(plan.lossySteps).toBe(1);
    expect(plan.steps.length).toBe(2);
    const output = join(work, 'out.pdf');
    const report = await engine.convertFile(fixture('fixture.docx'), output);
    expect(report.path).toEqual(['docx', ...plan.steps.map((step) => step.to)]);
    const pdf = await readPdf(output);
    expect(pdf.text).toContain('quick brown fox');
    expect(pdf.text).toContain('Привет мир');
    expect(await leftovers(engineTemp)).toEqual([]);
  });

  it('turns an xlsx sheet into csv and the csv back into xlsx', async () => {
    const { engine, work } = await office(false);
    await engine.convertFile(fixture('fixture.xlsx'), join(work, 'data.csv'), {
      options: { sheet: 'Second' },
    });
    const csv = await readFile(join(work, 'data.csv'), 'utf8');
    expect(csv).toContain('Москва,13010112');
    await engine.convertFile(join(work, 'data.csv'), join(work, 'again.xlsx'));
    await engine.convertFile(join(work, 'again.xlsx'), join(work, 'again.csv'));
    expect(await readFile(join(work, 'again.csv'), 'utf8')).toBe(csv);
  });
});

describeWithEngine('LibreOffice', LO_AVAILABLE, LO_INSTALL, 'office documents with LibreOffice', () => {
  it('prefers the layout-keeping LibreOffice path for docx -> pdf', async () => {
    const { engine, engineTemp, work } = await office(true);
    const plan = await engine.plan('docx', 'pdf');
    expect(plan.lossySteps).toBe(0);
    expect(plan.steps.map((step) => step.converter)).toEqual(['libreoffice']);
    const output = join(work, 'contract.pdf');
    await engine.convertFile(fixture('fixture.docx'), output);
    const pdf = await readPdf(output);
    expect(pdf.pages).toBe(1);
    expect(pdf.text).toContain('quick brown fox');
    expect(await leftovers(engineTemp)).toEqual([]);
  });

  it('turns slides into images through pdf: one slide, or every slide as a zip', async () => {
    const { engine, work } = await office(true);
    const plan = await engine.plan('pptx', 'png');
    expect(plan.steps.map((step) => step.to)).toEqual(['pdf', 'png']);
    const first = join(work, 'slide.png');
    await engine.convertFile(fixture('fixture.pptx'), first, { options: { width: 800 } });
    const meta = await sharp(first).metadata();
    expect([meta.format, meta.width]).toEqual(['png', 800]);
    // 28 x 15.75 cm slides (scripts/office/fixture.fodp): 16:9.
    expect(meta.height).toBe(450);
    const all = join(work, 'slides.zip');
    const report = await engine.convertFile(fixture('fixture.pptx'), all, {
      to: 'png',
      options: { pages: 'all', width: 400 },
    });
    expect(report.packaging).toBe('zip');
    const entries = await unzip(all);
    expect([...entries.keys()].sort()).toEqual(['page-001.png', 'page-002.png']);
    for (const png of entries.values()) expect((await sharp(png).metadata()).width).toBe(400);
  });

  // Made by LibreOffice's own export filters from the ODF fixtures (scripts/make-office-variant-fixtures.sh).
  it.each([
    ['ott', 'odt'],
    ['dotx', 'odt'],
    ['docm', 'odt'],
    ['ots', 'ods'],
    ['xltx', 'ods'],
    ['xlsm', 'ods'],
    ['otp', 'odp'],
    ['potx', 'odp'],
    ['pptm', 'odp'],
  ])(
    'detects a %s (template or macro-enabled) and converts it to pdf like the %s it was made from',
    async (variant, original) => {
      const { engine, work } = await office(true);
      const made = join(work, `variant.pdf`);
      const report = await engine.convertFile(fixture(`fixture.${variant}`), made);
      expect(report.from).toBe(variant);
      const reference = join(work, `original.pdf`);
      await engine.convertFile(fixture(`fixture.${original}`), reference);
      const [got, expected] = [await readPdf(made), await readPdf(reference)];
      // The same words on the same pages (bullet glyphs and spacing differ between Word and ODF exports).
      const words = (text: string) => text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word));
      expect(words(got.text).length).toBeGreaterThan(5);
      expect({ pages: got.pages, words: words(got.text) }).toEqual({
        pages: expected.pages,
        words: words(expected.text),
      });
    },
  );

  it('converts a Keynote deck to pdf', async () => {
    const { engine, work } = await office(true);
    const output = join(work, 'deck.pdf');
    await engine.convertFile(fixture('fixture.key'), output);
    const pdf = await readPdf(output);
    expect(pdf.pages).toBe(2);
    expect(pdf.text).toContain('Second slide');
  });
});
