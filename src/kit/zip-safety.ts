/**
 * Decompression-bomb and sanity checks for zip-based inputs (docx xlsx pptx odt ods odp epub),
 * run before any library opens them: mammoth, exceljs (JSZip) and LibreOffice inflate entries
 * into memory or onto disk without a bound of their own.
 *
 * The check reads the central directory (entry count, declared sizes, compression ratios) and
 * then inflates every entry into a counting sink, so a header that lies about its size is caught
 * too (yauzl's validateEntrySizes fails the stream once more bytes come out than declared).
 * Nothing is stored; the cost is one inflate pass, a fraction of what the converters spend.
 *
 * A small package (most office documents) is read whole and its small entries inflated in one
 * synchronous call each, bounded by the declared size: a zlib stream and a file read per entry
 * cost ~20 ms of CPU for a 5 KB docx with ten parts, the one-call path ~1.5 ms (measured over
 * 200 checks; the LibreOffice pool converts that docx in ~150 ms, so it showed per document).
 */
import { open as openFile, readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { inflateRawSync } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { z } from 'zod';
import { abortError, throwIfAborted } from '../core/abort.js';
import { FileconvError } from '../core/errors.js';
import { isEncryptedOoxml } from '../core/formats/detect-containers.js';

export interface ZipLimits {
  /** Most entries an archive may hold. */
  maxEntries: number;
  /** Most bytes all entries may inflate to, together. */
  maxUncompressedBytes: number;
  /** Highest inflated/compressed ratio of one entry, once it inflates past `ratioFloorBytes`. */
  maxRatio: number;
  /** Entries smaller than this when inflated are not held to `maxRatio` (tiny XML parts compress well). */
  ratioFloorBytes: number;
  /**
   * Most bytes one XML part (`.xml`, `.rels`) may inflate to. For libraries that parse a part
   * whole into a tree (mammoth: about 15 bytes of heap per byte of XML), this refuses from the
   * declared size, before anything is inflated, what would otherwise be found at the heap cap.
   * Default: no cap (exceljs streams its sheets).
   */
  maxXmlEntryBytes: number;
}

/**
 * Office XML compresses 5-30x, and repetitive sheets up to ~100x; bombs reach 1000x and more. A
 * 1,000,000-row xlsx inflates to roughly 300 MB, inside the 1 GiB total.
 */
export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 10_000,
  maxUncompressedBytes: 1024 * 1024 * 1024,
  maxRatio: 200,
  ratioFloorBytes: 16 * 1024 * 1024,
  maxXmlEntryBytes: Number.POSITIVE_INFINITY,
};

export const zipLimitsSchema = z.strictObject({
  maxEntries: z.int().min(1).optional(),
  maxUncompressedBytes: z.int().min(1).optional(),
  maxRatio: z.number().min(1).optional(),
  ratioFloorBytes: z.int().min(0).optional(),
  maxXmlEntryBytes: z.int().min(1).optional(),
});

const CFB_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const HEAD_BYTES = 64 * 1024;
/** Packages up to this size are read into memory whole: no file read per entry. */
const IN_MEMORY_BYTES = 8 * 1024 * 1024;
/**
 * A deflated entry declaring at most this many bytes is inflated in one synchronous call, which
 * holds the event loop for about a millisecond per MiB; larger entries, and everything after
 * `SYNC_TOTAL_BYTES` of one package, inflate through a stream on zlib's thread pool as before.
 */
const SYNC_ENTRY_BYTES = 1024 * 1024;
const SYNC_TOTAL_BYTES = 8 * 1024 * 1024;

/** INPUT_LIMIT_EXCEEDED with details.reason 'zip-bomb' (also for the Chromium converter's zipped pages). */
export function zipBombError(message: string, details: Record<string, unknown>): FileconvError {
  return new FileconvError(
    'INPUT_LIMIT_EXCEEDED',
    `The archive looks like a decompression bomb: ${message}`,
    {
      details: { reason: 'zip-bomb', ...details },
    },
  );
}

