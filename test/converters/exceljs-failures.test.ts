/**
 * The exceljs converter on broken, hostile and empty inputs: every failure is a FileconvError with
 * a stable code and leaves neither a scratch file nor a partial output behind.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { createSpreadsheetConverter } from '../../src/converters/exceljs/index.js';
import { FileconvError } from '../../src/core/errors.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const converter = withOptionsParsed(createSpreadsheetConverter());

/** The entries of a zip, in order. */
async function zipEntries(path: string): Promise<{ name: string; data: Buffer }[]> {
  const zip = await yauzl.openPromise(path);
  const entries: { name: string; data: Buffer }[] = [];
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    entries.push({ name: entry.fileName, data: Buffer.concat(chunks) });
  }
  zip.close();
  return entries;
}

async function writeZip(path: string, entries: { name: string; data: Buffer }[]): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const entry of entries) zip.addBuffer(entry.data, entry.name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  await writeFile(path, Buffer.concat(chunks));
}

/** fixture.xlsx with its entries changed by `edit`, written as `name` in the inputs. */
async function alteredWorkbook(
  ws: Workspace,
  name: string,
  edit: (entries: { name: string; data: Buffer }[]) => { name: string; data: Buffer }[],
): Promise<string> {
  const path = join(ws.inputs, name);
  await writeZip(path, edit(await zipEntries(fixture('fixture.xlsx'))));
  return path;
}

/**
 * exceljs's temporary copies of worksheets (the `tmp` package: os.tmpdir()/tmp-<pid>-*) made by
 * this process. A failure must not strand them.
 */
async function exceljsTempCopies(): Promise<number> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith(`tmp-${process.pid}-`)).length;
}

/** Expects `code` from converting `inputPath`, and no leftovers; returns the error. */
async function failsWith(
  ws: Workspace,
  from: string,
  to: string,
  inputPath: string,
  code: FileconvError['code'],
) {
  const copies = await exceljsTempCopies();
  const error = await expectCode(converter.convert(context(ws, from, to, { inputPath })), code);
  await expectNoLeftovers(ws);
  // After a failure exceljs is walked past its remaining sheets in the background.
  await expect.poll(exceljsTempCopies).toBeLessThanOrEqual(copies);
  return error;
}

describe('broken xlsx', () => {
  it('refuses a truncated workbook as CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const bytes = await readFile(fixture('fixture.xlsx'));
    const input = join(ws.inputs, 'truncated.xlsx');
    await writeFile(input, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    await failsWith(ws, 'xlsx', 'csv', input, 'CORRUPT_INPUT');
  });

  it('refuses a docx named .xlsx, and a zip of random files, as CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const docx = join(ws.inputs, 'document.xlsx');
    await writeFile(docx, await readFile(fixture('fixture.docx')));
    const error = await failsWith(ws, 'xlsx', 'csv', docx, 'CORRUPT_INPUT');
    expect(error.message).toMatch(/not an Excel workbook/);

    const random = join(ws.inputs, 'random.xlsx');
    await writeZip(random, [
      { name: 'a.bin', data: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)) },
      { name: 'dir/b.txt', data: Buffer.from('hello') },
    ]);
    await failsWith(ws, 'xlsx', 'json', random, 'CORRUPT_INPUT');
  });

  it('refuses bytes that are not a zip at all as CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'noise.xlsx');
    await writeFile(input, 'name,value\nnot,a zip\n');
    await failsWith(ws, 'xlsx', 'html', input, 'CORRUPT_INPUT');
  });

  it('refuses a workbook without xl/workbook.xml as CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const input = await alteredWorkbook(ws, 'no-workbook.xlsx', (entries) =>
      entries.filter((entry) => entry.name !== 'xl/workbook.xml'),
    );
    await failsWith(ws, 'xlsx', 'csv', input, 'CORRUPT_INPUT');
  });

  it('refuses a sheet whose part is missing, or whose XML is broken, as CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const missing = await alteredWorkbook(ws, 'missing.xlsx', (entries) =>
      entries.filter((entry) => entry.name !== 'xl/worksheets/sheet1.xml'),
    );
    const error = await failsWith(ws, 'xlsx', 'csv', missing, 'CORRUPT_INPUT');
    expect(error.message).toContain('sheet1.xml');

    const broken = await alteredWorkbook(ws, 'broken.xlsx', (entries) =>
      entries.map((entry) =>
        entry.name === 'xl/worksheets/sheet1.xml'
          ? { name: entry.name, data: Buffer.from(entry.data.toString('utf8').replace('</row>', '</cell>')) }
          : entry,
      ),
    );
    await failsWith(ws, 'xlsx', 'tsv', broken, 'CORRUPT_INPUT');
  });

  it('refuses an unknown sheet without stranding exceljs temporary copies', async () => {
    const ws = await workspace();
    const copies = await exceljsTempCopies();
    const ctx = context(ws, 'xlsx', 'csv', { options: { sheet: 'Nope' } });
    await expectCode(converter.convert(ctx), 'INVALID_OPTIONS');
    await expect.poll(exceljsTempCopies).toBeLessThanOrEqual(copies);
    await expectNoLeftovers(ws);
  });

  it('applies the zip limits given to the factory (INPUT_LIMIT_EXCEEDED)', async () => {
    const ws = await workspace();
    const strict = withOptionsParsed(createSpreadsheetConverter({ zip: { maxUncompressedBytes: 1000 } }));
    await expectCode(strict.convert(context(ws, 'xlsx', 'csv')), 'INPUT_LIMIT_EXCEEDED');
    await expectNoLeftovers(ws);
    expect(() => createSpreadsheetConverter({ zip: { maxRatio: 0 } })).toThrow(FileconvError);
  });

  it('bounds the shared-string table, which is held in memory (INPUT_LIMIT_EXCEEDED)', async () => {
    const ws = await workspace();
    const strict = withOptionsParsed(createSpreadsheetConverter({ maxSharedStringsBytes: 100 }));
    const error = await expectCode(strict.convert(context(ws, 'xlsx', 'json')), 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ maxSharedStringsBytes: 100 });
    await expectNoLeftovers(ws);
  });
});

