/**
 * What the raster converters resting on a command-line tool (ImageMagick, libjxl, LibRaw, ffmpeg)
 * share: refusing pairs they have no edge for, reading the input's claimed size from its header
 * and refusing it past the limits before the tool starts, a private work folder inside tempDir
 * (the input is linked in under a plain name, so no file name reaches a tool's argument parser),
 * the output moved into place only when complete, and the folder removed whatever happens.
 */

import { randomUUID } from 'node:crypto';
import { mkdir, rm, stat, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import type {
  ConvertContext,
  Converter,
  ConverterDeclaration,
  ConvertResult,
} from '../../core/ports/index.js';
import { type CommandTool, toolsAvailability } from '../../kit/command-tools.js';
import { edgeGuard } from '../../kit/converter-kit.js';
import { pixelLimitError } from '../../kit/image/probe.js';
import { assertImageWork } from '../../kit/image/work-budget.js';
import { placeFile } from '../../kit/place-file.js';
import { type PixelSize, readPixelSize } from '../../kit/raster/raster-headers.js';
import { assertComplete } from './integrity.js';
import type { RasterOptions } from './raster-options.js';

/** One conversion, as a tool's run() sees it. */
export interface RasterJob {
  ctx: ConvertContext<RasterOptions>;
  /** The input, linked into the work folder as `in.<from>`. */
  input: string;
  /** Where the tool writes: `out.<to>` in the work folder. */
  output: string;
  /** The private work folder (policy files, the tool's temporary files). */
  workDir: string;
  /** The size the input's header claims, already within the limits. */
  size: PixelSize;
  /** ctx.options: parsed by the spec's optionsSchema for this target (which fills in no defaults). */
  options: RasterOptions;
}

export type { RasterOptions } from './raster-options.js';

/** The converter's declaration (name, edges, options: raster/registration.ts), and how it runs. */
export interface RasterToolConverterSpec extends ConverterDeclaration<RasterOptions> {
  /** Tools available() checks, the one whose version is reported first. */
  tools: readonly CommandTool[];
  /** Runs the tool(s) for `job`; throws a FileconvError on failure (see toolError). */
  run(job: RasterJob): Promise<void>;
}

/** Creates a converter that checks, runs `spec.run` in a private folder, and cleans up. */
export function createRasterToolConverter(spec: RasterToolConverterSpec): Converter<RasterOptions> {
  const guard = edgeGuard(spec.name, spec.edges);
  const { tools: _tools, run: _run, ...declared } = spec;
  return {
    ...declared,
    available: () => toolsAvailability(spec.tools),
    async convert(ctx): Promise<ConvertResult> {
      throwIfAborted(ctx.signal);
      guard(ctx.from, ctx.to);
      const { options } = ctx;
      ctx.onProgress(0);
      const size = await checkedSize(ctx);
      await assertComplete(ctx.inputPath, ctx.from, size);
      const workDir = join(ctx.tempDir, `${spec.name}-${randomUUID()}`);
      try {
        await mkdir(workDir);
        const input = join(workDir, `in.${ctx.from}`);
        await symlink(resolve(ctx.inputPath), input);
        const output = join(workDir, `out.${ctx.to}`);
        await spec.run({ ctx, input, output, workDir, size, options });
        throwIfAborted(ctx.signal);
        const written = await stat(output).catch(() => undefined);
        if (!written || written.size === 0) {
          throw new FileconvError(
            'CORRUPT_INPUT',
            `${spec.name} wrote no image from this ${ctx.from} file: it holds no picture it can decode`,
          );
        }
        await placeFile(output, ctx.outputPath);
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
      ctx.onProgress(1);
      return {};
    },
  };
}

/** The input's claimed size, refused past maxPixels (one image) or the plan's work budget. */
async function checkedSize(ctx: ConvertContext<unknown>): Promise<PixelSize> {
  const size = await readPixelSize(ctx.inputPath, ctx.from as FormatName).catch((error: unknown) => {
    if (error instanceof FileconvError) throw error;
    throw new FileconvError('INTERNAL', 'The conversion input file could not be read', { cause: error });
  });
  if (size.width * size.height > ctx.limits.maxPixels) {
    throw pixelLimitError(size.width, size.height, 1, ctx.limits.maxPixels);
  }
  assertImageWork(size.width, size.height, 1, ctx.limits.maxWorkPixels);
  return size;
}
