/**
 * What the print and vector converters offer the conversion graph, dependency-free (see
 * image/image-edges.ts for why): Ghostscript for PostScript and EPS, librsvg for SVG -> PDF,
 * Poppler for PDF -> SVG, and zlib for svgz.
 */
import type { ConversionEdge } from '../../core/ports/index.js';

/**
 * Ghostscript. PostScript and EPS become PDF losslessly (vectors and text stay vectors and text);
 * PDF -> EPS keeps one page (EPS holds one picture), so it is lossy; PDF -> PS keeps every page.
 * Rendering to PNG/JPEG costs 2, like the PDF converter's page renders. Nothing else reads
 * PostScript here, so no cost has to beat another converter's.
 */
export const GHOSTSCRIPT_EDGES: readonly ConversionEdge[] = [
  { from: 'eps', to: 'pdf', cost: 1, lossy: false },
  { from: 'ps', to: 'pdf', cost: 1, lossy: false },
  { from: 'pdf', to: 'eps', cost: 1.5, lossy: true },
  { from: 'pdf', to: 'ps', cost: 1.5, lossy: false },
  ...(['eps', 'ps'] as const).flatMap((from) => [
    { from, to: 'png', cost: 2, lossy: true },
    { from, to: 'jpg', cost: 2, lossy: true },
  ]),
];

/**
 * librsvg. SVG -> PDF at 1 keeps vectors and text, and beats the raster route the graph would
 * otherwise take (svg -> png through sharp, then png -> pdf: cost 2, text become pixels).
 */
export const RSVG_EDGES: readonly ConversionEdge[] = [{ from: 'svg', to: 'pdf', cost: 1, lossy: false }];

/** Poppler. PDF -> SVG keeps shapes, but text becomes glyph outlines and one page is written: lossy. */
export const PDFTOCAIRO_EDGES: readonly ConversionEdge[] = [
  { from: 'pdf', to: 'svg', cost: 1.5, lossy: true },
];

/** zlib. Packing and unpacking SVG, cheap enough that svgz -> svg -> png stays close to svg -> png. */
export const SVGZ_EDGES: readonly ConversionEdge[] = [
  { from: 'svgz', to: 'svg', cost: 0.5, lossy: false },
  { from: 'svg', to: 'svgz', cost: 0.5, lossy: false },
];
