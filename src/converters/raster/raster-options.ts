/** The options of the raster tool converters, dependency-free (the registrations declare them). */
import { z } from 'zod';

/**
 * The options any raster tool converter may take; each target's schema allows a subset (none of
 * them fills in a default: a tool's own default applies).
 */
export type RasterOptions = {
  quality?: number | undefined;
  effort?: number | undefined;
  lossless?: boolean | undefined;
};

/** What a target without options of its own takes: none (unknown keys are refused). */
export const NO_RASTER_OPTIONS = z.strictObject({});

/** Options of png/jpg -> jxl. */
export const JXL_OPTIONS = z.strictObject({
  quality: z
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe(
      "JPEG XL quality, 1-100; 100 is mathematically lossless. Default: cjxl's own (90, visually lossless) for PNG; a JPEG is recompressed losslessly unless a quality is given",
    ),
  effort: z.int().min(1).max(9).optional().describe('Encoder effort, 1 (fastest) to 9 (smallest). Default 7'),
});

/** Options of png -> jp2. */
export const JP2_OPTIONS = z.strictObject({
  quality: z
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe('JPEG 2000 quality, 1-100; 100 is lossless (the reversible wavelet). Default 100'),
});

/** Options of png/jpg -> heic. */
export const HEIC_OPTIONS = z.strictObject({
  quality: z.int().min(1).max(100).optional().describe("HEVC quality, 1-100. Default libheif's own (50)"),
  lossless: z
    .boolean()
    .optional()
    .describe('Lossless HEVC, in RGB at full colour resolution (4:4:4); quality is then ignored'),
});
