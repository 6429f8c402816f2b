/**
 * The exceljs converter on long sheets: a 100,000-row workbook converts with the right row count
 * while the heap stays far below what loading the workbook would take, in both of exceljs's
 * streaming modes (worksheets copied to a temporary file because the shared strings come after
 * them, as Excel and exceljs write them; and worksheets parsed straight from the zip), and an abort
 * in the middle leaves nothing behind. Generated once per file, in the OS temp dir.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { createSpreadsheetConverter } from '../../src/converters/exceljs/index.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const ROWS = 100_000;
const converter = withOptionsParsed(createSpreadsheetConverter());
let dir: string;
/** Shared strings after the sheet: exceljs copies the sheet to a temporary file first. */
let spooled: string;
/** Shared strings and workbook parts first: exceljs parses the sheet straight from the zip. */
let direct: string;

const rowText = (i: number) =>
  `${i},name ${i},${i * 1.5},"note ${i}, with a comma",${i % 2 === 0 ? 'TRUE' : 'FALSE'}`;

async function makeWorkbook(path: string): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
  const sheet = workbook.addWorksheet('Big');
  sheet.addRow(['id', 'name', 'amount', 'note', 'flag']).commit();
  for (let i = 1; i <= ROWS; i++) {
    sheet.addRow([i, `name ${i}`, i * 1.5, `note ${i}, with a comma`, i % 2 === 0]).commit();
  }
  sheet.commit();
  await workbook.commit();
}

/** Rewrites the zip at `from` with the entries matching `first` moved to the front. */
async function reorderZip(from: string, to: string, first: RegExp): Promise<void> {
  const source = await yauzl.openPromise(from);
  const entries: { name: string; data: Buffer }[] = [];
  for await (const entry of source.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await source.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    entries.push({ name: entry.fileName, data: Buffer.concat(chunks) });
  }
  source.close();
  entries.sort((a, b) => Number(first.test(b.name)) - Number(first.test(a.name)));
  const zip = new yazl.ZipFile();
  for (const entry of entries) zip.addBuffer(entry.data, entry.name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  await writeFile(to, Buffer.concat(chunks));
}

/** exceljs's temporary copies of worksheets made by this process (the `tmp` package's names). */
async function exceljsTempCopies(): Promise<number> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith(`tmp-${process.pid}-`)).length;
}

/** V8's full garbage collection, made callable here (the test runner does not pass --expose-gc). */
const collectGarbage: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/**
 * Runs `work` while sampling the live heap (collected before each sample, so garbage the
 * collector has not got to yet on a loaded machine does not count: CI once saw 197 MB of it);
 * returns the largest growth over the start, in bytes. What a conversion keeps is live, so it
 * still shows: measured here, streaming 100,000 rows grows ~20 MB, loading the workbook ~190 MB.
 */
async function peakHeapGrowth(work: () => Promise<unknown>): Promise<number> {
  collectGarbage();
  const start = process.memoryUsage().heapUsed;
  let peak = 0;
  const sample = () => {
    collectGarbage();
    peak = Math.max(peak, process.memoryUsage().heapUsed - start);
  };
  const timer = setInterval(sample, 50);
  try {
    await work();
  } finally {
    clearInterval(timer);
    sample();
  }
  return peak;
}

