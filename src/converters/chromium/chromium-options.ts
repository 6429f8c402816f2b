/**
 * Conversion options of the Chromium converter, as zod schemas: they validate requests and
 * describe the API. PDF output takes the print options (paper, margins, header and footer...),
 * screenshots the viewport; both take how the page is loaded (JavaScript, what to wait for).
 */
import { z } from 'zod';
import type { FormatName } from '../../core/formats/types.js';
import { DROPPED_REQUEST_HEADERS } from './request-headers.js';

export const CHROMIUM_OPTION_DEFAULTS = {
  javascript: false,
  waitFor: 'load',
  paper: 'A4',
  printBackground: true,
  landscape: false,
  scale: 1,
  viewportWidth: 1280,
  viewportHeight: 720,
  fullPage: true,
  deviceScaleFactor: 1,
  quality: { jpg: 85, webp: 80 },
  tagged: true,
  outline: false,
} as const;

/** A CSS length as Chromium's printing takes it: a number with px, in, cm or mm ('210mm'), or a bare number of px. */
const cssLength = z
  .union([
    z.number().min(0).max(100_000),
    z.string().regex(/^\d{1,6}(\.\d{1,4})?(px|in|cm|mm)$/, "a length like '210mm', '8.5in', '2cm' or '96px'"),
  ])
  .transform((value) => (typeof value === 'number' ? `${value}px` : value));

/** An HTTP token (RFC 9110): what a header's or a cookie's name is made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** No control characters (a tab aside) and no line breaks: a value that cannot split a request. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const HEADER_TEXT = /^[^\x00-\x08\x0a-\x1f\x7f]*$/;

/**
 * A value that authenticates (a cookie's, a header's): writeOnly, as OpenAPI says of what a
 * request sends and no answer returns. Its schema never echoes it in an error message.
 */
const secretText = (max: number) =>
  z.string().max(max).regex(HEADER_TEXT, 'no control characters or line breaks').meta({ writeOnly: true });

/** An HTTP status list as Gotenberg takes it: a code, or 499 / 599 for every 4xx / 5xx. */
const statusCodes = z.array(z.int().min(100).max(599)).max(100);

/** Whether `status` is one of `codes` (x99 standing for its whole class, as in Gotenberg). */
export function statusListed(codes: readonly number[], status: number): boolean {
  return codes.some(
    (code) => code === status || (code % 100 === 99 && Math.floor(code / 100) === Math.floor(status / 100)),
  );
}

/** Options that say how the page is loaded, for every target. */
const pageShape = {
  /** Run the page's scripts. Default false: an uploaded page renders as static markup. */
  javascript: z.boolean().optional(),
  /**
   * What to wait for before printing: 'load' (default), 'networkidle' (no request for 500 ms; with
   * `javascript`, for pages that build themselves) or a CSS selector that must appear.
   */
  waitFor: z.string().min(1).max(1000).optional(),
  /** The CSS media type the page is laid out for. Default 'print' for PDF, 'screen' for images. */
  media: z.enum(['print', 'screen']).optional(),
  /** Longest the page may take to load and render, in seconds; CONVERSION_TIMEOUT past it. Default and maximum: the converter's timeoutMs (30 s). */
  timeoutSeconds: z.number().min(0.1).max(600).optional(),
  /**
   * URL capture: cookies sent with the page's requests. One without `domain` goes to the page's
   * own origin only; with one, to that host and its subdomains. `path` default '/'. Default none.
   */
  cookies: z
    .array(
      z.strictObject({
        name: z.string().min(1).max(256).regex(TOKEN, "a cookie name (letters, digits, !#$%&'*+-.^_`|~)"),
        value: secretText(4096).regex(/^[^;]*$/, 'no semicolon'),
        domain: z
          .string()
          .max(253)
          .regex(/^\.?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/, "a host name like 'example.com'")
          .optional(),
        path: z
          .string()
          .max(1024)
          .regex(/^\/[^;\s]*$/, "a path starting with '/'")
          .optional(),
      }),
    )
    .max(50)
    .optional(),
  /** URL capture: headers sent with the requests to the page's own origin ({ "X-Api-Key": "..." }). Default none. */
  extraHttpHeaders: z
    .record(
      z
        .string()
        .regex(TOKEN, 'a header name')
        .refine(
          (name) => !DROPPED_REQUEST_HEADERS.has(name.toLowerCase()) && name.toLowerCase() !== 'cookie',
          {
            message: 'a header the connection sets itself (give cookies in `cookies`)',
          },
        ),
      secretText(8192),
    )
    .refine((headers) => Object.keys(headers).length <= 50, { message: 'at most 50 headers' })
    .optional(),
  /** URL capture: the User-Agent sent (and, with `javascript`, navigator.userAgent). Default Chromium's own. */
  userAgent: z
    .string()
    .min(1)
    .max(1000)
    .regex(HEADER_TEXT, 'no control characters or line breaks')
    .optional(),
  /**
   * URL capture: the page's statuses that fail the job (URL_UNREACHABLE); 499 and 599 stand for
   * every 4xx and 5xx. Given, a status not listed renders (an error page). Default: every status but 2xx.
   */
  failOnHttpStatusCodes: statusCodes.optional(),
  /** URL capture: statuses of the page's resources (images, styles, scripts' requests) that fail the job (URL_UNREACHABLE). Default none. */
  failOnResourceHttpStatusCodes: statusCodes.optional(),
};

