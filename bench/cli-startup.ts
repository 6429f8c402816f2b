/**
 * The CLI as a shell loop over a folder runs it, a new process per file, in alternating rounds
 * against what a user would script instead: `fileconv convert small.jpg out.webp` against `node -e`
 * with sharp doing the same conversion (wall time and peak RSS of the whole process), and
 * `fileconv pdf merge` of ten 14-page PDFs against `qpdf --empty --pages` (wall time). Medians;
 * each row's ratio is the alternative's time over fileconv's (1.0: as fast; the goals are
 * >= 0.80 and >= 0.67). The CLI is the built one (bin/fileconv.js -> dist/), as users run it:
 * `npm run bench` builds first.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { IMAGE_DEFAULTS } from '../src/converters/sharp/index.js';
import { importPdfLib } from '../src/kit/libraries/pdf.js';
import { makePhoto } from './images.js';
import { median, recordTarget } from './stats.js';

const CLI = fileURLToPath(new URL('../bin/fileconv.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface ProcessRun {
  wallMs: number;
  peakKiB: number;
}

/** Runs `node <args>` (or `command`): wall time measured here, peak RSS as the process itself reports it. */
function runProcess(args: readonly string[], command = process.execPath): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`));
      const peak = /peak (\d+)/.exec(stderr);
      resolve({ wallMs, peakKiB: peak ? Number(peak[1]) : Number.NaN });
    });
  });
}

/**
 * Node flags that make a process report its peak RSS (KiB) on stderr as it exits: VmHWM of its
 * own memory map. Not process.resourceUsage().maxRSS: Linux carries that over from the forked
 * copy of the parent (this benchmark, hundreds of MB after the service runs) through exec.
 */
const REPORT_PEAK = [
  '--import',
  `data:text/javascript,${encodeURIComponent(
    "import { readFileSync } from 'node:fs';" +
      "process.on('exit', () => process.stderr.write('peak ' + /VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1] + '\\n'));",
  )}`,
];

export async function benchCliStartup(rounds: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-bench-cli-'));
  try {
    const input = join(dir, 'small.jpg');
    await makePhoto(input, 640, 480);
    const direct = [
      '-e',
      `require('sharp')(${JSON.stringify(input)}).webp({quality:${IMAGE_DEFAULTS.quality.webp},effort:${IMAGE_DEFAULTS.effort.webp}}).toFile(${JSON.stringify(join(dir, 'direct.webp'))})`,
    ];
    const viaCli = [CLI, 'convert', input, join(dir, 'cli.webp'), '--quiet', '--force'];
    await runProcess(direct);
    await runProcess(viaCli);
    // Timed rounds run the commands as they are; the peak-RSS hook (an extra --import) runs in
    // rounds of its own, so that its start-up cost is not in the times.
    const directRuns: ProcessRun[] = [];
    const cliRuns: ProcessRun[] = [];
    for (let round = 0; round < Math.max(rounds, 9); round++) {
      directRuns.push(await runProcess(direct));
      cliRuns.push(await runProcess(viaCli));
    }
    const directPeaks: ProcessRun[] = [];
    const cliPeaks: ProcessRun[] = [];
    for (let round = 0; round < 3; round++) {
      directPeaks.push(await runProcess([...REPORT_PEAK, ...direct]));
      cliPeaks.push(await runProcess([...REPORT_PEAK, ...viaCli]));
    }
    const wall = (runs: ProcessRun[]) => median(runs.map((run) => run.wallMs));
    const peak = (runs: ProcessRun[]) => median(runs.map((run) => run.peakKiB)) / 1024;
    const [a, b] = await Promise.all([
      sharp(join(dir, 'direct.webp')).metadata(),
      sharp(join(dir, 'cli.webp')).metadata(),
    ]);
    if (a.format !== b.format || a.width !== b.width)
      throw new Error('benchmark outputs differ: not the same work');
    console.log(
      `${'fileconv convert 640x480 JPEG -> WebP'.padEnd(40)} node+sharp: ${wall(directRuns).toFixed(0)} ms, ${peak(directPeaks).toFixed(0)} MiB   ` +
        `fileconv: ${wall(cliRuns).toFixed(0)} ms, ${peak(cliPeaks).toFixed(0)} MiB   ratio: ${(wall(directRuns) / wall(cliRuns)).toFixed(2)} (goal >= 0.80)`,
    );
    recordTarget(
      'fileconv convert small.jpg x.webp vs node -e + sharp (time)',
      wall(directRuns) / wall(cliRuns),
      0.8,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Writes `count` PDFs of `pages` pages each, one line of text a page (pdf-lib, as the tests make them). */
async function writePdfs(dir: string, count: number, pages: number): Promise<string[]> {
  const { PDFDocument, StandardFonts } = await importPdfLib();
  const paths: string[] = [];
  for (let file = 0; file < count; file++) {
    const document = await PDFDocument.create();
    const font = await document.embedFont(StandardFonts.Helvetica);
    for (let page = 1; page <= pages; page++) {
      document
        .addPage([595, 842])
        .drawText(`document ${file} page ${page}`, { x: 72, y: 760, size: 24, font });
    }
    const path = join(dir, `part-${file}.pdf`);
    await writeFile(path, await document.save());
    paths.push(path);
  }
  return paths;
}

/** `fileconv pdf merge` of ten 14-page PDFs against `qpdf --empty --pages` doing the same. */
export async function benchCliPdfMerge(rounds: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-bench-pdf-'));
  try {
    const inputs = await writePdfs(dir, 10, 14);
    const direct = ['--empty', '--pages', ...inputs, '--', join(dir, 'qpdf.pdf')];
    const viaCli = [CLI, 'pdf', 'merge', ...inputs, '-o', join(dir, 'cli.pdf')];
    const qpdf = (args: readonly string[]) => runProcess(args, 'qpdf');
    await qpdf(direct);
    await runProcess(viaCli);
    const directRuns: ProcessRun[] = [];
    const cliRuns: ProcessRun[] = [];
    for (let round = 0; round < Math.max(rounds, 9); round++) {
      directRuns.push(await qpdf(direct));
      cliRuns.push(await runProcess(viaCli));
    }
    const pagesOf = (path: string) =>
      execFileSync('qpdf', ['--show-npages', path], { encoding: 'utf8' }).trim();
    if (pagesOf(join(dir, 'qpdf.pdf')) !== '140' || pagesOf(join(dir, 'cli.pdf')) !== '140')
      throw new Error('benchmark outputs differ: not the same work');
    const wall = (runs: ProcessRun[]) => median(runs.map((run) => run.wallMs));
    console.log(
      `${'fileconv pdf merge 10 x 14 pages'.padEnd(40)} qpdf: ${wall(directRuns).toFixed(0)} ms   ` +
        `fileconv: ${wall(cliRuns).toFixed(0)} ms   ratio: ${(wall(directRuns) / wall(cliRuns)).toFixed(2)} (goal >= 0.67)`,
    );
    recordTarget('fileconv pdf merge 10 x 14 pages vs qpdf (time)', wall(directRuns) / wall(cliRuns), 0.67);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchCliStartup(Number(process.env.BENCH_ROUNDS ?? 9));
  await benchCliPdfMerge(Number(process.env.BENCH_ROUNDS ?? 9));
}
