/**
 * TIFF is a family, and libvips reads only part of it: it refuses 64-bit samples ("samples out of
 * range"), among other layouts ImageMagick decodes. When libvips refuses a TIFF as damaged and
 * ImageMagick is installed, the sharp converter hands the file to ImageMagick (under its
 * restrictive policy, size checked from the TIFF's directories first) for a PNG, and converts
 * that instead. A TIFF neither reads stays CORRUPT_INPUT, with libvips's words.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FileconvError } from '../../core/errors.js';
import type { ConvertContext } from '../../core/ports/index.js';
import { findTool } from '../../kit/command-tools.js';
import { pixelLimitError } from '../../kit/image/probe.js';
import { mapSharpError } from '../../kit/image/sharp-errors.js';
import { runMagick } from '../../kit/raster/imagemagick.js';
import { readPixelSize } from '../../kit/raster/raster-headers.js';

/** Whether `error` is libvips refusing a TIFF's content (not a limit, not our fault). */
function isRefusedTiff(ctx: Pick<ConvertContext, 'from'>, error: unknown): boolean {
  return ctx.from === 'tiff' && mapSharpError(error).code === 'CORRUPT_INPUT';
}

/**
 * Runs `convert` on the input; when libvips refuses the TIFF, once more on ImageMagick's PNG of
 * it. The PNG lives in a folder of ctx.tempDir, removed before this returns.
 */
export async function withTiffFallback<O>(
  ctx: ConvertContext<O>,
  convert: (ctx: ConvertContext<O>) => Promise<void>,
): Promise<void> {
  try {
    await convert(ctx);
    return;
  } catch (error) {
    if (!isRefusedTiff(ctx, error) || !(await findTool('magick'))) throw error;
    const size = await readPixelSize(ctx.inputPath, 'tiff').catch(() => undefined);
    if (!size) throw error;
    if (size.width * size.height > ctx.limits.maxPixels) {
      throw pixelLimitError(size.width, size.height, 1, ctx.limits.maxPixels);
    }
    const workDir = join(ctx.tempDir, `tiff-fallback-${randomUUID()}`);
    try {
      await mkdir(workDir);
      const input = join(workDir, 'in.tiff');
      await symlink(resolve(ctx.inputPath), input);
      const png = join(workDir, 'out.png');
      const decoded = await runMagick({
        input,
        from: 'tiff',
        output: png,
        to: 'png',
        workDir,
        maxPixels: ctx.limits.maxPixels,
        signal: ctx.signal,
      }).then(
        () => true,
        (magickError: unknown) => {
          // Neither engine reads it: libvips's refusal is the answer; a limit or abort is ImageMagick's.
          if (magickError instanceof FileconvError && magickError.code !== 'CORRUPT_INPUT') throw magickError;
          return false;
        },
      );
      if (!decoded) throw error;
      await convert({ ...ctx, inputPath: png, from: 'png' });
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }
}
