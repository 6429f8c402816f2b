/**
 * Conversion options of the PDF converter: one strict zod schema per target. The engine parses
 * requests with them (the converter is handed their output) and the HTTP API describes them.
 * Unknown keys are rejected, so a typo fails loudly. This module loads no library.
 */
import { z } from 'zod';
import type { FormatName } from '../../core/formats/types.js';
import { memoizeSchema } from '../../kit/converter-kit.js';
import { isColourString } from '../../kit/image/colour.js';
import { MAX_DIMENSION } from '../../kit/image/dimensions.js';

/** Formats a PDF page is rendered to. */
export const PAGE_IMAGE_TARGETS = ['png', 'jpg'] as const;
export type PageImageTarget = (typeof PAGE_IMAGE_TARGETS)[number];

export const isPageImageTarget = (to: FormatName): to is PageImageTarget =>
  (PAGE_IMAGE_TARGETS as readonly string[]).includes(to);

export const PDF_DEFAULTS = {
  /** Rendering resolution: 144 dpi (twice the PDF unit) makes an A4 page 1191x1684, sharp on screens. */
  renderDpi: 144,
  /**
   * Image pixels per inch of page when images become PDF pages and the image records no
   * resolution of its own: one pixel per point.
   */
  imageDpi: 72,
  quality: 80,
  background: 'white',
} as const;
export const RENDER_DPI_RANGE = { min: 36, max: 600 } as const;
export const IMAGE_DPI_RANGE = { min: 10, max: 2400 } as const;

// Type aliases, not interfaces: they must be assignable to the port's Record<string, unknown>.

/** Options of pdf -> png/jpg, as the converter reads them after parsing. */
export type PageImageOptions = {
  /** The page to render, 1-based. Default 1. */
  page?: number;
  /** 'all' renders every page into a zip of page-001.png, page-002.png, ... */
  pages?: 'all';
  /** Rendering resolution in dots per inch. Default 144; excludes `width`. */
  dpi?: number;
  /** Output width in pixels (the height follows the page's aspect ratio); excludes `dpi`. */
  width?: number;
  /** Colour under the page's content. Default 'white'; 'transparent' keeps PNG alpha. */
  background: string;
  /** JPEG quality 1..100. Default 80. */
  quality?: number;
};

/** Options of image -> pdf. */
export type ImagePageOptions = {
  /**
   * Image pixels per inch of page: 72 makes one pixel one point. Default: the resolution the
   * image records (a 300 dpi scan of a Letter page becomes a Letter page), else 72.
   */
  dpi?: number | undefined;
};

const pageImageShape = {
  page: z.int().min(1).optional().describe('The page to render, 1-based. Default 1.'),
  pages: z
    .literal('all')
    .optional()
    .describe("'all' renders every page; the result is a zip of page-001.png, page-002.png, ..."),
  dpi: z
    .int()
    .min(RENDER_DPI_RANGE.min)
    .max(RENDER_DPI_RANGE.max)
    .optional()
    .describe(`Rendering resolution in dots per inch. Default ${PDF_DEFAULTS.renderDpi}; excludes width.`),
  width: z
    .int()
    .min(1)
    .max(MAX_DIMENSION)
    .optional()
    .describe("Output width in pixels; the height follows the page's aspect ratio. Excludes dpi."),
  background: z
    .string()
    .refine(isColourString, {
      message: "Expected a colour such as '#ffffff', 'white' or 'rgb(255, 255, 255)'",
    })
    .default(PDF_DEFAULTS.background)
    .describe("Colour under the page's content. Default 'white'; 'transparent' keeps PNG alpha."),
};

const pageImageSchema = memoizeSchema(buildPageImageSchema);

function buildPageImageSchema(to: PageImageTarget): z.ZodType<PageImageOptions> {
  const shape =
    to === 'jpg'
      ? {
          ...pageImageShape,
          quality: z
            .int()
            .min(1)
            .max(100)
            .default(PDF_DEFAULTS.quality)
            .describe(`JPEG quality, 1 (smallest) to 100 (best). Default ${PDF_DEFAULTS.quality}.`),
        }
      : pageImageShape;
  return z
    .strictObject(shape)
    .refine((o) => o.page === undefined || o.pages === undefined, {
      message: "Give either 'page' or 'pages', not both",
      path: ['pages'],
    })
    .refine((o) => o.dpi === undefined || o.width === undefined, {
      message: "Give either 'dpi' or 'width', not both",
      path: ['width'],
    });
}

const imagePageSchema: z.ZodType<ImagePageOptions> = z.strictObject({
  dpi: z
    .int()
    .min(IMAGE_DPI_RANGE.min)
    .max(IMAGE_DPI_RANGE.max)
    .optional()
    .describe(
      `Image pixels per inch of page, which sets the page size. Default: the resolution the image records (a 300 dpi scan of a Letter page becomes a Letter page), else ${PDF_DEFAULTS.imageDpi} (one pixel per point).`,
    ),
});

/**
 * What a PDF conversion takes, by target: a page image's options (png, jpg), an image page's
 * (pdf), none (txt). The converter reads the one its target's schema gave.
 */
export type PdfOptions = PageImageOptions | ImagePageOptions;

/**
 * The strict options schema for a conversion to `to`: pdf (from an image), txt (no options), png
 * or jpg (from a PDF). Exported so hosts can validate and describe options without loading pdf.js.
 */
export function pdfOptionsSchema(to: FormatName): z.ZodType<PdfOptions> {
  if (to === 'png' || to === 'jpg') return pageImageSchema(to);
  if (to === 'pdf') return imagePageSchema;
  return noOptionsSchema;
}

const noOptionsSchema = z.strictObject({});

/** Whether parsed pdf -> image options ask for every page (the result is then a zip). */
export function rendersAllPages(options: PdfOptions): boolean {
  return 'pages' in options && options.pages === 'all';
}
