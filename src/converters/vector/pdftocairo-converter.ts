/**
 * The Poppler converter: one page of a PDF -> SVG with pdftocairo. Shapes stay paths and images
 * are embedded as data: URLs; text becomes glyph outlines (cairo's SVG has no text element), so
 * the result looks right everywhere but its text cannot be selected: lossy. Measured: an A4 page
 * of text in 0.14 s. Ghostscript 10 has no SVG device, and LibreOffice's PDF import rebuilds the
 * page as a drawing (moved text boxes) at the cost of a warm office process.
 *
 * Only the asked page is read, so the page budget is not consulted. Poppler is GPL-2.0; it runs
 * as a separate program, found on PATH or at PDFTOCAIRO_PATH.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { type ErrorCode, FileconvError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { runTool, type ToolOutcome, toolFailed, toolsAvailability } from '../../kit/command-tools.js';
import { edgeGuard } from '../../kit/converter-kit.js';
import { placeFile } from '../../kit/place-file.js';
import { withWorkDir } from '../../kit/work-dir.js';
import { PDFTOCAIRO } from './registration.js';
import { PDFTOCAIRO_EDGES } from './vector-edges.js';
import { VECTOR_DEFAULTS, type VectorOptions } from './vector-options.js';

export interface PdftocairoConverterOptions {
  /**
   * Seconds one conversion may run before pdftocairo is killed (CONVERSION_TIMEOUT). Default 300, as
   * for the other engines; the engine's own timeout may stop it sooner.
   */
  timeoutSeconds?: number;
}

const factoryOptionsSchema = z.strictObject({ timeoutSeconds: z.number().positive().max(86_400).optional() });

/** What pdftocairo's exit code and words say is wrong with the input. */
function inputFault(outcome: ToolOutcome, page: number): FileconvError {
  if (/Wrong page range/.test(outcome.stderr)) {
    return new FileconvError('INVALID_OPTIONS', `Invalid options: the PDF has no page ${page}`, {
      details: { page },
    });
  }
  // Poppler's documented exit codes: 1 the PDF could not be opened, 3 a permissions problem.
  const code: ErrorCode = /password/i.test(outcome.stderr)
    ? 'PASSWORD_PROTECTED'
    : outcome.code === 1 || /Syntax Error|May not be a PDF/.test(outcome.stderr)
      ? 'CORRUPT_INPUT'
      : 'CONVERSION_FAILED';
  return toolFailed('pdftocairo', outcome, 'converting PDF to SVG', code);
}

async function convertIn(
  ctx: ConvertContext<VectorOptions>,
  workDir: string,
  timeoutMs: number,
): Promise<void> {
  const page = ctx.options.page ?? VECTOR_DEFAULTS.page;
  const output = join(workDir, 'output.svg');
  const input = resolve(ctx.inputPath);
  const outcome = await runTool(
    'pdftocairo',
    ['-svg', '-f', String(page), '-l', String(page), '--', input, output],
    { signal: ctx.signal, timeoutMs, cwd: workDir, names: { [input]: 'input.pdf', [output]: 'output.svg' } },
  );
  if (outcome.code !== 0) throw inputFault(outcome, page);
  throwIfAborted(ctx.signal);
  const head = await readFile(output, { encoding: 'latin1' }).catch(() => '');
  if (!/<svg[\s>]/.test(head.slice(0, 4096))) throw toolFailed('pdftocairo', outcome, 'to write an SVG');
  await placeFile(output, ctx.outputPath);
}

/** Creates the Poppler converter (pdf -> svg). */
export function createPdftocairoConverter(
  options: PdftocairoConverterOptions = {},
): Converter<VectorOptions> {
  const settings = parseOptions(factoryOptionsSchema, options, 'createPdftocairoConverter');
  const timeoutMs = (settings.timeoutSeconds ?? 300) * 1000;
  const guard = edgeGuard('pdftocairo', PDFTOCAIRO_EDGES);
  return {
    ...PDFTOCAIRO,
    available: (): Promise<Availability> => toolsAvailability(['pdftocairo']),
    async convert(ctx): Promise<ConvertResult> {
      guard(ctx.from, ctx.to);
      throwIfAborted(ctx.signal);
      ctx.onProgress(0);
      await withWorkDir({ tempDir: ctx.tempDir, prefix: 'pdftocairo-' }, (workDir) =>
        convertIn(ctx, workDir, timeoutMs),
      );
      ctx.onProgress(1);
      return {};
    },
  };
}
