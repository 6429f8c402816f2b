/**
 * One side of the spreadsheet benchmark (bench/sheets.ts), alone in its process so that its peak
 * RSS is its own. Usage: `node --import tsx bench/sheets-child.ts <fileconv|exceljs> <input.xlsx>
 * <output.csv> <tempDir>`. Both libraries are loaded before the clock starts; the last line of
 * stdout is a JSON report: { ms, rows, maxRssBytes }.
 *
 * - fileconv: the exceljs converter's xlsx -> csv (zip check, streaming read, CSV writing).
 * - exceljs: the baseline a developer would write: exceljs's streaming WorkbookReader with its
 *   defaults, every row of the first sheet joined with commas into a write stream, with backpressure.
 * - idle: nothing; the peak RSS of a child with the code loaded, which both sides start from.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import ExcelJS from 'exceljs';
import { createSpreadsheetConverter } from '../src/converters/exceljs/index.js';

const [mode, input, output, tempDir] = process.argv.slice(2);
if (!['fileconv', 'exceljs', 'idle'].includes(mode ?? '') || !input || !output || !tempDir) {
  throw new Error('usage: sheets-child.ts <fileconv|exceljs|idle> <input.xlsx> <output.csv> <tempDir>');
}

async function viaExcelJs(): Promise<number> {
  const out = createWriteStream(output!);
  let rows = 0;
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input!, {});
  for await (const sheet of reader) {
    for await (const row of sheet) {
      rows += 1;
      const line = `${(row.values as unknown[]).slice(1).join(',')}\n`;
      if (!out.write(line)) await once(out, 'drain');
    }
    break; // the first sheet, as the converter does by default
  }
  out.end();
  await once(out, 'close');
  return rows;
}

/** Data rows in the converter's CSV (one line per row, none holds a line break), counted after the clock. */
async function countLines(path: string): Promise<number> {
  let count = 0;
  for await (const _ of createInterface({
    input: createReadStream(path),
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    count += 1;
  }
  return count;
}

const converter = createSpreadsheetConverter();
// Loads exceljs and csv-parse now, in every mode, so all children hold the same code.
const availability = await converter.available();
if (!availability.ok) throw new Error(availability.reason);

const started = performance.now();
let rows: number;
if (mode === 'idle') {
  rows = 0; // the process with its code loaded and nothing done: what both sides start from
} else if (mode === 'exceljs') {
  rows = await viaExcelJs();
} else {
  await converter.convert({
    inputPath: input,
    outputPath: output,
    from: 'xlsx',
    to: 'csv',
    options: {},
    tempDir,
    signal: new AbortController().signal,
    onProgress: () => {},
    limits: { maxPixels: 1 },
  });
  rows = -1;
}
const ms = performance.now() - started;
if (rows < 0) rows = await countLines(output);
console.log(JSON.stringify({ ms, rows, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));
