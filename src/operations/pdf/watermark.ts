/**
 * Stamping text or an image on PDF pages, on pdf-lib: drawn over the page content at the chosen
 * opacity and position ('diagonal' runs the text corner to corner, centred). An image is read
 * through sharp first, refused past the pixel limit from its header (a pixel bomb never decodes),
 * and embedded as PNG. Latin-1 (WinAnsi) text uses Helvetica Bold, one of the 14 standard fonts
 * every viewer has, so nothing is embedded; other text (Greek, Cyrillic, Latin beyond Latin-1,
 * symbols) is drawn in DejaVu Sans Bold, subset and embedded, when the text converter's font
 * packages are installed. Scripts DejaVu lacks (CJK) and scripts that need shaping (Arabic,
 * Hebrew: right to left, joined) are INVALID_OPTIONS naming the character.
 */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { parsePageRanges } from '../../core/page-ranges.js';
import { isColourString } from '../../kit/image/colour.js';
import { pixelLimitError } from '../../kit/image/probe.js';
import { loadPdfLib } from '../../kit/libraries/pdf.js';
import { loadSharp } from '../../kit/libraries/sharp.js';
import { inputFileError } from '../../kit/local-files.js';
import { parseOperationOptions } from './operation-options.js';
import { openPdf, type PdfRunOptions, savePdf } from './pdf-document.js';
import { embedUnicodeFont, isWinAnsi } from './unicode-font.js';

export const WATERMARK_POSITIONS = [
  'center',
  'diagonal',
  'top-left',
  'top',
  'top-right',
  'left',
  'right',
  'bottom-left',
  'bottom',
  'bottom-right',
] as const;
export type WatermarkPosition = (typeof WATERMARK_POSITIONS)[number];

export const watermarkOptionsSchema = z
  .strictObject({
    /** The text to stamp (Latin, Greek, Cyrillic and symbols; no CJK or right-to-left scripts yet); give `text` or `image`. */
    text: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe(
        'The text to stamp (Latin, Greek, Cyrillic and symbols; not CJK or right to left). Give text or image.',
      ),
    /** Path of an image (PNG, JPEG, WebP, ...) to stamp; give `text` or `image`. */
    image: z
      .string()
      .min(1)
      .optional()
      .describe('Path of an image to stamp (PNG, JPEG, WebP, ...). Give text or image.'),
    /** 0 (invisible) to 1 (opaque). Default 0.3. */
    opacity: z.number().min(0).max(1).default(0.3).describe('0 (invisible) to 1 (opaque). Default 0.3.'),
    /** Where on the page. Default 'diagonal' for text, 'center' for an image. */
    position: z
      .enum(WATERMARK_POSITIONS)
      .optional()
      .describe("Where on the page. Default 'diagonal' for text, 'center' for an image."),
    /** Text size in points. Default 48 (diagonal: fitted to the page's diagonal). */
    fontSize: z
      .number()
      .min(4)
      .max(500)
      .optional()
      .describe('Text size in points. Default 48; diagonal text is fitted to the page.'),
    /** Text colour, '#rrggbb'. Default '#808080'. */
    color: z
      .string()
      .refine(isHexColour, { message: "Expected a colour as '#rrggbb'" })
      .default('#808080')
      .describe("Text colour as '#rrggbb'. Default '#808080'."),
    /** Image width as a fraction of the page width. Default 0.4. */
    imageScale: z
      .number()
      .min(0.01)
      .max(1)
      .default(0.4)
      .describe('Image width as a fraction of the page width. Default 0.4.'),
    /** Pages to stamp ("1-3,5", "7-"). Default all. */
    pages: z.string().max(1000).optional().describe('Pages to stamp ("1-3,5", "7-"). Default all.'),
  })
  .refine((o) => (o.text === undefined) !== (o.image === undefined), {
    message: "Give either 'text' or 'image' (exactly one)",
    path: ['text'],
  });

function isHexColour(value: string): boolean {
  return /^#[0-9a-f]{6}$/i.test(value) && isColourString(value);
}

export type WatermarkOptions = z.input<typeof watermarkOptionsSchema> &
  PdfRunOptions & {
    /** Largest watermark image, pixels (width x height). Default 100,000,000. */
    maxPixels?: number;
  };

const MARGIN = 24;
const RASTER_FORMATS = new Set(['png', 'jpeg', 'webp', 'gif', 'tiff', 'heif']);

