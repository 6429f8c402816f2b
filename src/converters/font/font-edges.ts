/**
 * What the font converter offers the conversion graph. Dependency-free, so an assembly can plan
 * with these edges before it loads the converter.
 *
 * Wrapping a font for the web (ttf/otf -> woff/woff2, woff <-> woff2) keeps every table as it is:
 * lossless. Unwrapping (woff/woff2 -> ttf/otf) is lossless too when the wrapped outlines already
 * are the target's, but converts them when they are not (a CFF woff2 asked for as ttf), so those
 * edges are marked lossy like the direct outline conversions: otherwise the graph would prefer
 * ttf -> woff -> otf, a "lossless" detour doing the same outline conversion, over ttf -> otf.
 * The direct outline conversions cost 1.5 so they beat such a two-step detour (cost 2).
 *
 * - otf -> ttf: CFF cubic curves become TrueType quadratic ones with fontTools' cu2qu, each
 *   within 1 font unit of the original; PostScript hints are dropped.
 * - ttf -> otf: every quadratic curve is exactly a cubic one (rounded to whole units); TrueType
 *   hinting instructions are dropped.
 */
import type { FormatName } from '../../core/formats/types.js';
import type { ConversionEdge } from '../../core/ports/index.js';

export const FONT_FORMATS = ['ttf', 'otf', 'woff', 'woff2'] as const;
export type FontFormat = (typeof FONT_FORMATS)[number];

const WEB_FONTS = new Set<FormatName>(['woff', 'woff2']);

export function buildFontEdges(): ConversionEdge[] {
  const edges: ConversionEdge[] = [];
  for (const from of FONT_FORMATS) {
    for (const to of FONT_FORMATS) {
      if (from === to) continue;
      if (WEB_FONTS.has(to)) edges.push({ from, to, cost: 1 });
      else if (WEB_FONTS.has(from)) edges.push({ from, to, cost: 1, lossy: true });
      else edges.push({ from, to, cost: 1.5, lossy: true });
    }
  }
  return edges;
}

export const FONT_EDGES: readonly ConversionEdge[] = buildFontEdges();
