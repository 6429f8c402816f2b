/**
 * The archive converter's edges: every archive format it reads into every one it writes (rar is
 * read only: its compressor is proprietary). Kept free of imports so the graph can plan with them
 * before the converter's module loads.
 */
import type { ConversionEdge } from '../../core/ports/index.js';

/** What libarchive (bsdtar) reads. */
export const ARCHIVE_READS = ['zip', 'tar', 'tgz', 'tbz2', 'txz', '7z', 'rar'] as const;
/** What it writes. */
export const ARCHIVE_WRITES = ['zip', 'tar', 'tgz', 'tbz2', 'txz', '7z'] as const;
export type ArchiveRead = (typeof ARCHIVE_READS)[number];
export type ArchiveWrite = (typeof ARCHIVE_WRITES)[number];

/**
 * A repack keeps every entry's name, bytes, mode and time (owners are dropped, see bsdtar.ts), so
 * no edge is lossy; the cost is an extraction and a recompression, about the price of an image
 * re-encode.
 */
export const ARCHIVE_EDGES: readonly ConversionEdge[] = ARCHIVE_READS.flatMap((from) =>
  ARCHIVE_WRITES.filter((to) => to !== from).map((to) => ({ from, to, cost: 2 })),
);
