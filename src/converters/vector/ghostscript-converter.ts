/**
 * The Ghostscript converter: PostScript and EPS -> PDF (pdfwrite), PNG and JPEG (rendered at a
 * chosen dpi); PDF -> EPS (eps2write, one page) and PostScript (ps2write). Every PostScript input
 * is first distilled to PDF in the work folder: that run is where a hostile program meets the
 * sandbox (ghostscript-run.ts), and its result tells the page count and the page size before any
 * pixel is rendered, so a page of 14000 x 14000 pt asked for at 150 dpi is refused up front.
 *
 * Ghostscript is AGPL-3.0; it runs as a separate program, found on PATH or at GHOSTSCRIPT_PATH.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { workBudgetError } from '../../core/work-limits.js';
import { toolsAvailability } from '../../kit/command-tools.js';
import { edgeGuard } from '../../kit/converter-kit.js';
import { pixelLimitError } from '../../kit/image/probe.js';
import { assertImageWork } from '../../kit/image/work-budget.js';
import { placeFile } from '../../kit/place-file.js';
import {
  type GhostscriptRun,
  ghostscriptFailed,
  outputFileArg,
  type PdfFacts,
  pdfFacts,
  runGhostscript,
} from './ghostscript-run.js';
import { GHOSTSCRIPT } from './registration.js';
import { GHOSTSCRIPT_EDGES } from './vector-edges.js';
import { type RenderOptions, VECTOR_DEFAULTS, type VectorOptions } from './vector-options.js';

export interface GhostscriptConverterOptions {
  /**
   * Seconds one conversion may run before Ghostscript is killed (CONVERSION_TIMEOUT). Default 300, as
   * for the other engines; the engine's own timeout may stop it sooner.
   */
  timeoutSeconds?: number;
  /** Most pages a PostScript or PDF input may have (a plan's maxDocumentPages lowers it). Default 1000. */
  maxPages?: number;
  /**
   * Most memory one Ghostscript run may allocate, MiB; a program that wants more fails as
   * INPUT_LIMIT_EXCEEDED. Default 1024 (pages render in bands, so even large pages need far less).
   */
  maxMemoryMiB?: number;
}

const factoryOptionsSchema = z.strictObject({
  timeoutSeconds: z.number().positive().max(86_400).optional(),
  maxPages: z.int().min(1).max(100_000).optional(),
  maxMemoryMiB: z.int().min(16).max(1_048_576).optional(),
});

const LABELS: Readonly<Record<string, string>> = { eps: 'EPS file', ps: 'PostScript file', pdf: 'PDF' };

interface Job {
  ctx: ConvertContext<VectorOptions>;
  /** The conversion's options, parsed (defaults filled in); `page` is 1 where the target has none. */
  options: { page: number } & Partial<RenderOptions>;
  run: GhostscriptRun;
  what: string;
  maxPages: number;
}

/** The page budget: the converter's own, lowered by the plan's maxDocumentPages. */
function pageBudget(job: Job): number {
  return Math.min(job.maxPages, job.ctx.limits.maxDocumentPages ?? job.maxPages);
}

/** INPUT_LIMIT_EXCEEDED for a document over the page budget (naming the plan's budget when it was that). */
function assertPages(job: Job, pages: number): void {
  const budget = job.ctx.limits.maxDocumentPages;
  if (budget !== undefined && pages > budget) {
    throw workBudgetError('maxDocumentPages', `The ${job.what} has ${pages} or more pages`, pages, budget);
  }
  if (pages > job.maxPages) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `The ${job.what} has ${pages} or more pages; the limit is ${job.maxPages}`,
      { details: { pages, maxPages: job.maxPages } },
    );
  }
}

/**
 * PostScript or EPS -> PDF in the work folder. Pages past the budget are not written (LastPage
 * one past it, so going over shows); an EPS page is its bounding box (-dEPSCrop), and pages keep
 * the orientation their program gave them (no auto-rotation by text direction).
 */
async function distil(job: Job, output: string): Promise<PdfFacts> {
  const { ctx, run } = job;
  const args = [
    '-sstdout=%stderr',
    '-sDEVICE=pdfwrite',
    '-dAutoRotatePages=/None',
    `-dLastPage=${pageBudget(job) + 1}`,
    ...(ctx.from === 'eps' ? ['-dEPSCrop'] : []),
    outputFileArg(output),
    '-f',
    resolve(ctx.inputPath),
  ];
  const outcome = await runGhostscript(args, run);
  if (outcome.code !== 0)
    throw ghostscriptFailed(outcome, 'converting PostScript to PDF', job.what, 'CORRUPT_INPUT');
  throwIfAborted(ctx.signal);
  const written = await stat(output).catch(() => undefined);
  if (!written?.size)
    throw ghostscriptFailed(outcome, 'converting PostScript to PDF', job.what, 'CORRUPT_INPUT');
  return readFacts(job, output);
}

async function readFacts(job: Job, pdf: string): Promise<PdfFacts> {
  const facts = await pdfFacts(pdf, job.options.page, job.run, job.what);
  assertPages(job, facts.pages);
  return facts;
}