/** Line count and selected lines of a text file, read as a stream. */
async function scanLines(
  path: string,
  wanted: number[],
): Promise<{ count: number; lines: Map<number, string> }> {
  const lines = new Map<number, string>();
  let count = 0;
  for await (const line of createInterface({
    input: createReadStream(path),
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    if (wanted.includes(count)) lines.set(count, line);
    count += 1;
  }
  return { count, lines };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileconv-exceljs-big-'));
  spooled = join(dir, 'spooled.xlsx');
  direct = join(dir, 'direct.xlsx');
  await makeWorkbook(spooled);
  await reorderZip(spooled, direct, /^(\[Content_Types]|_rels\/|xl\/(workbook|_rels|sharedStrings|styles))/);
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each([
  ['copied to a temporary file', () => spooled],
  ['parsed straight from the zip', () => direct],
])('a 100,000-row sheet %s', (_mode, input) => {
  it('converts to CSV with every row, in bounded memory', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'xlsx', 'csv', { inputPath: input() });
    const growth = await peakHeapGrowth(() => converter.convert(ctx));
    const { count, lines } = await scanLines(ctx.outputPath, [0, 1, ROWS]);
    expect(count).toBe(ROWS + 1);
    expect(lines.get(0)).toBe('id,name,amount,note,flag');
    expect(lines.get(1)).toBe(rowText(1));
    expect(lines.get(ROWS)).toBe(rowText(ROWS));
    // Loading the workbook (exceljs's Workbook) keeps about 190 MB of heap here; streaming about
    // 20 MB. Loose on purpose (the garbage collector decides when memory comes back), yet
    // tight enough to catch something kept per row: a leak of that kind once showed 150 MB.
    expect(growth).toBeLessThan(120 * 1024 * 1024);
    expect(await readdir(ws.temp)).toEqual([]);
    // Room for a CI machine running other engines' test files beside this one (47-61 s seen).
  }, 180_000);

  it('stops on abort in the middle of the rows, leaving nothing behind', async () => {
    const ws = await workspace();
    const controller = new AbortController();
    const progress: number[] = [];
    const ctx = context(ws, 'xlsx', 'json', {
      inputPath: input(),
      signal: controller.signal,
      onProgress: (fraction) => {
        progress.push(fraction);
        if (fraction > 0.7) controller.abort();
      },
    });
    const copies = await exceljsTempCopies();
    await expectCode(converter.convert(ctx), 'CANCELED');
    expect(progress.at(-1)).toBeLessThan(1);
    await expectNoLeftovers(ws);
    // exceljs's copy of the sheet is removed once it is walked past, in the background.
    await expect.poll(exceljsTempCopies, { timeout: 10_000 }).toBeLessThanOrEqual(copies);
  });
});

describe('long inputs, other directions', () => {
  it('stops on an abort during the zip check or the first sheet copy', async () => {
    const ws = await workspace();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const ctx = context(ws, 'xlsx', 'html', { inputPath: spooled, signal: controller.signal });
    await expectCode(converter.convert(ctx), 'CANCELED');
    await expectNoLeftovers(ws);
  });

  it('streams a 100,000-row CSV into xlsx, committing rows as they come', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'big.csv');
    const lines = ['id,name,amount,note,flag'];
    for (let i = 1; i <= ROWS; i++) lines.push(rowText(i));
    await writeFile(input, `${lines.join('\n')}\n`);
    lines.length = 0;
    const xlsx = join(ws.outputs, 'big.xlsx');
    const growth = await peakHeapGrowth(() =>
      converter.convert(context(ws, 'csv', 'xlsx', { inputPath: input, outputPath: xlsx })),
    );
    expect(growth).toBeLessThan(120 * 1024 * 1024);

    const back = join(ws.outputs, 'back.csv');
    await converter.convert(context(ws, 'xlsx', 'csv', { inputPath: xlsx, outputPath: back }));
    const { count, lines: seen } = await scanLines(back, [ROWS]);
    expect(count).toBe(ROWS + 1);
    expect(seen.get(ROWS)).toBe(rowText(ROWS));
  });
});

describe('worksheets parsed straight from the zip', () => {
  it('reach every sheet of the fixture, skipping the others unparsed', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'reordered.xlsx');
    await reorderZip(fixture('fixture.xlsx'), input, /^xl\/(workbook|_rels|sharedStrings|styles)/);
    const convert = async (sheet: string | number | undefined, name: string) => {
      const ctx = context(ws, 'xlsx', 'csv', { inputPath: input, outputPath: join(ws.outputs, name) });
      await converter.convert(sheet === undefined ? ctx : { ...ctx, options: { sheet } });
      return readFile(ctx.outputPath, 'utf8');
    };
    expect(await convert(undefined, 'first.csv')).toBe(
      'name,value,note\r\nalpha,1,"comma, inside"\r\nbeta,2.5,"line with ""quotes"""\r\ngamma,-3,café\r\n',
    );
    expect(await convert('Second', 'second.csv')).toBe(
      'city,population\r\nParis,2102650\r\nМосква,13010112\r\n',
    );
    await expectCode(
      converter.convert(context(ws, 'xlsx', 'csv', { inputPath: input, options: { sheet: 9 } })),
      'INVALID_OPTIONS',
    );
    expect(await readdir(ws.temp)).toEqual([]);
  });
});
