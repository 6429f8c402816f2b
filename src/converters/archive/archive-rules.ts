/**
 * The rules every archive meets before anything in it is extracted, checked entry by entry as
 * the inspection reads the headers: how many entries, how many bytes they extract to (in all,
 * and against the archive's own size), and what each entry is allowed to be. The limits are the
 * zip-safety ones (office/zip-safety.ts), so every archive the service opens is held to the same.
 *
 * Entries that could write or point outside the extraction folder are refused, not dropped: a
 * path with '..' or an absolute path, a symlink or hard link whose target leaves the archive, an
 * entry beneath a symlink (extracting it would write through the link), and device files and
 * FIFOs. An archive holding them was made to attack whoever unpacks it (or is a system backup,
 * which a file converter has no business with); dropping them silently would hand back an
 * archive missing files that the user would not notice. The error names the entry.
 */
import { FileconvError } from '../../core/errors.js';
import { DEFAULT_ZIP_LIMITS, zipBombError } from '../../kit/zip-safety.js';
import { displayName, type TarEntry } from './tar-header-reader.js';

export interface ArchiveLimits {
  /** Most entries an archive may hold (folders and links count). Default 10,000. */
  maxEntries: number;
  /** Most bytes its entries may extract to, together (a hard link counts its target again). Default 1 GiB. */
  maxUncompressedBytes: number;
  /** Highest extracted/archive size ratio, once the extracted bytes pass `ratioFloorBytes`. Default 200. */
  maxRatio: number;
  /** Extracted totals below this are not held to `maxRatio`. Default 16 MiB. */
  ratioFloorBytes: number;
}

/**
 * The zip-safety limits. 10,000 entries is a large photo folder or a mid-sized source tree; what
 * has more (a node_modules, a mail spool) is not something to repack through a web service, and
 * each entry costs a file on disk while the archive is repacked. Solid formats (7z, tar.xz) have
 * no per-entry compressed size, so the ratio is the whole archive's.
 */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxEntries: DEFAULT_ZIP_LIMITS.maxEntries,
  maxUncompressedBytes: DEFAULT_ZIP_LIMITS.maxUncompressedBytes,
  maxRatio: DEFAULT_ZIP_LIMITS.maxRatio,
  ratioFloorBytes: DEFAULT_ZIP_LIMITS.ratioFloorBytes,
};

const TYPE_NAMES: Readonly<Record<string, string>> = {
  '3': 'a character device',
  '4': 'a block device',
  '6': 'a FIFO',
};
const KNOWN_TYPES = new Set(['0', '1', '2', '5', 'S']);

function unsafe(name: string, why: string, reason: string): FileconvError {
  const entry = displayName(name);
  return new FileconvError(
    'UNSAFE_INPUT',
    `The archive entry '${entry}' ${displayName(why)}; nothing was extracted.`,
    {
      details: { reason, entry },
    },
  );
}

/** Whether a name is absolute on some system: '/x', '\\x', 'C:x'. */
function isAbsolute(name: string): boolean {
  return /^[/\\]/.test(name) || /^[a-zA-Z]:/.test(name);
}

/** A name's components, '/' and '\' both separating (a zip from Windows may use either). */
function components(name: string): string[] {
  return name.split(/[/\\]+/).filter((part) => part !== '' && part !== '.');
}

/** Tracks one archive's entries against the limits and rules; throws at the first breach. */
export class ArchiveRules {
  private count = 0;
  private total = 0;
  private readonly fileSizes = new Map<string, number>();
  private readonly symlinks = new Set<string>();
  private readonly paths: string[] = [];

  constructor(
    private readonly limits: ArchiveLimits,
    private readonly archiveBytes: number,
  ) {}

  /** The entries' names (byte strings) in archive order, each once: what the repack adds back. */
  get names(): readonly string[] {
    return [...new Set(this.paths)];
  }

  /** Checks one entry as its header is read. */
  add(entry: TarEntry): void {
    this.count += 1;
    if (this.count > this.limits.maxEntries) {
      throw zipBombError(`more than ${this.limits.maxEntries} entries`, {
        maxEntries: this.limits.maxEntries,
      });
    }
    this.checkName(entry);
    const key = components(entry.name).join('/');
    if (entry.type === '2') this.checkSymlink(entry, key);
    let bytes = entry.type === '0' || entry.type === 'S' ? entry.size : 0;
    if (entry.type === '1') bytes = this.checkHardLink(entry);
    if (entry.type === '0' || entry.type === 'S') this.fileSizes.set(key, entry.size);
    this.total += bytes;
    if (this.total > this.limits.maxUncompressedBytes) {
      throw zipBombError(`it extracts to more than ${this.limits.maxUncompressedBytes} bytes`, {
        maxUncompressedBytes: this.limits.maxUncompressedBytes,
      });
    }
    // The total only grows, so a ratio past the limit now is past it at the end: refuse from the
    // header, before its bytes are decompressed.
    const ratio = this.total / Math.max(this.archiveBytes, 1);
    if (this.total > this.limits.ratioFloorBytes && ratio > this.limits.maxRatio) {
      throw zipBombError(`it extracts to ${Math.round(ratio)}x its size`, {
        ratio,
        maxRatio: this.limits.maxRatio,
      });
    }
    this.paths.push(entry.name);
  }

  /** The check that needs every entry: no entry lies beneath a symlink, whichever comes first. */
  finish(): void {
    if (this.symlinks.size === 0) return;
    for (const name of this.paths) {
      const parts = components(name);
      for (let depth = 1; depth < parts.length; depth++) {
        if (this.symlinks.has(parts.slice(0, depth).join('/'))) {
          throw unsafe(
            name,
            'lies beneath a symlink, so extracting it would write through the link',
            'beneath-symlink',
          );
        }
      }
    }
  }

  private checkName(entry: TarEntry): void {
    if (TYPE_NAMES[entry.type]) throw unsafe(entry.name, `is ${TYPE_NAMES[entry.type]}`, 'special-file');
    if (!KNOWN_TYPES.has(entry.type))
      throw unsafe(entry.name, `has an unknown type '${entry.type}'`, 'special-file');
    if (isAbsolute(entry.name)) throw unsafe(entry.name, 'has an absolute path', 'absolute-path');
    if (entry.name.split(/[/\\]/).includes('..'))
      throw unsafe(entry.name, "climbs out with '..'", 'path-traversal');
    if (components(entry.name).length === 0 && entry.type !== '5') {
      throw unsafe(entry.name, 'has no name', 'path-traversal');
    }
  }

  /** A symlink's target, resolved from the link's own folder, must stay inside the archive. */
  private checkSymlink(entry: TarEntry, key: string): void {
    const target = entry.linkName;
    if (target === '' || isAbsolute(target))
      throw unsafe(entry.name, `is a symlink to '${target}', outside the archive`, 'link-out');
    const resolved = components(entry.name).slice(0, -1);
    for (const part of components(target)) {
      if (part !== '..') resolved.push(part);
      else if (resolved.pop() === undefined) {
        throw unsafe(entry.name, `is a symlink to '${target}', outside the archive`, 'link-out');
      }
    }
    this.symlinks.add(key);
  }

  /** A hard link names another entry: inside the archive, and it extracts to that entry's bytes. */
  private checkHardLink(entry: TarEntry): number {
    const target = entry.linkName;
    if (target === '' || isAbsolute(target) || target.split(/[/\\]/).includes('..')) {
      throw unsafe(entry.name, `is a hard link to '${target}', outside the archive`, 'link-out');
    }
    return Math.max(entry.size, this.fileSizes.get(components(target).join('/')) ?? 0);
  }
}
