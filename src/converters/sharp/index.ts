/**
 * The image converter: JPEG, PNG, WebP, AVIF, GIF, TIFF, BMP and ICO between each other, plus
 * SVG, HEIC and HEIF as inputs, on sharp (libvips). HEVC-coded HEIC/HEIF is decoded by heic-decode
 * (libheif in WebAssembly) because the prebuilt libvips has no HEVC decoder; BMP and ICO, which
 * libvips does not handle, are decoded and encoded by this project's own code (image/bitmap-io.ts);
 * a TIFF libvips refuses (64-bit samples) goes through ImageMagick when it is installed.
 *
 * Both libraries are loaded lazily on first use. Every input is probed before decoding (pixel
 * limit, SVG references, empty or unknown data, see image/probe.ts), every failure is a
 * FileconvError with a stable code, and the output appears at `outputPath` only when complete.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sharp } from 'sharp';
import { z } from 'zod';
import { raceAbort, throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { DEFAULT_MIN_WORK_PIXELS, DEFAULT_WORK_PIXELS_PER_BYTE } from '../../core/work-limits.js';
import { runInProcess, unavailable } from '../../kit/converter-kit.js';
import { type ProbedImage, pixelLimitError, probeImage } from '../../kit/image/probe.js';
import { mapSharpError } from '../../kit/image/sharp-errors.js';
import { assertImageWork } from '../../kit/image/work-budget.js';
import { loadSharp, resolveHeicDecode, type SharpFactory } from '../../kit/libraries/sharp.js';
import { placeFile } from '../../kit/place-file.js';
import { probeBitmap, type SharpSource } from './bitmap-io.js';
import { outputSize } from './geometry.js';
import { decodeHeic } from './heic.js';
import { ANIMATED_FORMATS, buildImageEdges } from './image-edges.js';
import { IMAGE_DEFAULTS, IMAGE_TARGETS, type ImageOptions } from './image-options.js';
import { writeImage } from './output.js';
import { pngChunkWithBadCrc } from './png-crc.js';
import { SHARP } from './registration.js';
import { withTiffFallback } from './tiff-fallback.js';
import { isTruncatedImage } from './truncation.js';

export { IMAGE_DEFAULTS, type ImageOptions, imageOptionsSchema } from './image-options.js';
export { SHARP_REGISTRATION } from './registration.js';

export interface SharpConverterOptions {
  /** Accept HEIC/HEIF input through heic-decode (WebAssembly). Default true; false drops those edges. */
  heic?: boolean;
  /** Seconds after which sharp abandons one conversion (CONVERSION_TIMEOUT). Default 300; 0 disables. */
  timeoutSeconds?: number;
  /** How strict decoding is (sharp's failOn). Default 'error': broken or truncated data fails, warnings pass. */
  failOn?: 'none' | 'truncated' | 'error' | 'warning';
}

const factoryOptionsSchema = z.strictObject({
  heic: z.boolean().optional(),
  timeoutSeconds: z.int().min(0).max(86_400).optional(),
  failOn: z.enum(['none', 'truncated', 'error', 'warning']).optional(),
});

/** Targets without an alpha channel: transparency is flattened onto `background`. */
const OPAQUE_TARGETS = new Set<FormatName>(['jpg']);

interface ConverterSettings {
  heic: boolean;
  timeoutSeconds: number;
  failOn: NonNullable<SharpConverterOptions['failOn']>;
}

/**
 * INPUT_LIMIT_EXCEEDED for an animation asking for more decoding than its file's size may cost:
 * the rule (and numbers) of the ffmpeg path's frame-bomb check (media/safety.ts).
 */
function assertAnimationWork(
  probed: ProbedImage,
  frames: number,
  inputBytes: number,
  maxPixels: number,
): void {
  const pixels = probed.width * probed.height * frames;
  const budget = Math.max(maxPixels, DEFAULT_MIN_WORK_PIXELS, inputBytes * DEFAULT_WORK_PIXELS_PER_BYTE);
  if (frames <= 1 || pixels <= budget) return;
  throw new FileconvError(
    'INPUT_LIMIT_EXCEEDED',
    `The input asks for ${frames} frames of ${probed.width}x${probed.height} pixels from ${inputBytes} bytes: more decoding than a file of its size may cost (${budget} pixels)`,
    { details: { frames, width: probed.width, height: probed.height, inputBytes, budgetPixels: budget } },
  );
}

