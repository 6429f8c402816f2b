/**
 * Image -> PDF with pdf-lib: one page per image, or per frame of a multi-page TIFF or an animated
 * GIF/WebP, each page exactly the size of its image at the requested dpi. A JPEG is embedded
 * byte for byte (no re-encode, no generation loss); everything else is decoded by sharp and
 * embedded as lossless Flate data. The input is probed first (pixel limit from the header).
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { PDFDocument, PDFRef } from 'pdf-lib';
import { throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import { corrupt, type ProbedImage, pixelLimitError, probeImage } from '../../kit/image/probe.js';
import { mapSharpError } from '../../kit/image/sharp-errors.js';
import { assertImageWork } from '../../kit/image/work-budget.js';
import { loadPdfLib, type PdfLibModule } from '../../kit/libraries/pdf.js';
import type { SharpFactory } from '../../kit/libraries/sharp.js';
import { drawFullPage, embedRawImage, type RawImage, swapsSides } from './pdf-image.js';
import { PDF_DEFAULTS } from './pdf-options.js';

/** Largest page side readers accept: 14 400 units, 200 inches (PDF 1.7, Annex C). */
const MAX_PAGE_SIDE = 14_400;
/** sharp's names of the containers this converter embeds (SVG and HEIC go elsewhere first). */
const RASTER_FORMATS = new Set(['jpeg', 'png', 'webp', 'heif', 'gif', 'tiff']);

export interface ImagesToPdfJob {
  inputPath: string;
  from: FormatName;
  /** Image pixels per inch of page; undefined: the image's own resolution, else 72. */
  dpi?: number | undefined;
  maxPixels: number;
  /** Most frames (pages) one image may bring. */
  maxPages: number;
  /** Pixels all frames together may have (a plan's budget); undefined: none. */
  maxWorkPixels?: number | undefined;
  sharp: SharpFactory;
  signal: AbortSignal;
  onPage(done: number, total: number): void;
}

interface EmbeddedImage {
  ref: PDFRef;
  /** Stored pixel size, before orientation. */
  width: number;
  height: number;
  /** EXIF orientation still to apply when drawing (1 when the pixels are upright). */
  orientation: number;
}

/** Adds a page sized to the (oriented) image and draws the image over all of it. */
function addImagePage(lib: PdfLibModule, pdf: PDFDocument, image: EmbeddedImage, dpi: number): void {
  const [width, height] = swapsSides(image.orientation)
    ? [image.height, image.width]
    : [image.width, image.height];
  const pointsPerPixel = 72 / dpi;
  // A huge image at a low dpi is shrunk to what readers accept; its pixels are all kept.
  const shrink = Math.min(1, MAX_PAGE_SIDE / (Math.max(width, height) * pointsPerPixel));
  const page = pdf.addPage([width * pointsPerPixel * shrink, height * pointsPerPixel * shrink]);
  drawFullPage(lib, page, image.ref, image.orientation);
}

/** The JPEG file itself as an image XObject, or undefined when pdf-lib cannot parse it. */
async function embedJpegAsIs(
  pdf: PDFDocument,
  path: string,
  orientation: number,
): Promise<EmbeddedImage | undefined> {
  try {
    const image = await pdf.embedJpg(await readFile(path));
    return { ref: image.ref, width: image.width, height: image.height, orientation };
  } catch {
    return undefined; // unusual markers pdf-lib does not know: sharp decodes it instead
  }
}

/** Decodes one frame upright with sharp and embeds its pixels. */
async function embedDecodedFrame(
  job: ImagesToPdfJob,
  pdf: PDFDocument,
  probed: ProbedImage,
  frame: number,
): Promise<EmbeddedImage> {
  const { data, info } = await job
    .sharp(probed.input, { page: frame, autoOrient: true, failOn: 'error', limitInputPixels: job.maxPixels })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true })
    .catch((error: unknown) => {
      throw mapSharpError(error);
    });
  if (info.channels < 1 || info.channels > 4)
    throw corrupt(`Unsupported image layout (${info.channels} channels)`);
  const raw: RawImage = {
    data,
    width: info.width,
    height: info.height,
    channels: info.channels as RawImage['channels'],
  };
  const ref = await embedRawImage(pdf, raw);
  return { ref, width: info.width, height: info.height, orientation: 1 };
}

/** Checks the probed image against the converter's limits; returns its frame count. */
function checkedFrames(job: ImagesToPdfJob, probed: ProbedImage): number {
  if (!RASTER_FORMATS.has(probed.format) || probed.hevc) {
    throw corrupt(`The input is not a ${job.from} image this converter embeds (${probed.format})`);
  }
  const frames = Math.max(1, probed.pages);
  if (frames > job.maxPages) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `The image has ${frames} frames; at most ${job.maxPages} become pages`,
      { details: { frames, maxPages: job.maxPages } },
    );
  }
  if (probed.width * probed.height * frames > job.maxPixels) {
    throw pixelLimitError(probed.width, probed.height, frames, job.maxPixels);
  }
  assertImageWork(probed.width, probed.height, frames, job.maxWorkPixels);
  return frames;
}

/**
 * The page resolution: the one asked for, else the one the image records when it is plausible for
 * a scan or a photo (a 306 dpi scan made a 2549x3298-point page when it was read at 72), else 72.
 */
function pageDpi(job: ImagesToPdfJob, probed: ProbedImage): number {
  if (job.dpi !== undefined) return job.dpi;
  const own = probed.density;
  return own !== undefined && own >= 36 && own <= 4800 ? own : PDF_DEFAULTS.imageDpi;
}

/** Writes the PDF of `job.inputPath` to `path`. */
export async function writeImagesPdf(job: ImagesToPdfJob, path: string): Promise<void> {
  const probed = await probeImage(job.sharp, job.inputPath, job.from, job.maxPixels);
  const frames = checkedFrames(job, probed);
  const dpi = pageDpi(job, probed);
  const lib = await loadPdfLib();
  const pdf = await lib.PDFDocument.create();
  for (let frame = 0; frame < frames; frame++) {
    throwIfAborted(job.signal);
    const asIs =
      probed.format === 'jpeg' ? await embedJpegAsIs(pdf, job.inputPath, probed.orientation) : undefined;
    addImagePage(lib, pdf, asIs ?? (await embedDecodedFrame(job, pdf, probed, frame)), dpi);
    job.onPage(frame + 1, frames);
  }
  throwIfAborted(job.signal);
  await writeFile(path, await pdf.save());
}
