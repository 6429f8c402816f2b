/**
 * Chromium benchmark (BENCH_ONLY=chromium): a two-page invoice (bench/invoice-page.ts), html -> pdf,
 * in the same run:
 *
 * (a) latency, one document at a time: the engine's convertFile on the Chromium converter's warm
 *     browser against (1) a fresh `chromium --headless --print-to-pdf` process per document, the
 *     way a script without a browser library does it (goal: fileconv >= 3x faster), and (2) a
 *     bare playwright-core script holding one warm page (launch once, newPage once, then
 *     setContent + pdf per document), the least any library can do (goal, issue 28: throughput
 *     ratio >= 0.85; the last line states it for the README). Contenders alternate; each round
 *     converts BENCH_CHROMIUM_DOCUMENTS (default 5) documents in a row, and the median round is
 *     reported per document; BENCH_CHROMIUM_FRESH=0 leaves out the fresh process (quicker runs).
 *     fileconv does more per document by design: request interception (every request answered
 *     by the job's source), cookies cleared between jobs, its work dir, and the PDF through a
 *     temp file; a job without scripts reuses a warm tab (its uploaded page written in with
 *     setContent, its media emulated once per tab), one with scripts gets a fresh
 *     BrowserContext. A third line, for scale: the bare script with a fresh context per
 *     document, what full context isolation costs apart from the rest of the converter.
 * (b) memory: BENCH_CHROMIUM_RENDERS (default 500; 0 skips it) renders through one warm converter, printing
 *     every 50 the resident memory of this process and of every browser process under it (RSS
 *     summed, and PSS, which counts shared pages once); then the growth from the first sample
 *     (after warm-up) to the last. The converter replaces its browser every 200 jobs (its
 *     maxJobsPerBrowser default; a sample taken just then shows no browser, or a second one
 *     closing); BENCH_CHROMIUM_MAX_JOBS changes that, to watch one browser age.
 *
 * Every contender's PDF is checked with pdfinfo: same page count and paper, so it is the same work.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { locateChromium } from '../src/converters/chromium/chromium-locate.js';
import { CHROMIUM_DEFAULTS, createChromiumConverter } from '../src/converters/chromium/index.js';
import { createEngine } from '../src/index.js';
import { invoicePage } from './invoice-page.js';
import { treeMemory } from './process-memory.js';
import { alternate, recordTarget } from './stats.js';

const run = promisify(execFile);
const DOCUMENTS = Number(process.env.BENCH_CHROMIUM_DOCUMENTS ?? 5);
/** BENCH_CHROMIUM_FRESH=0 leaves out the fresh-process contender, by far the slowest. */
const FRESH = process.env.BENCH_CHROMIUM_FRESH !== '0';
const RENDERS = Number(process.env.BENCH_CHROMIUM_RENDERS ?? 500);
const SAMPLE_EVERY = 50;
const MB = 1024 * 1024;

/** Pages and page size from pdfinfo, to check that the contenders did the same work. */
async function pdfShape(path: string): Promise<string> {
  const { stdout } = await run('pdfinfo', [path]);
  const pages = /^Pages:\s+(\d+)/m.exec(stdout)?.[1];
  const [width, height] = (/^Page size:\s+([\d.]+) x ([\d.]+) pts/m.exec(stdout) ?? []).slice(1).map(Number);
  // In whole millimetres: @page's A4 (the fresh CLI) and Playwright's A4 differ by 1 pt.
  const mm = (points: number | undefined) => Math.round(((points ?? 0) * 25.4) / 72);
  return `${pages} pages of ${mm(width)} x ${mm(height)} mm`;
}

/** `once` `DOCUMENTS` times in a row. */
function batch(once: (index: number) => Promise<unknown>): () => Promise<void> {
  return async () => {
    for (let i = 0; i < DOCUMENTS; i++) await once(i);
  };
}

