/**
 * The archive converter's options, per target, and the bsdtar arguments that write each format.
 * One option, `compressionLevel`, where the format compresses; tar takes none (strict: unknown
 * keys are refused).
 */
import { z } from 'zod';
import { memoizeSchema } from '../../kit/converter-kit.js';
import type { ArchiveWrite } from './archive-edges.js';

interface LevelRange {
  min: number;
  max: number;
  /** The level used when none is asked for (the compressor's own default). */
  default: number;
  what: string;
}

const LEVELS: Readonly<Record<Exclude<ArchiveWrite, 'tar'>, LevelRange>> = {
  zip: { min: 0, max: 9, default: 6, what: 'deflate level; 0 stores entries uncompressed' },
  '7z': { min: 0, max: 9, default: 6, what: 'LZMA level; 0 stores entries uncompressed' },
  tgz: { min: 1, max: 9, default: 6, what: 'gzip level' },
  tbz2: { min: 1, max: 9, default: 9, what: 'bzip2 block size in 100 KB steps' },
  txz: { min: 0, max: 9, default: 6, what: 'xz preset' },
};

/** What an archive conversion takes: the compression level, where the target compresses. */
export type ArchiveOptions = {
  compressionLevel?: number;
};

export const archiveOptionsSchema: (to: string) => z.ZodType<ArchiveOptions> = memoizeSchema((to: string) => {
  // tar, and anything this converter does not write (its edges never plan one): no options.
  if (!Object.hasOwn(LEVELS, to)) return z.strictObject({});
  const range = LEVELS[to as keyof typeof LEVELS];
  return z.strictObject({
    compressionLevel: z
      .int()
      .min(range.min)
      .max(range.max)
      .optional()
      .describe(`Compression, ${range.min}-${range.max} (${range.what}). Default ${range.default}.`),
  });
});

/** The bsdtar arguments that write `to` at the asked (or default) level. */
export function formatArguments(to: ArchiveWrite, options: ArchiveOptions): string[] {
  if (to === 'tar') return []; // bsdtar's default: pax only where ustar cannot hold an entry
  const level = options.compressionLevel ?? LEVELS[to].default;
  switch (to) {
    case 'zip':
      return ['--format', 'zip', '--options', `zip:compression-level=${level}`];
    case '7z':
      // libarchive's 7-Zip level 0 still runs LZMA; storing is its own method.
      return [
        '--format',
        '7zip',
        '--options',
        level === 0 ? '7zip:compression=store' : `7zip:compression-level=${level}`,
      ];
    case 'tgz':
      return ['-z', '--options', `gzip:compression-level=${level}`];
    case 'tbz2':
      return ['-j', '--options', `bzip2:compression-level=${level}`];
    case 'txz':
      return ['-J', '--options', `xz:compression-level=${level}`];
  }
}
