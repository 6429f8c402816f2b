/**
 * Conversion options of the sharp image converter: one strict zod schema per target format.
 *
 * The schema is the single source of truth for what a caller may ask for: the engine validates
 * requests with it (the converter is handed its output: typed values, defaults applied), and the
 * HTTP API describes it (z.toJSONSchema). Each target only accepts the keys that mean
 * something for it (no `quality` for PNG, no `lossless` for JPEG), and unknown keys are rejected,
 * so a typo fails loudly instead of being silently ignored. This module must not import sharp.
 */

import { z } from 'zod';
import type { FormatName } from '../../core/formats/types.js';
import { memoizeSchema } from '../../kit/converter-kit.js';
import { isColourString } from '../../kit/image/colour.js';
import { MAX_DIMENSION } from '../../kit/image/dimensions.js';

export { IMAGE_TARGETS, type ImageTarget } from './image-edges.js';

const MAX_WEBP_DIMENSION = 16_383;

/**
 * Encoder defaults. Measured on a 4000x3000 photo on this project's 2-core machine (one core busy):
 * AVIF effort 1 takes ~1.2 s, effort 3 ~3.9 s (17% smaller), sharp's default 4 ~30 s; WebP
 * effort 4 (sharp's default) ~1.3 s, effort 2 0.6 s but 8% larger; GIF effort 3 ~6.8 s, sharp's
 * default 7 ~24 s for a similar size.
 */
export const IMAGE_DEFAULTS = {
  quality: { jpg: 80, webp: 80, avif: 50 },
  effort: { webp: 4, avif: 1, gif: 3 },
  fit: 'inside',
  stripMetadata: true,
  animated: true,
} as const;

/** The union of every target's options, as the converter reads them after parsing. */
export type ImageOptions = {
  /** Encoder quality 1..100; defaults per target (jpg 80, webp 80, avif 50). */
  quality?: number;
  /** Output width in pixels; alone, the height follows the aspect ratio. */
  width?: number;
  /** Output height in pixels; alone, the width follows the aspect ratio. */
  height?: number;
  /** How to fit into width x height when both are given. Default 'inside' (keep aspect, no crop). */
  fit?: 'cover' | 'contain' | 'fill' | 'inside' | 'outside';
  /** Colour used to flatten transparency (targets without alpha) and to pad with fit 'contain'. */
  background?: string;
  /** Drop EXIF, ICC, XMP and IPTC. Default true; false keeps them. */
  stripMetadata?: boolean;
  /** Lossless encoding (webp, avif). Default false. */
  lossless?: boolean;
  /** CPU effort for smaller files: webp 0..6 (default 4), avif 0..9 (default 1), gif 1..10 (default 3). */
  effort?: number;
  /** Keep all frames when source and target are both animated formats (gif, webp). Default true. */
  animated?: boolean;
  /** Icon sizes to write (ico). Default 16, 32, 48 and 256, each only up to the image's longer side. */
  sizes?: number[];
};

/** The square sizes an icon may hold: the ones Windows, browsers and app stores ask for. */
export const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256] as const;

const quality = (fallback: number) =>
  z
    .int()
    .min(1)
    .max(100)
    .default(fallback)
    .describe(`Encoder quality, 1 (smallest) to 100 (best). Default ${fallback}.`);
const dimension = (side: string, max = MAX_DIMENSION) =>
  z
    .int()
    .min(1)
    .max(max)
    .optional()
    .describe(`Output ${side} in pixels. Given alone, the other side keeps the aspect ratio.`);
const effort = (min: number, max: number, fallback: number) =>
  z
    .int()
    .min(min)
    .max(max)
    .default(fallback)
    .describe(`CPU effort, ${min} (fastest) to ${max} (smallest file). Default ${fallback}.`);

const common = {
  width: dimension('width'),
  height: dimension('height'),
  fit: z
    .enum(['cover', 'contain', 'fill', 'inside', 'outside'])
    .default(IMAGE_DEFAULTS.fit)
    .describe(
      "How to fit into width x height when both are given. Default 'inside': keep aspect ratio, no crop.",
    ),
  background: z
    .string()
    .refine(isColourString, {
      message: "Expected a colour such as '#ffffff', 'white' or 'rgb(255, 255, 255)'",
    })
    .optional()
    .describe(
      "Fills transparency when the target has no alpha (default 'white'), and the padding of fit 'contain'.",
    ),
  stripMetadata: z
    .boolean()
    .default(IMAGE_DEFAULTS.stripMetadata)
    .describe('Remove EXIF, ICC, XMP and IPTC metadata. Default true; false keeps them.'),
};
const lossless = z.boolean().default(false).describe('Lossless encoding. Default false.');
const sizes = z
  .array(z.literal(ICO_SIZES))
  .min(1)
  .max(ICO_SIZES.length)
  .refine((list) => new Set(list).size === list.length, { message: 'Expected each size at most once' })
  .optional()
  .describe(
    `Square sizes to put in the icon, from ${ICO_SIZES.join(', ')}. Default 16, 32, 48 and 256, ` +
      "each only up to the image's longer side; sizes named here are written as asked.",
  );
const animated = z
  .boolean()
  .default(IMAGE_DEFAULTS.animated)
  .describe('Keep every frame of an animated GIF or WebP source. Default true; false keeps the first frame.');

function shapeFor(to: FormatName) {
  switch (to) {
    case 'jpg':
      return { ...common, quality: quality(IMAGE_DEFAULTS.quality.jpg) };
    case 'webp':
      return {
        ...common,
        width: dimension('width', MAX_WEBP_DIMENSION),
        height: dimension('height', MAX_WEBP_DIMENSION),
        quality: quality(IMAGE_DEFAULTS.quality.webp),
        lossless,
        effort: effort(0, 6, IMAGE_DEFAULTS.effort.webp),
        animated,
      };
    case 'avif':
      return {
        ...common,
        quality: quality(IMAGE_DEFAULTS.quality.avif),
        lossless,
        effort: effort(0, 9, IMAGE_DEFAULTS.effort.avif),
      };
    case 'gif':
      return { ...common, effort: effort(1, 10, IMAGE_DEFAULTS.effort.gif), animated };
    case 'ico':
      return { ...common, sizes };
    default:
      // png, tiff, bmp (lossless, nothing to tune) and any format the converter does not write.
      return common;
  }
}

/**
 * The strict options schema for a conversion to `to`. Exported so hosts and the HTTP API can
 * validate and describe options without loading sharp.
 */
export const imageOptionsSchema: (to: FormatName) => z.ZodType<ImageOptions> = memoizeSchema(
  (to: FormatName) => z.strictObject(shapeFor(to)),
);