async function runConversion(ctx: ConvertContext<ImageOptions>, settings: ConverterSettings): Promise<void> {
  const { options } = ctx;
  const sharp: SharpFactory = await loadSharp();
  throwIfAborted(ctx.signal);

  const { maxPixels } = ctx.limits;
  // BMP and ICO first: libvips cannot read their headers, so the general probe would refuse them.
  const bitmap = await probeBitmap(ctx.inputPath, maxPixels);
  const probed: ProbedImage = bitmap
    ? {
        input: ctx.inputPath,
        format: bitmap.format,
        width: bitmap.width,
        height: bitmap.height,
        pages: 1,
        hevc: false,
        orientation: 1,
      }
    : await probeImage(sharp, ctx.inputPath, ctx.from, maxPixels);
  throwIfAborted(ctx.signal);
  ctx.onProgress(0.1);

  const keepFrames =
    options.animated !== false &&
    probed.pages > 1 &&
    ANIMATED_FORMATS.has(probed.format) &&
    ANIMATED_FORMATS.has(ctx.to);
  const frames = keepFrames ? probed.pages : 1;
  // libvips decodes and encodes an animation a frame at a time (a 783-frame 640x421 GIF to WebP
  // peaks at ~110 MB), so the pixel limit is per frame, as in the ffmpeg path; the whole
  // animation is bounded by what a file of its size may cost (a 69 KB GIF of 3000 frames of
  // 4000x4000 is refused) and by the plan's work budget.
  if (probed.width * probed.height > maxPixels) {
    throw pixelLimitError(probed.width, probed.height, 1, maxPixels);
  }
  assertAnimationWork(probed, frames, (await stat(ctx.inputPath)).size, maxPixels);
  assertImageWork(probed.width, probed.height, frames, ctx.limits.maxWorkPixels);
  // The limit bounds what is created too. Orientations 5..8 swap the sides (libheif has already
  // applied HEIC's own rotation, so its header size is final).
  const source =
    !probed.hevc && probed.orientation >= 5 ? { width: probed.height, height: probed.width } : probed;
  const output = outputSize(source, options);
  if (output.width * output.height > maxPixels) {
    throw pixelLimitError(output.width, output.height, 1, maxPixels, 'The requested output is');
  }

  let pipeline: Sharp;
  // sharp counts an animation's frames together (one tall strip); each was checked above.
  const common = { failOn: settings.failOn, limitInputPixels: maxPixels * frames };
  if (bitmap) {
    const decoded: SharpSource = bitmap.decode();
    pipeline = sharp(decoded.input, { ...common, ...(decoded.raw ? { raw: decoded.raw } : {}) });
  } else if (probed.hevc) {
    if (!settings.heic) throw new FileconvError('UNSUPPORTED_CONVERSION', 'HEIC/HEIF input is disabled');
    resolveHeicDecode();
    // In a worker thread: libheif decodes synchronously, and the event loop must stay free.
    const image = await decodeHeic(await readFile(ctx.inputPath), maxPixels, ctx.signal);
    throwIfAborted(ctx.signal);
    ctx.onProgress(0.4);
    // libheif has already applied the container's rotation and mirroring.
    pipeline = sharp(image.data, {
      ...common,
      raw: { width: image.width, height: image.height, channels: 4 },
    });
  } else {
    pipeline = sharp(probed.input, { ...common, animated: keepFrames, autoOrient: true });
  }
  if (settings.timeoutSeconds > 0) pipeline = pipeline.timeout({ seconds: settings.timeoutSeconds });

  if (options.width !== undefined || options.height !== undefined) {
    const padding =
      options.background ?? (OPAQUE_TARGETS.has(ctx.to) ? 'white' : { r: 0, g: 0, b: 0, alpha: 0 });
    pipeline = pipeline.resize({
      width: options.width,
      height: options.height,
      fit: options.fit ?? IMAGE_DEFAULTS.fit,
      background: padding,
    });
  }
  // Without this, JPEG would show whatever colour hides under transparent pixels (often black).
  if (OPAQUE_TARGETS.has(ctx.to)) pipeline = pipeline.flatten({ background: options.background ?? 'white' });
  if (options.stripMetadata === false) pipeline = pipeline.keepMetadata();

  // Write beside nothing the caller can see: a temp name in tempDir, moved into place when done.
  const scratch = join(ctx.tempDir, `sharp-${randomUUID()}.${ctx.to}`);
  const removeScratch = () => rm(scratch, { force: true });
  try {
    await raceAbort(writeImage(sharp, pipeline, ctx.to, options, scratch), ctx.signal, removeScratch);
    throwIfAborted(ctx.signal);
    await placeFile(scratch, ctx.outputPath);
  } catch (error) {
    await removeScratch();
    throw error;
  }
}

