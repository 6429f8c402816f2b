/**
 * The archive converter: repacks zip, tar, tar.gz, tar.bz2, tar.xz, 7z and rar (read only) into
 * each other with libarchive's bsdtar (BSD-2-Clause, Debian's libarchive-tools).
 *
 * Every input goes through the same three steps before anything is written where it stays:
 * 1. its bytes must be the declared format (archive-signature.ts: bsdtar reads any format, and
 *    one of them reads files off this machine's disk);
 * 2. its headers are read and held to the zip-bomb and path rules (archive-inspect.ts,
 *    archive-rules.ts) without extracting anything;
 * 3. it is extracted into a fresh folder under ctx.tempDir, with bsdtar's own guards on (it
 *    refuses '..' and absolute paths and never writes through a symlink unless told to) and
 *    without owners, set-id bits, ACLs, extended attributes or file flags (an immutable flag
 *    would make the folder undeletable), then packed again from there, entries in their original
 *    order. Packing from disk, not from the archive stream, is what lets a zip or 7z hold a tar's
 *    hard links: each becomes a copy of its file.
 * Names, bytes, modes, times and links within the archive survive; owners do not (they name
 * accounts on someone else's machine). The scratch folder is removed on success and failure alike.
 */
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { stderrTail, toolsAvailability } from '../../kit/command-tools.js';
import { edgeGuard } from '../../kit/converter-kit.js';
import { placeFile } from '../../kit/place-file.js';
import { ARCHIVE_EDGES, ARCHIVE_READS, type ArchiveRead, type ArchiveWrite } from './archive-edges.js';
import { inspectArchive, unreadableArchive } from './archive-inspect.js';
import { type ArchiveOptions, formatArguments } from './archive-options.js';
import { runArchiveTool } from './archive-process.js';
import { type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS } from './archive-rules.js';
import { assertArchiveContent } from './archive-signature.js';
import { ARCHIVE } from './registration.js';

export { ARCHIVE_EDGES } from './archive-edges.js';
export { type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS } from './archive-rules.js';
export { ARCHIVE_REGISTRATION } from './registration.js';

export interface ArchiveConverterOptions {
  /** The zip-bomb limits every input is held to; unset members keep DEFAULT_ARCHIVE_LIMITS. */
  limits?: Partial<ArchiveLimits>;
}

const factoryOptionsSchema = z.strictObject({
  limits: z
    .strictObject({
      maxEntries: z.int().min(1).optional(),
      maxUncompressedBytes: z.int().min(1).optional(),
      maxRatio: z.number().min(1).optional(),
      ratioFloorBytes: z.int().min(0).optional(),
    })
    .optional(),
});

/**
 * bsdtar -x flags: owners and set-id bits are not restored (the service runs as whoever it runs
 * as, root in a container), nor ACLs, extended attributes (a security.capability attribute would
 * grant a binary privileges), file flags or macOS metadata. '..', absolute paths and writes
 * through symlinks stay refused: that is bsdtar's default without -P.
 */
const EXTRACT_FLAGS = [
  '--no-same-owner',
  '--no-same-permissions',
  '--no-acls',
  '--no-xattrs',
  '--no-fflags',
  '--no-mac-metadata',
];

const isRead = (format: FormatName): format is ArchiveRead =>
  (ARCHIVE_READS as readonly string[]).includes(format);

/**
 * Removes the scratch folder even when an archive left a read-only folder in it (which a
 * non-root service cannot empty): folders are made writable first, links never followed.
 */
async function removeTree(dir: string): Promise<void> {
  const makeWritable = async (folder: string): Promise<void> => {
    await chmod(folder, 0o700).catch(() => undefined);
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isDirectory()) await makeWritable(join(folder, entry.name));
  };
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    await makeWritable(dir);
    await rm(dir, { recursive: true, force: true });
  }
}

async function repack(
  ctx: ConvertContext<ArchiveOptions>,
  from: ArchiveRead,
  to: ArchiveWrite,
  limits: ArchiveLimits,
): Promise<void> {
  const { options } = ctx;
  await assertArchiveContent(ctx.inputPath, from, ctx.signal);
  const names = await inspectArchive(ctx.inputPath, limits, ctx.signal);
  ctx.onProgress(0.3);
  const scratch = join(ctx.tempDir, `archive-${randomUUID()}`);
  const files = join(scratch, 'files');
  const list = join(scratch, 'entries');
  const packed = join(scratch, `packed.${to}`);
  const shownAs = { [ctx.inputPath]: 'the input', [files]: 'the extracted folder', [packed]: 'the output' };
  try {
    await mkdir(files, { recursive: true });
    const extracted = await runArchiveTool(
      'bsdtar',
      ['-x', '-f', ctx.inputPath, '-C', files, ...EXTRACT_FLAGS],
      {
        signal: ctx.signal,
        names: shownAs,
      },
    );
    if (extracted.code !== 0) throw unreadableArchive(extracted.stderr);
    ctx.onProgress(0.6);
    // NUL-separated, one entry each, no recursion: the archive's own entries in its order.
    await writeFile(list, Buffer.from(names.map((name) => `${name}\0`).join(''), 'latin1'));
    const args = ['-c', '-f', packed, ...formatArguments(to, options), '--no-recursion', '--null'];
    const written = await runArchiveTool('bsdtar', [...args, '-C', files, '-T', list], {
      signal: ctx.signal,
      names: shownAs,
    });
    if (written.code !== 0) {
      throw new FileconvError(
        'CONVERSION_FAILED',
        `bsdtar could not write the ${to} archive: ${stderrTail(written.stderr)}`,
        { details: { tool: 'bsdtar', exitCode: written.code, stderr: stderrTail(written.stderr) } },
      );
    }
    throwIfAborted(ctx.signal);
    await placeFile(packed, ctx.outputPath);
  } finally {
    await removeTree(scratch);
  }
}

/** Creates the archive converter; a bad factory option throws INVALID_OPTIONS. */
export function createArchiveConverter(options: ArchiveConverterOptions = {}): Converter<ArchiveOptions> {
  const checked = parseOptions(factoryOptionsSchema, options, 'createArchiveConverter');
  // Members given as undefined keep their defaults.
  const given = Object.entries(checked.limits ?? {}).filter(([, value]) => value !== undefined);
  const limits: ArchiveLimits = { ...DEFAULT_ARCHIVE_LIMITS, ...Object.fromEntries(given) };
  const guard = edgeGuard('bsdtar', ARCHIVE_EDGES);
  return {
    ...ARCHIVE,
    available: (): Promise<Availability> => toolsAvailability(['bsdtar', 'bsdcat']),
    async convert(ctx): Promise<ConvertResult> {
      guard(ctx.from, ctx.to);
      if (!isRead(ctx.from)) throw new FileconvError('UNSUPPORTED_CONVERSION', `Cannot read '${ctx.from}'`);
      const to = ctx.to as ArchiveWrite;
      throwIfAborted(ctx.signal);
      ctx.onProgress(0);
      await repack(ctx, ctx.from, to, limits);
      ctx.onProgress(1);
      return {};
    },
  };
}
