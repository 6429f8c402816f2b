/**
 * The librsvg converter: SVG -> PDF with rsvg-convert, keeping shapes as vectors and text as text
 * (fonts embedded as subsets). librsvg is the renderer sharp uses for SVG -> PNG, so both targets
 * draw the same picture. Measured on a 400x200 SVG with text: 0.08 s, fonts embedded, pdftotext
 * reads the text back; Chromium's print to PDF (the other engine here that could) needs a browser
 * started and a page laid out for each file.
 *
 * The SVG is vetted exactly as the image converter vets it (image/probe.ts and svg-safety.ts:
 * no external references, entities or DOCTYPEs, size and pixel limits) and rsvg-convert is given
 * the vetted copy, alone in a private folder, never the upload itself. librsvg is LGPL-2.1+.
 */
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { runTool, toolFailed, toolsAvailability } from '../../kit/command-tools.js';
import { edgeGuard, unavailable } from '../../kit/converter-kit.js';
import { probeImage } from '../../kit/image/probe.js';
import { loadSharp } from '../../kit/libraries/sharp.js';
import { placeFile } from '../../kit/place-file.js';
import { withWorkDir } from '../../kit/work-dir.js';
import { RSVG } from './registration.js';
import { RSVG_EDGES } from './vector-edges.js';
import type { VectorOptions } from './vector-options.js';

export interface RsvgConverterOptions {
  /**
   * Seconds one conversion may run before rsvg-convert is killed (CONVERSION_TIMEOUT). Default 300, as
   * for the other engines; the engine's own timeout may stop it sooner.
   */
  timeoutSeconds?: number;
}

const factoryOptionsSchema = z.strictObject({ timeoutSeconds: z.number().positive().max(86_400).optional() });

/** rsvg-convert's words for an SVG it cannot parse or render. */
const BAD_SVG = /Error reading SVG|XML parse error|Error rendering SVG|not a valid|could not|error/i;

async function convertIn(ctx: ConvertContext<unknown>, workDir: string, timeoutMs: number): Promise<void> {
  const sharp = await loadSharp();
  // Vets the SVG (UNSAFE_INPUT on any outside reference) and measures it against the pixel limit:
  // librsvg rasterises what PDF cannot hold (filters) at the drawing's size.
  const probed = await probeImage(sharp, ctx.inputPath, 'svg', ctx.limits.maxPixels);
  if (!(probed.input instanceof Buffer)) {
    throw new FileconvError('UNSAFE_INPUT', 'SVG input refused: it was not vetted');
  }
  throwIfAborted(ctx.signal);
  ctx.onProgress(0.2);
  const svg = join(workDir, 'input.svg');
  const output = join(workDir, 'output.pdf');
  await writeFile(svg, probed.input);
  const outcome = await runTool('rsvg-convert', ['--format=pdf', `--output=${output}`, svg], {
    signal: ctx.signal,
    timeoutMs,
    cwd: workDir,
    names: { [svg]: 'input.svg', [output]: 'output.pdf' },
  });
  if (outcome.code !== 0) {
    throw toolFailed(
      'rsvg-convert',
      outcome,
      'converting SVG to PDF',
      BAD_SVG.test(outcome.stderr) ? 'CORRUPT_INPUT' : 'CONVERSION_FAILED',
    );
  }
  throwIfAborted(ctx.signal);
  const written = await stat(output).catch(() => undefined);
  if (!written?.size) throw toolFailed('rsvg-convert', outcome, 'to write a PDF');
  await placeFile(output, ctx.outputPath);
}

/** Creates the librsvg converter (svg -> pdf). */
export function createRsvgConverter(options: RsvgConverterOptions = {}): Converter<VectorOptions> {
  const settings = parseOptions(factoryOptionsSchema, options, 'createRsvgConverter');
  const timeoutMs = (settings.timeoutSeconds ?? 300) * 1000;
  const guard = edgeGuard('rsvg', RSVG_EDGES);
  return {
    ...RSVG,
    async available(): Promise<Availability> {
      const tools = await toolsAvailability(['rsvg-convert']);
      if (!tools.ok) return tools;
      try {
        await loadSharp(); // the SVG is vetted and measured through the image converter's probe
        return tools;
      } catch (error) {
        return unavailable(error);
      }
    },
    async convert(ctx): Promise<ConvertResult> {
      guard(ctx.from, ctx.to);
      throwIfAborted(ctx.signal);
      ctx.onProgress(0);
      await withWorkDir({ tempDir: ctx.tempDir, prefix: 'rsvg-' }, (workDir) =>
        convertIn(ctx, workDir, timeoutMs),
      );
      ctx.onProgress(1);
      return {};
    },
  };
}