describe('broken text', () => {
  it('refuses a CSV with an unclosed quote as CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'open-quote.csv');
    await writeFile(input, 'a,b\n1,"never closed\n2,3\n');
    await failsWith(ws, 'csv', 'xlsx', input, 'CORRUPT_INPUT');
  });

  it('refuses a CSV record longer than 8 MiB as INPUT_LIMIT_EXCEEDED', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'one-line.csv');
    // 1.3 million fields of 7 characters: more than 8 MiB of field text on one line.
    await writeFile(input, 'abcdefg,'.repeat(1_300_000));
    await failsWith(ws, 'csv', 'json', input, 'INPUT_LIMIT_EXCEEDED');
  });

  it('refuses a cell longer than Excel allows as INPUT_LIMIT_EXCEEDED', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'long-cell.tsv');
    await writeFile(input, `a\tb\n1\t${'y'.repeat(40_000)}\n`);
    const error = await failsWith(ws, 'tsv', 'xlsx', input, 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ row: 2, column: 2 });
  });

  it('refuses invalid JSON and JSON that is not an array of objects as CORRUPT_INPUT', async () => {
    const ws = await workspace();
    for (const [name, text] of [
      ['syntax.json', '[{"a": 1},'],
      ['object.json', '{"a": 1}'],
      ['arrays.json', '[[1, 2], [3, 4]]'],
    ] as const) {
      const input = join(ws.inputs, name);
      await writeFile(input, text);
      await failsWith(ws, 'json', 'xlsx', input, 'CORRUPT_INPUT');
    }
  });

  it('refuses JSON over maxJsonBytes as INPUT_LIMIT_EXCEEDED', async () => {
    const ws = await workspace();
    const small = withOptionsParsed(createSpreadsheetConverter({ maxJsonBytes: 64 }));
    const error = await expectCode(small.convert(context(ws, 'json', 'csv')), 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ maxJsonBytes: 64 });
    await expectNoLeftovers(ws);
  });

  it('converts empty inputs to empty outputs', async () => {
    const ws = await workspace();
    const csv = join(ws.inputs, 'empty.csv');
    const json = join(ws.inputs, 'empty.json');
    await writeFile(csv, '');
    await writeFile(json, '\uFEFF[]');
    const out = (name: string) => join(ws.outputs, name);
    await converter.convert(context(ws, 'csv', 'json', { inputPath: csv, outputPath: out('a.json') }));
    expect(await readFile(out('a.json'), 'utf8')).toBe('[]\n');
    await converter.convert(context(ws, 'json', 'csv', { inputPath: json, outputPath: out('b.csv') }));
    expect(await readFile(out('b.csv'), 'utf8')).toBe('');
    await converter.convert(context(ws, 'csv', 'xlsx', { inputPath: csv, outputPath: out('c.xlsx') }));
    await converter.convert(
      context(ws, 'xlsx', 'html', { inputPath: out('c.xlsx'), outputPath: out('d.html') }),
    );
    expect(await readFile(out('d.html'), 'utf8')).toContain('<title>Sheet1</title>\n');
  });
});

describe('abort and output failures', () => {
  it('answers an aborted signal with CANCELED, or CONVERSION_TIMEOUT for a timeout', async () => {
    const ws = await workspace();
    await expectCode(
      converter.convert(context(ws, 'xlsx', 'csv', { signal: AbortSignal.abort() })),
      'CANCELED',
    );
    const timeout = AbortSignal.abort(new DOMException('too slow', 'TimeoutError'));
    await expectCode(
      converter.convert(context(ws, 'csv', 'xlsx', { signal: timeout })),
      'CONVERSION_TIMEOUT',
    );
    await expectNoLeftovers(ws);
  });

  it('removes its scratch file when the output cannot be placed', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'csv', 'tsv', { outputPath: join(ws.outputs, 'missing-dir', 'out.tsv') });
    await expectCode(converter.convert(ctx), 'CONVERSION_FAILED');
    await expectNoLeftovers(ws);
  });
});