/** The image at `path` as PNG bytes, refused past `maxPixels` before it is decoded. */
async function imageAsPng(path: string, maxPixels: number): Promise<Buffer> {
  const sharp = await loadSharp();
  await stat(path).catch((error: unknown) => {
    throw inputFileError(path, error);
  });
  let meta: { format?: string | undefined; width?: number | undefined; height?: number | undefined };
  try {
    // The header only: sharp's own limit would refuse a bomb here with a vaguer message.
    meta = await sharp(path, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw new FileconvError('CORRUPT_INPUT', `The watermark image ${path} is not a readable image.`, {
      cause: error,
    });
  }
  // Raster formats only: an SVG may reference other files, a PDF is not a stamp image.
  if (!RASTER_FORMATS.has(meta.format ?? '')) {
    throw new FileconvError(
      'UNSUPPORTED_FORMAT',
      `The watermark image must be PNG, JPEG, WebP, GIF, TIFF or AVIF, not ${meta.format ?? 'unknown'}.`,
    );
  }
  const { width = 0, height = 0 } = meta;
  if (width * height > maxPixels)
    throw pixelLimitError(width, height, 1, maxPixels, 'The watermark image is');
  try {
    return await sharp(path, { limitInputPixels: maxPixels }).png().toBuffer();
  } catch (error) {
    throw new FileconvError('CORRUPT_INPUT', `The watermark image ${path} could not be decoded.`, {
      cause: error,
    });
  }
}

/** Lower-left corner of a `w` x `h` box at `position` on a `pageWidth` x `pageHeight` page. */
function place(position: WatermarkPosition, pageWidth: number, pageHeight: number, w: number, h: number) {
  const x = position.endsWith('left')
    ? MARGIN
    : position.endsWith('right')
      ? pageWidth - w - MARGIN
      : (pageWidth - w) / 2;
  const y = position.startsWith('top')
    ? pageHeight - h - MARGIN
    : position.startsWith('bottom')
      ? MARGIN
      : (pageHeight - h) / 2;
  return { x, y };
}

/** Writes `input` to `output` with the watermark drawn on the selected pages. */
export async function watermarkPdf(
  input: string,
  output: string,
  options: WatermarkOptions,
): Promise<{ pages: number; stamped: number }> {
  const o = parseOperationOptions('watermark', watermarkOptionsSchema, options);
  const signal = options.signal ?? new AbortController().signal;
  const lib = await loadPdfLib();
  const document = await openPdf(input, options);
  const selected = parsePageRanges(o.pages ?? 'all', document.getPageCount());
  const opacity = o.opacity;
  if (o.image !== undefined) {
    const png = await imageAsPng(o.image, options.maxPixels ?? 100_000_000);
    const image = await document.embedPng(png);
    for (const index of selected) {
      throwIfAborted(signal);
      const page = document.getPage(index);
      const { width, height } = page.getSize();
      const w = width * o.imageScale;
      const h = (w * image.height) / image.width;
      const position = o.position === 'diagonal' || o.position === undefined ? 'center' : o.position;
      page.drawImage(image, { ...place(position, width, height, w, h), width: w, height: h, opacity });
    }
  } else {
    const text = o.text ?? '';
    const font = [...text].every(isWinAnsi)
      ? await document.embedFont(lib.StandardFonts.HelveticaBold)
      : await embedUnicodeFont(document, text, { face: 'bold', whose: "watermark: the text's" });
    const colour = lib.rgb(
      ...([1, 3, 5].map((at) => Number.parseInt(o.color.slice(at, at + 2), 16) / 255) as [
        number,
        number,
        number,
      ]),
    );
    for (const index of selected) {
      throwIfAborted(signal);
      const page = document.getPage(index);
      const { width, height } = page.getSize();
      const position = o.position ?? 'diagonal';
      if (position === 'diagonal') {
        const angle = Math.atan2(height, width);
        const diagonal = Math.hypot(width, height);
        const size = o.fontSize ?? Math.min(200, (diagonal * 0.7) / font.widthOfTextAtSize(text, 1));
        const w = font.widthOfTextAtSize(text, size);
        const h = font.heightAtSize(size, { descender: false });
        // The text's centre on the page's centre: start half its width back along the diagonal.
        const x = width / 2 - (Math.cos(angle) * w) / 2 + (Math.sin(angle) * h) / 2;
        const y = height / 2 - (Math.sin(angle) * w) / 2 - (Math.cos(angle) * h) / 2;
        page.drawText(text, { x, y, size, font, color: colour, opacity, rotate: lib.radians(angle) });
      } else {
        const size = o.fontSize ?? 48;
        const w = font.widthOfTextAtSize(text, size);
        const h = font.heightAtSize(size, { descender: false });
        page.drawText(text, { ...place(position, width, height, w, h), size, font, color: colour, opacity });
      }
    }
  }
  throwIfAborted(signal);
  await savePdf(document, output);
  return { pages: document.getPageCount(), stamped: selected.length };
}
