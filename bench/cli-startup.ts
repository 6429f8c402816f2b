/**
 * `fileconv convert small.jpg out.webp` as a shell loop over a folder runs it: a new process per
 * file. Against `node -e` with sharp doing the same conversion, in alternating rounds: wall time
 * and peak RSS of the whole process, medians. The CLI is the built one (bin/fileconv.js ->
 * dist/), as users run it: `npm run bench` builds first.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { IMAGE_DEFAULTS } from '../src/converters/sharp/index.js';
import { makePhoto } from './images.js';
import { median } from './stats.js';

const CLI = fileURLToPath(new URL('../bin/fileconv.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface ProcessRun {
  wallMs: number;
  peakKiB: number;
}

/** Runs `node <args>`: wall time measured here, peak RSS as the process itself reports it. */
function runProcess(args: readonly string[]): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
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
    const viaCli = [CLI, 'convert', input, join(dir, 'cli.webp'), '--quiet'];
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
        `fileconv: ${wall(cliRuns).toFixed(0)} ms, ${peak(cliPeaks).toFixed(0)} MiB   wall-time ratio: ${(wall(cliRuns) / wall(directRuns)).toFixed(2)}x`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchCliStartup(Number(process.env.BENCH_ROUNDS ?? 9));
}