function assertPageExists(job: Job, page: number, facts: PdfFacts): void {
  if (page > facts.pages) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `Invalid options: page ${page} was asked, but the ${job.what} has ${facts.pages} page(s)`,
      { details: { page, pages: facts.pages } },
    );
  }
}

/** One page of `pdf` (our own distilled PDF) as PNG or JPEG, after the pixel limits are checked. */
async function render(job: Job, pdf: string, facts: PdfFacts, output: string): Promise<void> {
  const { ctx, run } = job;
  const options = job.options as RenderOptions;
  assertPageExists(job, options.page, facts);
  const [x0, y0, x1, y1] = facts.mediaBox ?? [0, 0, 0, 0];
  const width = Math.ceil((Math.abs(x1 - x0) * options.dpi) / 72);
  const height = Math.ceil((Math.abs(y1 - y0) * options.dpi) / 72);
  if (width < 1 || height < 1) {
    throw new FileconvError('CORRUPT_INPUT', `The ${job.what}'s page has no size`, {
      details: { page: options.page },
    });
  }
  if (width * height > ctx.limits.maxPixels) {
    throw pixelLimitError(width, height, 1, ctx.limits.maxPixels, `At ${options.dpi} dpi the page is`);
  }
  assertImageWork(width, height, 1, ctx.limits.maxWorkPixels);
  const device =
    ctx.to === 'jpg'
      ? ['-sDEVICE=jpeg', `-dJPEGQ=${options.quality}`]
      : [options.background === 'transparent' ? '-sDEVICE=pngalpha' : '-sDEVICE=png16m'];
  const args = [
    '-sstdout=%stderr',
    ...device,
    `-r${options.dpi}`,
    // Anti-aliased text and line art, as a PDF viewer shows them.
    '-dTextAlphaBits=4',
    '-dGraphicsAlphaBits=4',
    `-dFirstPage=${options.page}`,
    `-dLastPage=${options.page}`,
    outputFileArg(output),
    '-f',
    pdf,
  ];
  const outcome = await runGhostscript(args, run);
  if (outcome.code !== 0) throw ghostscriptFailed(outcome, `rendering the page as ${ctx.to}`, job.what);
}

/** PDF -> EPS (the asked page) or PostScript (every page). */
async function fromPdf(job: Job, output: string): Promise<void> {
  const { ctx, run } = job;
  const input = resolve(ctx.inputPath);
  const facts = await readFacts(job, input);
  const { page } = job.options;
  if (ctx.to === 'eps') assertPageExists(job, page, facts);
  const args = [
    '-sstdout=%stderr',
    ...(ctx.to === 'eps'
      ? ['-sDEVICE=eps2write', `-dFirstPage=${page}`, `-dLastPage=${page}`]
      : ['-sDEVICE=ps2write']),
    outputFileArg(output),
    '-f',
    input,
  ];
  const outcome = await runGhostscript(args, run);
  if (outcome.code !== 0) throw ghostscriptFailed(outcome, `writing ${ctx.to}`, job.what);
}

async function convertIn(job: Job, workDir: string): Promise<void> {
  const { ctx } = job;
  const output = join(workDir, `output.${ctx.to}`);
  if (ctx.from === 'pdf') {
    await fromPdf(job, output);
  } else {
    const distilled = ctx.to === 'pdf' ? output : join(workDir, 'distilled.pdf');
    const facts = await distil(job, distilled);
    ctx.onProgress(0.5);
    if (ctx.to !== 'pdf') await render(job, distilled, facts, output);
  }
  throwIfAborted(ctx.signal);
  const written = await stat(output).catch(() => undefined);
  if (!written?.size) {
    throw new FileconvError('CONVERSION_FAILED', `Ghostscript wrote no ${ctx.to} output`, {
      details: { tool: 'gs' },
    });
  }
  await placeFile(output, ctx.outputPath);
}

/** Creates the Ghostscript converter. Options are checked here, and a bad one throws INVALID_OPTIONS. */
export function createGhostscriptConverter(
  options: GhostscriptConverterOptions = {},
): Converter<VectorOptions> {
  const settings = parseOptions(factoryOptionsSchema, options, 'createGhostscriptConverter');
  const timeoutMs = (settings.timeoutSeconds ?? 300) * 1000;
  const maxPages = settings.maxPages ?? 1000;
  const memoryKiB = (settings.maxMemoryMiB ?? 1024) * 1024;
  const guard = edgeGuard('ghostscript', GHOSTSCRIPT_EDGES);

  return {
    ...GHOSTSCRIPT,
    available: (): Promise<Availability> => toolsAvailability(['gs']),

    async convert(ctx): Promise<ConvertResult> {
      guard(ctx.from, ctx.to);
      throwIfAborted(ctx.signal);
      ctx.onProgress(0);
      const options = { ...ctx.options, page: ctx.options.page ?? VECTOR_DEFAULTS.page };
      const workDir = await mkdtemp(join(ctx.tempDir, 'gs-'));
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
      const names = { [resolve(ctx.inputPath)]: `input.${ctx.from}`, [workDir]: '<work>' };
      const what = LABELS[ctx.from] ?? ctx.from;
      try {
        const run = { workDir, signal, timeoutMs, memoryKiB, names };
        await convertIn({ ctx, options, run, what, maxPages }, workDir);
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
      ctx.onProgress(1);
      return {};
    },
  };
}
