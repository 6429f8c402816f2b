/**
 * What the PDF converter offers the conversion graph, dependency-free (see image/image-edges.ts for why).
 */
import type { FormatName } from '../../core/formats/types.js';
import type { ConversionEdge } from '../../core/ports/index.js';

/**
 * Image sources: what sharp decodes itself. BMP, ICO, HEIC and SVG need the image converter's
 * own decoders or vetting, so the graph routes them through PNG first.
 */
const IMAGE_SOURCES: readonly FormatName[] = ['jpg', 'png', 'webp', 'avif', 'gif', 'tiff'];

/**
 * Edges. PDF -> txt drops layout, fonts and images; PDF -> png/jpg rasterises (text is no longer
 * text), and costs 2: a page render is several times a plain re-encode. Images -> PDF keep every
 * pixel for PNG and JPEG (embedded as is); the other sources are marked lossy because their
 * decoded pixels are reduced to 8-bit grey or RGB (TIFF and AVIF may hold more depth, CMYK) and
 * an animation's timing is lost when its frames become pages.
 */
export const PDF_EDGES: readonly ConversionEdge[] = [
  // Reads the text layer: a PDF made from a photo has none (the graph then plans OCR instead).
  { from: 'pdf', to: 'txt', cost: 1, lossy: true, readsWords: 'text' },
  { from: 'pdf', to: 'png', cost: 2, lossy: true },
  { from: 'pdf', to: 'jpg', cost: 2, lossy: true },
  ...IMAGE_SOURCES.map((from) => ({
    from,
    to: 'pdf',
    cost: from === 'avif' ? 1.5 : 1,
    lossy: from !== 'png' && from !== 'jpg',
  })),
];
