/**
 * What the subtitle converter offers the conversion graph, dependency-free (see
 * image/image-edges.ts for why): every subtitle format to every other.
 */
import type { ConversionEdge } from '../../core/ports/index.js';

const FORMATS = ['srt', 'vtt', 'ass', 'ssa'] as const;
const STYLED = new Set<string>(['ass', 'ssa']);

/**
 * Cost 1 each (one short ffmpeg run or a text rewrite). Lossy where styling is dropped: from
 * ASS/SSA (positions, fonts, colours beyond bold/italic/underline) to SubRip or WebVTT, and from
 * ASS to SSA (ASS-only style fields); SubRip and WebVTT share their few tags, and SubStation
 * can hold all of them.
 */
export const SUBTITLE_EDGES: readonly ConversionEdge[] = FORMATS.flatMap((from) =>
  FORMATS.filter((to) => to !== from).map((to) => ({
    from,
    to,
    cost: 1,
    lossy: (STYLED.has(from) && !STYLED.has(to)) || (from === 'ass' && to === 'ssa'),
  })),
);
