/**
 * The raster converters that rest on command-line tools, for the image formats libvips (sharp)
 * does not handle: ImageMagick 6 (jp2, psd, tga, pcx, netpbm, hdr, dds), libjxl (jxl), ffmpeg's
 * image codecs (qoi, exr), LibRaw (dng) and libheif (heic output). Each reads its formats into
 * PNG (camera raw into a 16-bit TIFF) and writes them from PNG; sharp does the rest of any chain.
 * Every input's claimed size is checked from its header before a tool starts
 * (raster/tool-converter.ts), and every tool runs without a shell, killed on abort or after five
 * minutes.
 */
import { open } from 'node:fs/promises';
import type { Converter } from '../../core/ports/index.js';
import { runTool, toolError } from '../../kit/command-tools.js';
import { runMagick } from '../../kit/raster/imagemagick.js';
import { FFMPEG_IMAGE, IMAGEMAGICK, LIBHEIF, LIBJXL, LIBRAW } from './registration.js';
import { createRasterToolConverter, type RasterJob, type RasterOptions } from './tool-converter.js';

export {
  FFMPEG_IMAGE_EDGES,
  IMAGEMAGICK_EDGES,
  LIBHEIF_EDGES,
  LIBJXL_EDGES,
  LIBRAW_EDGES,
} from './raster-edges.js';
export {
  FFMPEG_IMAGE_REGISTRATION,
  IMAGEMAGICK_REGISTRATION,
  LIBHEIF_REGISTRATION,
  LIBJXL_REGISTRATION,
  LIBRAW_REGISTRATION,
} from './registration.js';

/** Threads one tool run may use: conversions run side by side, each should not take every core. */
const TOOL_THREADS = '2';

/** A bare JPEG 2000 codestream (FF 4F FF 51) needs ImageMagick's J2K coder, the boxed file its JP2 coder. */
async function jpeg2000Coder(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const { buffer } = await handle.read(Buffer.alloc(4), 0, 4, 0);
    return buffer.readUInt32BE(0) === 0xff4fff51 ? 'J2K' : 'JP2';
  } finally {
    await handle.close();
  }
}

