/**
 * Spreadsheet benchmark: a 100,000-row, 5-column xlsx (written once by exceljs's WorkbookWriter
 * with shared strings, laid out as Excel lays it out) -> csv through the exceljs converter, against
 * exceljs's own streaming WorkbookReader joining every row into a write stream (the baseline).
 *
 * Each conversion runs in a child process of its own (bench/sheets-child.ts under tsx), so the
 * child's peak RSS (process.resourceUsage().maxRSS) is the memory that one conversion needed.
 * Both children load the same code before their clock starts; time is measured inside the child
 * (no process start-up). Rounds alternate baseline and fileconv after one warm-up each (the file
 * then sits in the page cache for both); medians are printed as rows/s and MB, with the ratios.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import { median } from './stats.js';

const ROWS = 100_000;
const CHILD = fileURLToPath(new URL('./sheets-child.ts', import.meta.url));

interface ChildReport {
  ms: number;
  rows: number;
  maxRssBytes: number;
}

/** The benchmark workbook: id, name, amount, note (with a comma, so CSV quotes it), flag. */
export async function makeLongWorkbook(path: string, rows = ROWS): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
  const sheet = workbook.addWorksheet('Data');
  sheet.addRow(['id', 'name', 'amount', 'note', 'flag']).commit();
  for (let i = 1; i <= rows; i++) {
    sheet.addRow([i, `name ${i}`, i * 1.5, `note ${i}, with a comma`, i % 2 === 0]).commit();
  }
  sheet.commit();
  await workbook.commit();
}

function runChild(mode: 'fileconv' | 'exceljs' | 'idle', input: string, dir: string): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CHILD, mode, input, join(dir, `${mode}.csv`), dir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`sheets-child ${mode} exited with ${code}`));
      const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ChildReport;
      // Header + data rows: both sides must have done the whole sheet.
      if (report.rows !== (mode === 'idle' ? 0 : ROWS + 1))
        return reject(new Error(`${mode} wrote ${report.rows} rows`));
      resolve(report);
    });
  });
}

const mb = (bytes: number) => bytes / (1024 * 1024);
const perSecond = (ms: number) => ((ROWS + 1) / ms) * 1000;

export async function benchSheets(rounds: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-bench-sheets-'));
  try {
    const input = join(dir, 'long.xlsx');
    await makeLongWorkbook(input);
    const idle = await runChild('idle', input, dir);
    await runChild('exceljs', input, dir);
    await runChild('fileconv', input, dir);
    const baseline: ChildReport[] = [];
    const candidate: ChildReport[] = [];
    for (let round = 0; round < rounds; round++) {
      baseline.push(await runChild('exceljs', input, dir));
      candidate.push(await runChild('fileconv', input, dir));
    }
    const side = (reports: ChildReport[]) => ({
      ms: median(reports.map((r) => r.ms)),
      rss: median(reports.map((r) => r.maxRssBytes)),
    });
    const base = side(baseline);
    const ours = side(candidate);
    const line = (name: string, s: { ms: number; rss: number }) =>
      `${name.padEnd(9)} ${s.ms.toFixed(0).padStart(6)} ms  ${perSecond(s.ms).toFixed(0).padStart(7)} rows/s  peak RSS ${mb(s.rss).toFixed(0).padStart(4)} MB`;
    console.log(
      `xlsx -> csv, ${ROWS.toLocaleString('en')} rows x 5 columns, each in a child process (medians of ${rounds})`,
    );
    console.log(`  ${line('exceljs', base)}   (streaming WorkbookReader, rows joined into a write stream)`);
    console.log(`  ${line('fileconv', ours)}   (exceljs converter: zip check, values, CSV quoting)`);
    console.log(`  (a child at rest, code loaded: peak RSS ${mb(idle.maxRssBytes).toFixed(0)} MB)`);
    console.log(
      `  throughput ratio: ${(base.ms / ours.ms).toFixed(3)}   peak RSS ratio: ${(ours.rss / base.rss).toFixed(3)}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
