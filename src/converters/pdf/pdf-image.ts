/**
 * Image XObjects for pdf-lib pages, and drawing one over a whole page with its EXIF orientation.
 *
 * Decoded pixels are embedded as a Flate image (plus a soft mask for alpha) compressed by Node's
 * zlib, which runs in the thread pool: pdf-lib's own embedPng would inflate and deflate the image
 * again in JavaScript, on the event loop. JPEG files are embedded as they are (DCTDecode), so
 * their EXIF orientation must be applied by the drawing matrix instead of by re-encoding.
 */
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import type { PDFDocument, PDFPage, PDFRef } from 'pdf-lib';
import type { PdfLibModule } from '../../kit/libraries/pdf.js';

const deflateAsync = promisify(deflate);

export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  /** 1 grey, 2 grey + alpha, 3 RGB, 4 RGBA; 8 bits each. */
  channels: 1 | 2 | 3 | 4;
}

/** Splits interleaved colour + alpha samples into two planes. */
function splitAlpha(image: RawImage): { colour: Buffer; alpha: Buffer | undefined } {
  if (image.channels === 1 || image.channels === 3) return { colour: image.data, alpha: undefined };
  const colourChannels = image.channels - 1;
  const pixels = image.width * image.height;
  const colour = Buffer.allocUnsafe(pixels * colourChannels);
  const alpha = Buffer.allocUnsafe(pixels);
  let opaque = true;
  for (let pixel = 0, from = 0, to = 0; pixel < pixels; pixel++) {
    for (let c = 0; c < colourChannels; c++) colour[to++] = image.data[from++] ?? 0;
    const a = image.data[from++] ?? 255;
    alpha[pixel] = a;
    if (a !== 255) opaque = false;
  }
  // A fully opaque alpha channel (common in PNGs) would only add a useless soft mask.
  return { colour, alpha: opaque ? undefined : alpha };
}

/** Embeds decoded 8-bit pixels as an image XObject; returns its reference. */
export async function embedRawImage(pdf: PDFDocument, image: RawImage): Promise<PDFRef> {
  const { colour, alpha } = splitAlpha(image);
  const base = {
    Type: 'XObject',
    Subtype: 'Image',
    Width: image.width,
    Height: image.height,
    BitsPerComponent: 8,
  };
  const [colourData, alphaData] = await Promise.all([
    deflateAsync(colour, { level: 6 }),
    alpha ? deflateAsync(alpha, { level: 6 }) : undefined,
  ]);
  const mask = alphaData
    ? pdf.context.register(
        pdf.context.stream(alphaData, { ...base, ColorSpace: 'DeviceGray', Filter: 'FlateDecode' }),
      )
    : undefined;
  const colourSpace = image.channels <= 2 ? 'DeviceGray' : 'DeviceRGB';
  const dict = { ...base, ColorSpace: colourSpace, Filter: 'FlateDecode', ...(mask ? { SMask: mask } : {}) };
  return pdf.context.register(pdf.context.stream(colourData, dict));
}

/**
 * Where a stored pixel (s, t) lands in the displayed image (p, q), all in 0..1 with t and q
 * pointing down, for each EXIF orientation (TIFF 6.0 / EXIF 2.3 "Orientation").
 */
const ORIENTATIONS: Readonly<Record<number, (s: number, t: number) => [number, number]>> = {
  1: (s, t) => [s, t],
  2: (s, t) => [1 - s, t], // mirrored horizontally
  3: (s, t) => [1 - s, 1 - t], // rotated 180
  4: (s, t) => [s, 1 - t], // mirrored vertically
  5: (s, t) => [t, s], // transposed
  6: (s, t) => [1 - t, s], // rotated 90 clockwise
  7: (s, t) => [1 - t, 1 - s], // transversed
  8: (s, t) => [t, 1 - s], // rotated 90 counter-clockwise
};

/** Whether an orientation swaps width and height. */
export const swapsSides = (orientation: number): boolean => orientation >= 5 && orientation <= 8;

/**
 * The matrix that draws an image XObject over a `width` x `height` page, oriented. PDF maps an
 * image onto the unit square with its first row at the top: unit (x, y) is stored (x, 1 - y).
 */
export function orientedMatrix(
  orientation: number,
  width: number,
  height: number,
): [number, number, number, number, number, number] {
  const map = ORIENTATIONS[orientation] ?? ORIENTATIONS[1]!;
  const toPage = (x: number, y: number): [number, number] => {
    const [p, q] = map(x, 1 - y);
    return [p * width, (1 - q) * height];
  };
  const [e, f] = toPage(0, 0);
  const [ax, ay] = toPage(1, 0);
  const [cx, cy] = toPage(0, 1);
  return [ax - e, ay - f, cx - e, cy - f, e, f];
}

/** Paints the image `ref` over the whole page, applying `orientation`. */
export function drawFullPage(lib: PdfLibModule, page: PDFPage, ref: PDFRef, orientation: number): void {
  const name = page.node.newXObject('Image', ref);
  const { width, height } = page.getSize();
  page.pushOperators(
    lib.pushGraphicsState(),
    lib.concatTransformationMatrix(...orientedMatrix(orientation, width, height)),
    lib.drawObject(name),
    lib.popGraphicsState(),
  );
}