/** CORRUPT_INPUT for a zip yauzl cannot read. */
export function corruptZipError(cause: unknown): FileconvError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new FileconvError('CORRUPT_INPUT', `The file is not a readable zip package: ${message}`, {
    cause,
    details: { reason: 'zip' },
  });
}

/** An encrypted OOXML file is a compound file, not a zip: PASSWORD_PROTECTED, not "corrupt". */
function refuseCompoundFile(bytes: Buffer): void {
  if (!bytes.subarray(0, CFB_SIGNATURE.length).equals(CFB_SIGNATURE)) return;
  if (isEncryptedOoxml(bytes)) {
    throw new FileconvError(
      'PASSWORD_PROTECTED',
      'The file is password-protected (an encrypted Office document).',
    );
  }
  throw new FileconvError('CORRUPT_INPUT', 'The file is an OLE compound file, not a zip package.', {
    details: { reason: 'zip' },
  });
}

/** The file whole when it is small, else its first HEAD_BYTES (enough to tell a compound file). */
async function readStart(path: string): Promise<{ bytes: Buffer; whole: boolean }> {
  const handle = await openFile(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size <= IN_MEMORY_BYTES) return { bytes: await readFile(handle), whole: true };
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
    return { bytes: head.subarray(0, bytesRead), whole: false };
  } finally {
    await handle.close();
  }
}

function openZip(path: string, whole: Buffer | undefined): Promise<ZipFile> {
  const options = { lazyEntries: true, autoClose: true, validateEntrySizes: true, strictFileNames: false };
  return new Promise((resolve, reject) => {
    const opened = (error: Error | null, zip: ZipFile) =>
      error ? reject(corruptZipError(error)) : resolve(zip);
    if (whole) yauzl.fromBuffer(whole, options, opened);
    else yauzl.open(path, options, opened);
  });
}

export function openEntry(zip: ZipFile, entry: Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => (error ? reject(corruptZipError(error)) : resolve(stream)));
  });
}

/**
 * Declared sizes first: most bombs are honest about what they inflate to. `count` and
 * `declaredTotal` are the entries and inflated bytes seen so far, this one included.
 */
export function checkDeclared(entry: Entry, count: number, declaredTotal: number, limits: ZipLimits): void {
  if (count > limits.maxEntries) {
    throw zipBombError(`more than ${limits.maxEntries} entries`, { maxEntries: limits.maxEntries });
  }
  if (declaredTotal > limits.maxUncompressedBytes) {
    throw zipBombError(`it inflates to more than ${limits.maxUncompressedBytes} bytes`, {
      maxUncompressedBytes: limits.maxUncompressedBytes,
    });
  }
  const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
  if (entry.uncompressedSize > limits.ratioFloorBytes && ratio > limits.maxRatio) {
    throw zipBombError(`entry '${entry.fileName}' inflates ${Math.round(ratio)}x`, {
      entry: entry.fileName,
      ratio,
      maxRatio: limits.maxRatio,
    });
  }
  if (/\.(?:xml|rels)$/i.test(entry.fileName) && entry.uncompressedSize > limits.maxXmlEntryBytes) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `The document part '${entry.fileName}' inflates to ${entry.uncompressedSize} bytes; at most ${limits.maxXmlEntryBytes} are read`,
      {
        details: {
          reason: 'part-too-large',
          entry: entry.fileName,
          maxXmlEntryBytes: limits.maxXmlEntryBytes,
        },
      },
    );
  }
  if (entry.isEncrypted()) {
    throw new FileconvError('PASSWORD_PROTECTED', `The archive entry '${entry.fileName}' is encrypted.`);
  }
}

/** Inflates one entry into a sink that only counts, so a lying header is caught as it inflates. */
async function inflateEntry(zip: ZipFile, entry: Entry, signal: AbortSignal | undefined): Promise<void> {
  const stream = await openEntry(zip, entry);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  try {
    await pipeline(stream, sink, ...(signal ? [{ signal }] : []));
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    const message = error instanceof Error ? error.message : String(error);
    // yauzl: "too many bytes in the stream. expected N. got at least M"
    if (/too many bytes/.test(message))
      throw zipBombError(`entry '${entry.fileName}' inflates beyond its declared size`, {
        entry: entry.fileName,
      });
    throw corruptZipError(error);
  }
}

