/**
 * Conversion options of the print and vector converters: one strict zod schema per target, built
 * once. Unknown keys are rejected. This module loads no engine.
 */
import { z } from 'zod';
import type { FormatName } from '../../core/formats/types.js';
import { memoizeSchema } from '../../kit/converter-kit.js';

export const VECTOR_DEFAULTS = {
  /** The page a conversion writes, 1-based. */
  page: 1,
  /** 144 dpi, twice PostScript's point, as the PDF converter renders pages: sharp on screens. */
  dpi: 144,
  quality: 80,
} as const;
export const VECTOR_DPI_RANGE = { min: 36, max: 1200 } as const;

const page = z
  .int()
  .min(1)
  .default(VECTOR_DEFAULTS.page)
  .describe(
    'The page to write, 1-based (EPS and SVG hold one page; PostScript and PDF may hold many). Default 1.',
  );

/** Options of eps/ps -> png/jpg, as the converter reads them after parsing. */
export type RenderOptions = {
  page: number;
  dpi: number;
  /** PNG only: 'transparent' keeps what the page leaves unpainted see-through. */
  background: 'white' | 'transparent';
  /** JPEG only. */
  quality: number;
};

/**
 * What a vector conversion takes, over every target: a target's schema fills in its own (png and
 * jpg all of RenderOptions but the other's background or quality, eps and svg the page, others none).
 */
export type VectorOptions = Partial<RenderOptions>;

function buildSchema(to: FormatName): z.ZodType<VectorOptions> {
  switch (to) {
    case 'png':
    case 'jpg':
      return z.strictObject({
        page,
        dpi: z
          .int()
          .min(VECTOR_DPI_RANGE.min)
          .max(VECTOR_DPI_RANGE.max)
          .default(VECTOR_DEFAULTS.dpi)
          .describe(
            `Rendering resolution in dots per inch (72 makes one point one pixel). Default ${VECTOR_DEFAULTS.dpi}.`,
          ),
        ...(to === 'png'
          ? {
              background: z
                .enum(['white', 'transparent'])
                .default('white')
                .describe("What unpainted parts of the page become: 'white' (default) or 'transparent'."),
            }
          : {
              quality: z
                .int()
                .min(1)
                .max(100)
                .default(VECTOR_DEFAULTS.quality)
                .describe(`JPEG quality, 1 (smallest) to 100 (best). Default ${VECTOR_DEFAULTS.quality}.`),
            }),
      });
    case 'eps':
    case 'svg':
      return z.strictObject({ page });
    default:
      return z.strictObject({});
  }
}

/**
 * The strict options schema of a conversion to `to`: png/jpg (page, dpi, background or quality),
 * eps and svg (page), anything else none. Exported so hosts can validate without an engine.
 */
export const vectorOptionsSchema = memoizeSchema(buildSchema);
