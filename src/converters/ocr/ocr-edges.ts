/**
 * What the OCR converter offers the conversion graph, dependency-free (see image/image-edges.ts
 * for why): the text of a scan in any of the formats scanners and phones write. A PNG's header is
 * checked here before tesseract decodes a pixel; the others are decoded to PNG by the image
 * converter inside the step (its probe and pixel limit apply), since tesseract only ever gets a
 * checked PNG. Other images (heic, svg, ico...) reach it through png.
 *
 * The detour image -> pdf -> txt is not planned (pdf -> txt reads a text layer, and a PDF made
 * from a picture has none: core/graph): without tesseract a picture has no text target at all.
 */
import type { FormatName } from '../../core/formats/types.js';
import type { ConversionEdge } from '../../core/ports/index.js';

/** Scans the OCR step reads itself. */
export const OCR_SOURCES: readonly FormatName[] = ['png', 'jpg', 'tiff', 'webp', 'gif', 'bmp', 'avif'];

/**
 * readsWords 'pixels': the graph plans it on pictures, never on a video's frame (mp4 -> gif -> txt).
 * finalOnly: OCR ends a chain, never feeds one. Otherwise png -> pdf without pdf-lib planned as
 * png -> txt (OCR) -> pdf, a document of guessed words instead of the picture.
 */
export const OCR_EDGES: readonly ConversionEdge[] = OCR_SOURCES.map((from) => ({
  from,
  to: 'txt',
  cost: 1.5,
  lossy: true,
  finalOnly: true,
  readsWords: 'pixels',
}));