/**
 * libvips reports a decode that fails mid-stream (a truncated JPEG) as the failure of the write
 * it was feeding, "unable to write to target" or "Unknown error", when other conversions run at
 * the same time (found by the soak: one truncated upload in four came back CONVERSION_FAILED, a
 * 500, instead of CORRUPT_INPUT). Its error state is shared between threads, so reading the
 * input again is no proof either; the file's missing end marker is, or a PNG chunk's wrong CRC
 * (libpng refuses a critical chunk whose CRC is wrong, and libvips says "Unknown error").
 */
async function explainWriteFailure(error: unknown, ctx: ConvertContext<ImageOptions>): Promise<unknown> {
  if (!(error instanceof FileconvError) || error.code !== 'CONVERSION_FAILED' || ctx.signal.aborted)
    return error;
  if (!/unable to write to target|write failed|Unknown error/i.test(error.message)) return error;
  const truncated = await isTruncatedImage(ctx.inputPath, ctx.from).catch(() => false);
  if (truncated) {
    return new FileconvError(
      'CORRUPT_INPUT',
      'The image is damaged or not a supported image: it is truncated',
      {
        cause: error,
      },
    );
  }
  const badChunk =
    ctx.from === 'png' ? await pngChunkWithBadCrc(ctx.inputPath).catch(() => undefined) : undefined;
  return badChunk
    ? new FileconvError(
        'CORRUPT_INPUT',
        `The image is damaged: its ${badChunk} chunk's checksum (CRC) does not match its bytes`,
        { cause: error, details: { chunk: badChunk } },
      )
    : error;
}

/** Creates the sharp image converter. Options are checked here, and a bad one throws INVALID_OPTIONS. */
export function createSharpConverter(options: SharpConverterOptions = {}): Converter<ImageOptions> {
  const given = parseOptions(factoryOptionsSchema, options, 'createSharpConverter');
  const settings: ConverterSettings = {
    heic: given.heic ?? true,
    timeoutSeconds: given.timeoutSeconds ?? 300,
    failOn: given.failOn ?? 'error',
  };
  const edges = buildImageEdges(settings.heic);
  const targets = new Set<FormatName>(IMAGE_TARGETS);
  const sources = new Set<FormatName>(edges.map((edge) => edge.from));

  return {
    ...SHARP,
    edges,

    async available(): Promise<Availability> {
      try {
        const sharp = await loadSharp();
        if (settings.heic) resolveHeicDecode();
        return { ok: true, version: `sharp ${sharp.versions.sharp ?? '?'}, libvips ${sharp.versions.vips}` };
      } catch (error) {
        return unavailable(error);
      }
    },

    async convert(ctx): Promise<ConvertResult> {
      throwIfAborted(ctx.signal);
      if (!targets.has(ctx.to)) {
        throw new FileconvError('UNSUPPORTED_CONVERSION', `The sharp converter cannot write '${ctx.to}'`);
      }
      if (!sources.has(ctx.from)) {
        throw new FileconvError('UNSUPPORTED_CONVERSION', `The sharp converter cannot read '${ctx.from}'`);
      }
      // A TIFF libvips refuses is given to ImageMagick, when installed (image/tiff-fallback.ts).
      try {
        return await runInProcess(
          ctx,
          () => withTiffFallback(ctx, (attempt) => runConversion(attempt, settings)),
          mapSharpError,
        );
      } catch (error) {
        throw await explainWriteFailure(error, ctx);
      }
    },
  };
}
