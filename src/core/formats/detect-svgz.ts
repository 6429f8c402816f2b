/**
 * Tells a gzipped SVG (.svgz) from any other gzip stream: file-type only says 'gz'. Only the
 * first GZIP_PEEK_BYTES of the head are inflated (deflate expands at most ~1032:1, so that is at
 * most about a megabyte, and a gzip bomb costs nothing more), as far as they go: the stream is
 * cut short on purpose, and Z_SYNC_FLUSH hands back what inflated instead of failing on the cut.
 * The text sniff then decides whether the document inside is SVG.
 */
import { constants, gunzipSync } from 'node:zlib';
import { sniffText } from './detect-text.js';

/** Compressed bytes inflated: an SVG's first kilobyte of gzip holds its root element. */
const GZIP_PEEK_BYTES = 1024;
/** Inflated bytes sniffed: room for an XML prolog, comments and a doctype before <svg. */
const TEXT_PEEK_BYTES = 4096;

/** Whether the gzip stream `head` starts holds an SVG document. */
export function isGzippedSvg(head: Uint8Array): boolean {
  if (head[0] !== 0x1f || head[1] !== 0x8b) return false;
  try {
    const inflated = gunzipSync(head.subarray(0, GZIP_PEEK_BYTES), { finishFlush: constants.Z_SYNC_FLUSH });
    return sniffText(inflated.subarray(0, TEXT_PEEK_BYTES)) === 'svg';
  } catch {
    return false;
  }
}
