/**
 * What the ffmpeg converter offers the conversion graph, dependency-free (see image-edges.ts for why).
 */
import type { ConversionEdge } from '../../core/ports/index.js';
import { AUDIO_FORMATS, LOSSLESS_AUDIO_FORMATS, VIDEO_FORMATS } from './containers.js';

/**
 * Edges and costs. Video re-encoding is the expensive work (10), GIF palette building next (8),
 * extracting a soundtrack (4: the video is demuxed but not decoded), audio re-encoding the
 * cheapest (3). `lossy` is simply "the target is not a lossless audio format": stream copy and
 * lossless sources are not tracked per edge, since the graph only needs a rough preference.
 * Every edge into an audio format reads sound (`needsAudio`), so the graph never plans one after
 * a GIF: png -> gif -> mp4 -> mp3 has no soundtrack to extract.
 */
export function buildMediaEdges(): ConversionEdge[] {
  const edges: ConversionEdge[] = [];
  for (const from of VIDEO_FORMATS) {
    for (const to of VIDEO_FORMATS) edges.push({ from, to, cost: 10, lossy: true });
    for (const to of AUDIO_FORMATS)
      edges.push({ from, to, cost: 4, lossy: !LOSSLESS_AUDIO_FORMATS.has(to), needsAudio: true });
    edges.push({ from, to: 'gif', cost: 8, lossy: true });
  }
  for (const from of AUDIO_FORMATS) {
    for (const to of AUDIO_FORMATS)
      edges.push({ from, to, cost: 3, lossy: !LOSSLESS_AUDIO_FORMATS.has(to), needsAudio: true });
  }
  for (const to of VIDEO_FORMATS) edges.push({ from: 'gif', to, cost: 8, lossy: true });
  return edges;
}