export const chromiumPdfOptionsSchema = z
  .strictObject({
    ...pageShape,
    /** Paper size. Default 'A4' (595 x 842 pt); or give `width` and `height`. */
    paper: z.enum(['A4', 'Letter', 'Legal', 'A3', 'A5', 'Tabloid']).optional(),
    /** Paper width, a CSS length ('210mm'); with `height`, instead of `paper`. */
    width: cssLength.optional(),
    /** Paper height, a CSS length ('297mm'); with `width`, instead of `paper`. */
    height: cssLength.optional(),
    /** Page margins, CSS lengths. Default: none (the page's own CSS margins apply). */
    margin: z
      .strictObject({
        top: cssLength.optional(),
        right: cssLength.optional(),
        bottom: cssLength.optional(),
        left: cssLength.optional(),
      })
      .optional(),
    /** Landscape orientation. Default false. */
    landscape: z.boolean().optional(),
    /** Zoom of the rendering, 0.1 to 2. Default 1. */
    scale: z.number().min(0.1).max(2).optional(),
    /** Print background colours and images. Default true. */
    printBackground: z.boolean().optional(),
    /** Pages to keep, as in a print dialog: '1-3,5'. Default all. */
    pageRanges: z
      .string()
      .regex(/^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$/, "page ranges like '1-3,5'")
      .optional(),
    /**
     * HTML of each page's header; Chromium fills elements of class pageNumber, totalPages, date,
     * title and url. Give a font-size: the default is tiny. Default: no header.
     */
    headerTemplate: z.string().max(65_536).optional(),
    /** HTML of each page's footer, like headerTemplate: `<span class="pageNumber"></span> / <span class="totalPages"></span>`. */
    footerTemplate: z.string().max(65_536).optional(),
    /** Let the page's CSS @page size win over `paper`. Default false. */
    preferCSSPageSize: z.boolean().optional(),
    /** Write a tagged (accessible) PDF: headings, paragraphs and tables readers can navigate. Default true. */
    tagged: z.boolean().optional(),
    /** Write the page's headings as the PDF's outline (bookmarks). Default false. */
    outline: z.boolean().optional(),
  })
  .refine((options) => (options.width === undefined) === (options.height === undefined), {
    message: 'give both width and height, or neither',
    path: ['width'],
  })
  .refine((options) => options.paper === undefined || options.width === undefined, {
    message: 'give either paper or width and height, not both',
    path: ['paper'],
  });

export type ChromiumPdfOptions = z.output<typeof chromiumPdfOptionsSchema>;

const screenshotShape = {
  ...pageShape,
  /** Viewport width in CSS pixels. Default 1280. */
  width: z.int().min(16).max(8192).optional(),
  /** Viewport height in CSS pixels (the image height unless `fullPage`). Default 720. */
  height: z.int().min(16).max(8192).optional(),
  /** The whole page, not just the viewport. Default true. */
  fullPage: z.boolean().optional(),
  /** Device pixels per CSS pixel (2 for a sharp "retina" image). Default 1. */
  deviceScaleFactor: z.number().min(0.1).max(4).optional(),
};

/** A lossy screenshot's: its encoder quality, 1-100. Default 85 for jpg, 80 for webp. */
const lossyShape = { ...screenshotShape, quality: z.int().min(1).max(100).optional() };

export const chromiumScreenshotSchemas = {
  png: z.strictObject(screenshotShape),
  jpg: z.strictObject(lossyShape),
  webp: z.strictObject(lossyShape),
} as const;

/** A screenshot's options (a PNG's have no `quality`). */
export type ChromiumScreenshotOptions = z.output<typeof chromiumScreenshotSchemas.jpg>;

/** What a Chromium conversion takes: the print options for PDF, a screenshot's for an image. */
export type ChromiumOptions = ChromiumPdfOptions | ChromiumScreenshotOptions;

/** The options schema for a conversion to `to`; undefined for a target the converter has no edge to. */
export function chromiumOptionsSchema(to: FormatName): z.ZodType<ChromiumOptions> | undefined {
  if (to === 'pdf') return chromiumPdfOptionsSchema;
  if (to === 'png' || to === 'jpg' || to === 'webp') return chromiumScreenshotSchemas[to];
  return undefined;
}