function openRawEntry(zip: ZipFile, entry: Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, { decodeFileData: false }, (error, stream) =>
      error ? reject(corruptZipError(error)) : resolve(stream),
    );
  });
}

/**
 * Inflates one small deflated entry in one call, stopping one byte past its declared size: the
 * same verdicts as inflateEntry (more bytes than declared: a bomb; fewer, or a broken stream:
 * corrupt), without a zlib stream of its own.
 */
async function inflateEntryAtOnce(zip: ZipFile, entry: Entry): Promise<void> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of await openRawEntry(zip, entry)) chunks.push(chunk as Buffer);
  } catch (error) {
    throw error instanceof FileconvError ? error : corruptZipError(error);
  }
  const bomb = () =>
    zipBombError(`entry '${entry.fileName}' inflates beyond its declared size`, { entry: entry.fileName });
  let inflated: Buffer;
  try {
    inflated = inflateRawSync(Buffer.concat(chunks), { maxOutputLength: entry.uncompressedSize + 1 });
  } catch (error) {
    // zlib stopped at maxOutputLength: more bytes than declared.
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw bomb();
    throw corruptZipError(error);
  }
  if (inflated.length > entry.uncompressedSize) throw bomb();
  if (inflated.length < entry.uncompressedSize) {
    throw corruptZipError(
      new Error(
        `not enough bytes in the stream. expected ${entry.uncompressedSize}. got only ${inflated.length}`,
      ),
    );
  }
}

/**
 * Checks that `path` is a zip package within `limits`: INPUT_LIMIT_EXCEEDED (details.reason
 * 'zip-bomb') for too many entries or too many inflated bytes, CORRUPT_INPUT for a broken or
 * truncated zip, PASSWORD_PROTECTED for an encrypted Office document or entry, CANCELED on abort.
 * Resolves with the entries' names, for a caller that needs the package's parts without reading
 * its directory again.
 */
export async function assertSafeZip(
  path: string,
  limits: Partial<ZipLimits> = {},
  signal?: AbortSignal,
): Promise<string[]> {
  const bounds: ZipLimits = { ...DEFAULT_ZIP_LIMITS, ...limits };
  if (signal) throwIfAborted(signal);
  const start = await readStart(path);
  refuseCompoundFile(start.bytes);
  const zip = await openZip(path, start.whole ? start.bytes : undefined);
  let inflatedAtOnce = 0;
  const names: string[] = [];
  try {
    if (zip.entryCount > bounds.maxEntries) {
      throw zipBombError(`more than ${bounds.maxEntries} entries`, { maxEntries: bounds.maxEntries });
    }
    await new Promise<void>((resolve, reject) => {
      let count = 0;
      let declaredTotal = 0;
      zip.on('error', (error: unknown) => reject(corruptZipError(error)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: Entry) => {
        names.push(entry.fileName);
        count += 1;
        declaredTotal += entry.uncompressedSize;
        const next = async () => {
          if (signal) throwIfAborted(signal);
          checkDeclared(entry, count, declaredTotal, bounds);
          // Directories have no data; everything else is inflated and counted, a small deflated
          // entry of a package read whole in one call.
          const atOnce =
            start.whole &&
            entry.compressionMethod === 8 &&
            entry.uncompressedSize <= SYNC_ENTRY_BYTES &&
            inflatedAtOnce + entry.uncompressedSize <= SYNC_TOTAL_BYTES;
          if (entry.fileName.endsWith('/')) {
            // A directory: nothing to inflate.
          } else if (atOnce) {
            inflatedAtOnce += entry.uncompressedSize;
            await inflateEntryAtOnce(zip, entry);
          } else await inflateEntry(zip, entry, signal);
          zip.readEntry();
        };
        next().catch(reject);
      });
      zip.readEntry();
    });
    return names;
  } finally {
    // autoClose has already closed a file after the last entry; close() again would throw.
    if (zip.isOpen) zip.close();
  }
}
