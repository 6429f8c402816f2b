import type { Sharp } from 'sharp';
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import type { SharpFactory } from '../../kit/libraries/sharp.js';
import { writeBitmap } from './bitmap-io.js';
import { IMAGE_DEFAULTS, type ImageOptions } from './image-options.js';

/** Adds the target encoder with this project's defaults (see IMAGE_DEFAULTS for the measurements). */
function encode(pipeline: Sharp, to: FormatName, o: ImageOptions): Sharp {
  switch (to) {
    case 'jpg':
      return pipeline.jpeg({ quality: o.quality ?? IMAGE_DEFAULTS.quality.jpg });
    case 'png':
      return pipeline.png();
    case 'webp':
      return pipeline.webp({
        quality: o.quality ?? IMAGE_DEFAULTS.quality.webp,
        lossless: o.lossless ?? false,
        effort: o.effort ?? IMAGE_DEFAULTS.effort.webp,
      });
    case 'avif':
      return pipeline.avif({
        quality: o.quality ?? IMAGE_DEFAULTS.quality.avif,
        lossless: o.lossless ?? false,
        effort: o.effort ?? IMAGE_DEFAULTS.effort.avif,
      });
    case 'gif':
      return pipeline.gif({ effort: o.effort ?? IMAGE_DEFAULTS.effort.gif });
    case 'tiff':
      // sharp's TIFF default is JPEG compression, which would make a "lossless" edge lossy.
      return pipeline.tiff({ compression: 'lzw', predictor: 'horizontal' });
    default:
      throw new FileconvError('UNSUPPORTED_CONVERSION', `The sharp converter cannot write '${to}'`);
  }
}

/** Encodes `pipeline` as `to` into the file `path`. */
export async function writeImage(
  sharp: SharpFactory,
  pipeline: Sharp,
  to: FormatName,
  options: ImageOptions,
  path: string,
): Promise<void> {
  if (to === 'bmp' || to === 'ico') await writeBitmap(sharp, pipeline, to, options, path);
  else await encode(pipeline, to, options).toFile(path);
}
