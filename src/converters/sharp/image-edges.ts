/**
 * What the sharp image converter offers the conversion graph: which formats it reads and writes,
 * at what cost, and which conversions lose information. Dependency-free, so an assembly can plan
 * with these edges before it loads the converter (the CLI loads only the engines a conversion needs).
 */
import type { FormatName } from '../../core/formats/types.js';
import type { ConversionEdge } from '../../core/ports/index.js';

/** Formats the sharp converter writes. */
export const IMAGE_TARGETS = ['jpg', 'png', 'webp', 'avif', 'gif', 'tiff', 'bmp', 'ico'] as const;
export type ImageTarget = (typeof IMAGE_TARGETS)[number];

/** Targets that hold several frames; an animated source keeps them only when the target can. */
export const ANIMATED_FORMATS = new Set<FormatName>(['gif', 'webp']);
/**
 * Sources that may hold several pages or frames: to a target that holds one, the rest are
 * dropped. A multi-page TIFF went tiff -> png -> pdf (two "lossless" steps) and lost its pages,
 * where the direct tiff -> pdf keeps them all.
 */
const MULTI_PAGE_SOURCES = new Set<FormatName>(['gif', 'webp', 'tiff']);
/** Targets whose encoding loses information (lossy codecs, GIF's 256-colour palette, ICO's resampling). */
const LOSSY_TARGETS = new Set<FormatName>(['jpg', 'webp', 'avif', 'gif', 'ico']);
/**
 * Edge costs: 1 for an in-process re-encode; +1 for HEIC/HEIF sources (a WebAssembly decode, in a
 * worker thread, several times slower than libvips); +0.5 for AVIF and GIF targets (AV1 encoding and palette quantisation are the slow
 * encoders). `lossy` marks lossy targets, and animated or multi-page sources (gif, webp, tiff)
 * going to a single-frame target, since frames after the first are dropped. Rasterising SVG is not marked lossy: it is
 * the only way out of SVG here, and the pixels are exactly what the document describes.
 */
// Same-format edges (jpg -> jpg) are declared too: resizing or recompressing is a conversion
// users ask for, and the graph offers a format to itself only through such an edge.
export function buildImageEdges(heic: boolean): ConversionEdge[] {
  const sources: FormatName[] = [...IMAGE_TARGETS, 'svg', ...(heic ? ['heic', 'heif'] : [])];
  // ICO is lossy as a target because its entries are resampled to fixed sizes; as a source, the
  // largest entry is converted as it is.
  const edges: ConversionEdge[] = [];
  for (const from of sources) {
    for (const to of IMAGE_TARGETS) {
      const cost =
        1 + (from === 'heic' || from === 'heif' ? 1 : 0) + (to === 'avif' || to === 'gif' ? 0.5 : 0);
      const lossy = LOSSY_TARGETS.has(to) || (MULTI_PAGE_SOURCES.has(from) && !ANIMATED_FORMATS.has(to));
      edges.push({ from, to, cost, lossy });
    }
  }
  return edges;
}