/** What heif-enc prints when the PNG or JPEG it was given cannot be decoded (it may also abort). */
const HEIF_ENC_INPUT_WORDS = /libpng error|not a (?:png|jpeg)|bogus|can(?:no|')t (?:read|open|load)/i;
/** libjpeg's warnings for a damaged or truncated JPEG, printed even when it decodes to the end. */
const JPEG_DAMAGE_WORDS = /premature end of jpeg|corrupt jpeg data/i;

/** libheif's heif-enc: PNG and JPEG to HEIC (HEVC stills, encoded by x265). */
export function createLibheifConverter(): Converter<RasterOptions> {
  return createRasterToolConverter({
    ...LIBHEIF,
    tools: ['heif-enc'],
    async run({ ctx, input, output, options }: RasterJob) {
      const lossless = options.lossless === true;
      const encoding = lossless
        ? ['-L', '-p', 'chroma=444', '--matrix_coefficients=0']
        : options.quality === undefined
          ? []
          : ['-q', String(options.quality)];
      const outcome = await runTool('heif-enc', [...encoding, '-o', output, input], {
        signal: ctx.signal,
        names: { [input]: `input.${ctx.from}`, [output]: `output.${ctx.to}` },
      });
      // libjpeg only warns about a JPEG cut short (and fills the rest with grey), so its warnings
      // count whatever the exit code; libpng fails (heif-enc then aborts).
      if (outcome.code !== 0 || JPEG_DAMAGE_WORDS.test(outcome.stderr)) {
        const inputFault =
          HEIF_ENC_INPUT_WORDS.test(outcome.stderr) || JPEG_DAMAGE_WORDS.test(outcome.stderr);
        throw toolError('heif-enc', outcome, `encoding ${ctx.from} as HEIC`, inputFault);
      }
    },
  });
}

/** ImageMagick: jp2, psd (read, flattened), tga, pcx, ppm, pgm, pbm, hdr and dds, to and from PNG. */
export function createImageMagickConverter(): Converter<RasterOptions> {
  return createRasterToolConverter({
    ...IMAGEMAGICK,
    tools: ['magick'],
    async run({ ctx, input, output, workDir, options }: RasterJob) {
      await runMagick({
        ...(options.quality === undefined ? {} : { quality: options.quality }),
        input,
        from: ctx.from,
        output,
        to: ctx.to,
        workDir,
        maxPixels: ctx.limits.maxPixels,
        signal: ctx.signal,
        ...(ctx.from === 'jp2' ? { readCoder: await jpeg2000Coder(input) } : {}),
      });
    },
  });
}

/** libjxl: jxl -> png (djxl), png -> jxl (cjxl, visually lossless) and jpg -> jxl (lossless recompression). */
export function createLibjxlConverter(): Converter<RasterOptions> {
  return createRasterToolConverter({
    ...LIBJXL,
    tools: ['djxl', 'cjxl'],
    async run({ ctx, input, output, options }: RasterJob) {
      const tool = ctx.from === 'jxl' ? 'djxl' : 'cjxl';
      const encoding = [
        ...(options.quality === undefined ? [] : ['-q', String(options.quality)]),
        // A quality given for a JPEG source means re-encoding its pixels instead of recompressing it.
        ...(options.quality !== undefined && ctx.from === 'jpg' ? ['--lossless_jpeg=0'] : []),
        ...(options.effort === undefined ? [] : ['-e', String(options.effort)]),
      ];
      const args = [
        input,
        output,
        `--num_threads=${TOOL_THREADS}`,
        ...(tool === 'cjxl' ? ['--quiet', ...encoding] : []),
      ];
      const outcome = await runTool(tool, args, {
        signal: ctx.signal,
        names: { [input]: `input.${ctx.from}`, [output]: `output.${ctx.to}` },
      });
      if (outcome.code !== 0) {
        const inputFault =
          tool === 'djxl' ||
          /failed to (?:read|decode)|error (?:reading|during decode)|unexpected end of input|unknown image format/i.test(
            outcome.stderr,
          );
        throw toolError(tool, outcome, `converting ${ctx.from} to ${ctx.to}`, inputFault);
      }
    },
  });
}

/** ffmpeg's demuxer for each format it reads here. */
const FFMPEG_DEMUXERS: Readonly<Record<string, string>> = {
  qoi: 'qoi_pipe',
  exr: 'exr_pipe',
  png: 'png_pipe',
};

/**
 * ffmpeg: qoi and exr to and from PNG. EXR holds linear light: reading applies the sRGB transfer
 * curve, writing removes it (zscale), so an EXR round trip and an EXR from elsewhere both look right.
 */
export function createFfmpegImageConverter(): Converter<RasterOptions> {
  return createRasterToolConverter({
    ...FFMPEG_IMAGE,
    tools: ['ffmpeg'],
    async run({ ctx, input, output }: RasterJob) {
      const encode =
        ctx.to === 'png'
          ? ['-c:v', 'png']
          : ctx.to === 'qoi'
            ? ['-c:v', 'qoi']
            : [
                '-vf',
                // Planar RGB first: zscale finds no path from grey (a scan's 8-bit grey PNG) to linear light.
                'format=gbrap|gbrp,zscale=tin=iec61966-2-1:t=linear,format=gbrapf32le|gbrpf32le',
                '-c:v',
                'exr',
                '-compression',
                'zip1',
              ];
      const args = [
        ...['-nostdin', '-hide_banner', '-loglevel', 'error', '-threads', TOOL_THREADS],
        ...['-max_pixels', String(ctx.limits.maxPixels)],
        ...(ctx.from === 'exr' ? ['-apply_trc', 'iec61966_2_1'] : []),
        ...['-f', FFMPEG_DEMUXERS[ctx.from] ?? 'image2', '-i', input],
        ...['-frames:v', '1', '-map_metadata', '-1', ...encode, '-f', 'image2', '-update', '1', output],
      ];
      const outcome = await runTool('ffmpeg', args, {
        signal: ctx.signal,
        names: { [input]: `input.${ctx.from}`, [output]: `output.${ctx.to}` },
      });
      if (outcome.code !== 0) {
        const inputFault = ctx.from !== 'png' || /Invalid data|decod/i.test(outcome.stderr);
        throw toolError('ffmpeg', outcome, `converting ${ctx.from} to ${ctx.to}`, inputFault);
      }
    },
  });
}

/**
 * LibRaw's dcraw_emu: camera raw developed with the camera's white balance into a 16-bit sRGB TIFF
 * (rotated as the camera recorded), which sharp takes on to any target.
 */
export function createLibrawConverter(): Converter<RasterOptions> {
  return createRasterToolConverter({
    ...LIBRAW,
    tools: ['dcraw_emu'],
    async run({ ctx, input, output }: RasterJob) {
      const outcome = await runTool('dcraw_emu', ['-T', '-6', '-w', '-Z', output, input], {
        signal: ctx.signal,
        names: { [input]: `input.${ctx.from}`, [output]: `output.${ctx.to}` },
      });
      if (outcome.code !== 0) throw toolError('dcraw_emu', outcome, `developing ${ctx.from}`, true);
    },
  });
}
