/**
 * PDF pages -> PNG or JPEG: pdf.js rasterises a page onto a canvas from its own @napi-rs/canvas,
 * sharp encodes the pixels (asynchronously, off the event loop). One page is written as an image;
 * every page (`pages: 'all'`) as a zip written while rendering. A page whose raster would exceed
 * the pixel limit is refused from its size, before any canvas is allocated.
 */
import { writeFile } from 'node:fs/promises';
import { abortError, throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { workBudgetError } from '../../core/work-limits.js';
import { pixelLimitError } from '../../kit/image/probe.js';
import type { SharpFactory } from '../../kit/libraries/sharp.js';
import { createStreamingZip, pageEntryName } from './page-zip.js';
import { type PageImageOptions, type PageImageTarget, PDF_DEFAULTS } from './pdf-options.js';
import {
  canvasFactoryOf,
  getPage,
  mapPdfError,
  type PDFDocumentProxy,
  type PDFPageProxy,
  type PdfCanvasFactory,
} from './pdfjs.js';

/** Skia's largest canvas side; larger pages are refused like over-limit ones. */
const MAX_CANVAS_SIDE = 32_767;

export interface RenderJob {
  doc: PDFDocumentProxy;
  to: PageImageTarget;
  options: PageImageOptions;
  maxPixels: number;
  /** Most pages `pages: 'all'` may render. */
  maxPages: number;
  /** Pixels all rendered pages together may have (a plan's budget); undefined: none. */
  maxWorkPixels?: number | undefined;
  sharp: SharpFactory;
  signal: AbortSignal;
  onPage(done: number, total: number): void;
}

interface PageRaster {
  width: number;
  height: number;
  rgba: Uint8ClampedArray;
}

/** The raster size of `page` for these options: `width` wins, else dpi (1 PDF unit = 1/72 in). */
export function rasterSize(
  page: PDFPageProxy,
  options: PageImageOptions,
): { scale: number; width: number; height: number } {
  const base = page.getViewport({ scale: 1 }); // in PDF units, /Rotate applied
  const scale =
    options.width !== undefined ? options.width / base.width : (options.dpi ?? PDF_DEFAULTS.renderDpi) / 72;
  return {
    scale,
    width: Math.max(1, Math.round(base.width * scale)),
    height: Math.max(1, Math.round(base.height * scale)),
  };
}

async function renderPage(
  job: RenderJob,
  factory: PdfCanvasFactory,
  pageNumber: number,
): Promise<PageRaster> {
  const page = await getPage(job.doc, pageNumber);
  try {
    const { scale, width, height } = rasterSize(page, job.options);
    if (width * height > job.maxPixels) {
      throw pixelLimitError(width, height, 1, job.maxPixels, `Page ${pageNumber} would render at`);
    }
    if (Math.max(width, height) > MAX_CANVAS_SIDE) {
      throw new FileconvError(
        'INPUT_LIMIT_EXCEEDED',
        `Page ${pageNumber} would render at ${width}x${height}; a side may be at most ${MAX_CANVAS_SIDE} pixels`,
        { details: { width, height, maxSide: MAX_CANVAS_SIDE } },
      );
    }
    const canvas = factory.create(width, height);
    try {
      const task = page.render({
        canvas: null,
        canvasContext: canvas.context,
        viewport: page.getViewport({ scale }),
        background: job.options.background,
      });
      // Rendering runs in slices on the event loop; cancelling stops it at the next slice.
      const cancel = () => task.cancel();
      job.signal.addEventListener('abort', cancel, { once: true });
      try {
        await task.promise;
      } catch (error) {
        throw job.signal.aborted ? abortError(job.signal) : mapPdfError(error);
      } finally {
        job.signal.removeEventListener('abort', cancel);
      }
      return { width, height, rgba: canvas.context.getImageData(0, 0, width, height).data };
    } finally {
      factory.destroy(canvas);
    }
  } finally {
    page.cleanup();
  }
}

/**
 * The pages' raster sizes summed against the work budget, before any page is drawn: reading a
 * page's size parses its dictionary only, so a 1,000-page PDF asked for at 600 dpi is refused in
 * milliseconds rather than after rendering part of it.
 */
async function assertWithinPixelBudget(job: RenderJob, pages: readonly number[]): Promise<void> {
  const budget = job.maxWorkPixels;
  if (budget === undefined) return;
  let pixels = 0;
  for (const pageNumber of pages) {
    throwIfAborted(job.signal);
    const page = await getPage(job.doc, pageNumber);
    try {
      const { width, height } = rasterSize(page, job.options);
      pixels += width * height;
    } finally {
      page.cleanup();
    }
    if (pixels > budget) {
      throw workBudgetError('maxWorkPixels', `Rendering ${pages.length} page(s) of this PDF`, pixels, budget);
    }
  }
}

/** Whether `background` leaves any transparency (then PNG keeps its alpha channel). */
function isTranslucent(factory: PdfCanvasFactory, background: string): boolean {
  // The canvas parses the colour exactly as the render will, names and rgba() included.
  const probe = factory.create(1, 1);
  try {
    probe.context.fillStyle = background;
    probe.context.fillRect(0, 0, 1, 1);
    return (probe.context.getImageData(0, 0, 1, 1).data[3] ?? 255) < 255;
  } finally {
    factory.destroy(probe);
  }
}

function encodePage(job: RenderJob, raster: PageRaster, keepAlpha: boolean): Promise<Buffer> {
  const { width, height, rgba } = raster;
  const image = job.sharp(rgba, { raw: { width, height, channels: 4 } });
  if (job.to === 'jpg') {
    // JPEG has no alpha: a translucent background is shown over white, as a viewer would.
    return image
      .flatten({ background: 'white' })
      .jpeg({ quality: job.options.quality ?? PDF_DEFAULTS.quality })
      .toBuffer();
  }
  return (keepAlpha ? image : image.removeAlpha()).png().toBuffer();
}

/** Checks the page count against the options; returns the pages to render. */
function pagesToRender(job: RenderJob): number[] {
  const count = job.doc.numPages;
  if (count === 0) {
    throw new FileconvError('CORRUPT_INPUT', 'The PDF has no pages to render', {
      details: { reason: 'no-pages', pageCount: 0 },
    });
  }
  if (job.options.pages === 'all') {
    if (count > job.maxPages) {
      throw new FileconvError(
        'INPUT_LIMIT_EXCEEDED',
        `The PDF has ${count} pages; at most ${job.maxPages} are rendered at once`,
        { details: { pageCount: count, maxPages: job.maxPages } },
      );
    }
    return Array.from({ length: count }, (_, index) => index + 1);
  }
  const page = job.options.page ?? 1;
  if (page > count) {
    throw new FileconvError('INVALID_OPTIONS', `Page ${page} does not exist: the PDF has ${count} page(s)`, {
      details: { page, pageCount: count },
    });
  }
  return [page];
}

/**
 * Renders the requested page(s) of `job.doc` into `path`: one image file, or for `pages: 'all'`
 * a zip of one image per page. Abort is checked between pages and cancels a page being rendered.
 */
export async function writePageImages(job: RenderJob, path: string): Promise<void> {
  const pages = pagesToRender(job);
  await assertWithinPixelBudget(job, pages);
  const factory = canvasFactoryOf(job.doc);
  const keepAlpha = job.to === 'png' && isTranslucent(factory, job.options.background);
  if (job.options.pages !== 'all') {
    const raster = await renderPage(job, factory, pages[0] ?? 1);
    throwIfAborted(job.signal);
    await writeFile(path, await encodePage(job, raster, keepAlpha));
    job.onPage(1, 1);
    return;
  }
  const zip = await createStreamingZip(path);
  try {
    for (const [index, pageNumber] of pages.entries()) {
      throwIfAborted(job.signal);
      const encoded = await encodePage(job, await renderPage(job, factory, pageNumber), keepAlpha);
      await zip.add(pageEntryName(pageNumber, pages.length, job.to), encoded);
      job.onPage(index + 1, pages.length);
    }
    throwIfAborted(job.signal);
    await zip.finish();
  } catch (error) {
    await zip.abort();
    throw error;
  }
}