async function latency(dir: string, chromiumPath: string, rounds: number): Promise<void> {
  const input = join(dir, 'invoice.html');
  const html = invoicePage();
  await writeFile(input, html);
  const outputs = {
    fresh: join(dir, 'fresh.pdf'),
    bare: join(dir, 'bare.pdf'),
    bareContext: join(dir, 'bare-context.pdf'),
    fileconv: join(dir, 'fileconv.pdf'),
  };

  // The CLI as documented; --no-sandbox because Chromium's sandbox refuses to run as root (the
  // converter and Playwright pass it too).
  const fresh = () =>
    run(chromiumPath, [
      '--headless',
      '--no-sandbox',
      `--print-to-pdf=${outputs.fresh}`,
      '--no-pdf-header-footer',
      input,
    ]);

  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath });
  const converter = createChromiumConverter({ executablePath: chromiumPath });
  try {
    const page = await browser.newPage();
    // The converter's print settings (A4, backgrounds, tagged PDF), so both print the same PDF.
    const print = { format: 'A4', printBackground: true, tagged: true, outline: false } as const;
    const bare = async () => {
      await page.setContent(html);
      await writeFile(outputs.bare, await page.pdf(print));
    };
    // What the converter's isolation costs by itself: a fresh context (so a fresh renderer
    // process) per document, and nothing else of the converter.
    const bareContext = async () => {
      const context = await browser.newContext();
      const fresh = await context.newPage();
      await fresh.setContent(html);
      await writeFile(outputs.bareContext, await fresh.pdf(print));
      await context.close();
    };
    const engine = createEngine({ converters: [converter], tempDir: dir });
    const viaFileconv = () => engine.convertFile(input, outputs.fileconv);

    const contenders = [batch(bare), batch(bareContext), batch(viaFileconv)];
    const [bareMs, bareContextMs, fileconvMs, freshMs] = (
      await alternate(rounds, FRESH ? [...contenders, batch(fresh)] : contenders)
    ).map((ms) => ms / DOCUMENTS);
    const made = FRESH
      ? Object.values(outputs)
      : Object.values(outputs).filter((path) => path !== outputs.fresh);
    const shapes = await Promise.all(made.map(pdfShape));
    if (new Set(shapes).size !== 1) {
      throw new Error(
        `benchmark outputs differ, not the same work: ${Object.keys(outputs).join(', ')}: ${shapes.join('; ')}`,
      );
    }
    const version = (await converter.available()).version;
    const ms = (value: number) => `${value.toFixed(0).padStart(5)} ms`;
    console.log(
      `chromium: invoice html -> pdf (${shapes[0]}), ${version}; ${rounds} rounds of ${DOCUMENTS} documents in a row, median per document`,
    );
    if (freshMs !== undefined) {
      console.log(
        `  fresh chromium --print-to-pdf: ${ms(freshMs)}   fileconv (warm): ${ms(fileconvMs!)}   fresh/fileconv time: ${(freshMs / fileconvMs!).toFixed(2)}x (goal >= 3)`,
      );
    }
    console.log(
      `  bare playwright, warm page:    ${ms(bareMs!)}   fileconv (warm): ${ms(fileconvMs!)}   throughput ratio: ${(bareMs! / fileconvMs!).toFixed(3)} (goal >= 0.85)`,
    );
    console.log(
      `  bare playwright, context/doc:  ${ms(bareContextMs!)}   fileconv (warm): ${ms(fileconvMs!)}   throughput ratio: ${(bareContextMs! / fileconvMs!).toFixed(3)} (for scale: isolation alone)`,
    );
    // The one line the README quotes: issue 28's html -> pdf row.
    recordTarget('html -> pdf vs playwright-core on a warm page', bareMs! / fileconvMs!, 0.85);
    console.log(
      `html -> pdf vs playwright-core (warm page, same Chromium): fileconv ${ms(fileconvMs!).trim()}, playwright-core ${ms(bareMs!).trim()} per document, throughput ratio ${(bareMs! / fileconvMs!).toFixed(2)} (goal >= 0.85; medians of ${rounds} rounds)`,
    );
  } finally {
    await converter.close();
    await browser.close();
  }
}

async function memoryCurve(dir: string, chromiumPath: string): Promise<void> {
  const maxJobsPerBrowser = Number(
    process.env.BENCH_CHROMIUM_MAX_JOBS ?? CHROMIUM_DEFAULTS.maxJobsPerBrowser,
  );
  const input = join(dir, 'invoice.html');
  const output = join(dir, 'memory.pdf');
  const converter = createChromiumConverter({ executablePath: chromiumPath, maxJobsPerBrowser });
  const engine = createEngine({ converters: [converter], tempDir: dir });
  const samples: { renders: number; total: number }[] = [];
  const mb = (bytes: number) => (bytes / MB).toFixed(0).padStart(6);
  console.log(
    `(b) memory: ${RENDERS} renders through one warm converter (new browser every ${maxJobsPerBrowser} jobs), every ${SAMPLE_EVERY}`,
  );
  console.log('  renders  node RSS  browser RSS  (procs)  browser PSS  node+browser RSS  browsers launched');
  try {
    for (let done = 1; done <= RENDERS; done++) {
      await engine.convertFile(input, output);
      if (done % SAMPLE_EVERY !== 0 && done !== RENDERS) continue;
      const memory = await treeMemory();
      const total = memory.selfRss + memory.childrenRss;
      samples.push({ renders: done, total });
      console.log(
        `  ${String(done).padStart(7)}  ${mb(memory.selfRss)} MB    ${mb(memory.childrenRss)} MB  ${String(memory.children).padStart(7)}    ${mb(memory.childrenPss)} MB         ${mb(total)} MB  ${String(converter.stats()?.launched).padStart(17)}`,
      );
    }
  } finally {
    await converter.close();
  }
  await readFile(output); // the last render did produce a file
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const peak = Math.max(...samples.map((sample) => sample.total));
  const growth = last.total - first.total;
  const verdict = growth <= first.total * 0.1 ? 'flat (grew less than 10%)' : 'GROWS (more than 10%)';
  console.log(
    `  render ${first.renders} -> ${last.renders}: ${growth >= 0 ? '+' : ''}${(growth / MB).toFixed(0)} MB (${((100 * growth) / first.total).toFixed(1)}%), peak ${(peak / MB).toFixed(0)} MB: ${verdict}`,
  );
}

export async function benchChromium(rounds: number): Promise<void> {
  const located = await locateChromium(undefined);
  if (typeof located !== 'string') {
    console.log(`chromium: skipped, ${located.missing}`);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-bench-chromium-'));
  try {
    await writeFile(join(dir, 'invoice.html'), invoicePage());
    await latency(dir, located, rounds);
    if (RENDERS > 0) await memoryCurve(dir, located);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
