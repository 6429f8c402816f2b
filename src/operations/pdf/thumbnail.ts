/**
 * A thumbnail of a PDF's first page: rendered by the PDF converter's pdf.js renderer (the same
 * safe loading: bytes only, no eval, images above the pixel limit skipped) straight at the asked
 * width, then encoded by sharp as PNG or WebP.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writePageImages } from '../../converters/pdf/pdf-render.js';
import { assertCanvasAvailable, openPdf as openWithPdfjs } from '../../converters/pdf/pdfjs.js';
import { throwIfAborted } from '../../core/abort.js';
import { loadSharp } from '../../kit/libraries/sharp.js';
import { type WorkDirOptions, withWorkDir } from '../../kit/work-dir.js';
import { parseOperationOptions } from './operation-options.js';
import { type PdfRunOptions, placeFile, readPdfBytes } from './pdf-document.js';

export const thumbnailOptionsSchema = z.strictObject({
  /** Width of the thumbnail in pixels; the height follows the page. Default 200. */
  width: z
    .int()
    .min(8)
    .max(4096)
    .default(200)
    .describe('Width in pixels; the height follows the page. Default 200.'),
  /** 'png' or 'webp'. Default 'png'. */
  format: z.enum(['png', 'webp']).default('png').describe("'png' or 'webp'. Default 'png'."),
});

export type ThumbnailOptions = z.input<typeof thumbnailOptionsSchema> &
  PdfRunOptions &
  WorkDirOptions & {
    /** Largest raster (and embedded image decoded), pixels. Default 100,000,000. */
    maxPixels?: number;
  };

/** Writes the first page of `input`, `width` pixels wide, as PNG or WebP to `output`. */
export async function pdfThumbnail(
  input: string,
  output: string,
  options: ThumbnailOptions = {},
): Promise<{ pages: number; width: number; height: number; format: 'png' | 'webp' }> {
  const { width, format } = parseOperationOptions('thumbnail', thumbnailOptionsSchema, options);
  const signal = options.signal ?? new AbortController().signal;
  const maxPixels = options.maxPixels ?? 100_000_000;
  await readPdfBytes(input, options);
  assertCanvasAvailable();
  const sharp = await loadSharp();
  return withWorkDir(options, async (dir) => {
    const doc = await openWithPdfjs(input, signal, maxPixels);
    const rendered = join(dir, 'page.png');
    let pages: number;
    try {
      pages = doc.numPages;
      await writePageImages(
        {
          doc,
          to: 'png',
          options: { page: 1, width, background: 'white' },
          maxPixels,
          maxPages: 1,
          sharp,
          signal,
          onPage: () => {},
        },
        rendered,
      );
    } finally {
      await doc.destroy();
    }
    throwIfAborted(signal);
    const encoded = join(dir, `thumbnail.${format}`);
    const image = sharp(rendered);
    const info = await (format === 'webp' ? image.webp({ quality: 80 }) : image.png()).toFile(encoded);
    await rm(rendered, { force: true });
    await placeFile(encoded, output);
    return { pages, width: info.width, height: info.height, format };
  });
}
