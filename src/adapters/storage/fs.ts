/**
 * File-system Storage: each object is a plain file under `dir`, at the path its key names, so
 * converters can read it in place (`localPath`). A put streams into a temp file on the same
 * file system and renames it into place, so an object appears whole or not at all, and a
 * body over `maxBytes` or a failing stream leaves nothing behind. The content type, when
 * given, is kept in a mirror tree of small JSON files. Safe for one process per `dir`:
 * commits are serialised per key inside the process, not across processes.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileconvError } from '../../core/errors.js';
import { fileTooLarge } from '../../core/file-size.js';
import type { ByteRange, PutOptions, Storage, StoredObjectInfo } from '../../core/ports/index.js';
import { noSpaceError } from '../../kit/local-files.js';
import { createKeyMutex } from '../key-mutex.js';
import { checkBoolean, checkNonEmptyString, checkOptionsObject, invalidOption } from '../validate-options.js';
import { checkByteRange, resolveByteRange } from './byte-range.js';
import { createFsResumable } from './fs-resumable.js';
import { ByteLimitStream, checkContentType, checkMaxBytes } from './limit-stream.js';
import { splitStorageKey } from './storage-key.js';

const ADAPTER = 'createFsStorage';
/** Keys may not start with this segment prefix: the adapter keeps its own bookkeeping there. */
const RESERVED_PREFIX = '.fileconv';
const TEMP_DIR = '.fileconv-tmp';
const META_DIR = '.fileconv-meta';
const DAY_MS = 24 * 60 * 60 * 1000;

export interface FsStorageOptions {
  /** Root directory of the objects; created when missing. Required. */
  dir: string;
  /** fsync each object before it is renamed into place, so a power cut cannot leave an empty file. Default true. */
  fsync?: boolean;
  /** Temp files of interrupted puts older than this (ms) are removed on the first put. Default 24 hours. */
  staleTempAfterMs?: number;
}

export type FsStorage = Storage & Required<Pick<Storage, 'localPath' | 'putFile' | 'resumable'>>;

interface KeyPaths {
  data: string;
  meta: string;
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function notFound(key: string): FileconvError {
  return new FileconvError('NOT_FOUND', `No object under "${key}".`, { details: { key } });
}

/** One file system error mapped to the error table; ours pass through. */
function storageError(error: unknown, key: string, action: string): FileconvError {
  if (error instanceof FileconvError) return error;
  const code = errnoCode(error);
  // A key that is a directory of other keys (or under a key that is a file) cannot be stored.
  if (code === 'ENOTDIR' || code === 'EISDIR' || code === 'EEXIST' || code === 'ENOTEMPTY') {
    return new FileconvError('INVALID_REQUEST', `The key "${key}" collides with another key's path.`, {
      details: { key },
      cause: error,
    });
  }
  // A full disk (or quota) is the service's fault and passes: NO_SPACE, 507 with Retry-After.
  const full = noSpaceError(error, `${action} "${key}" failed`);
  if (full) return full;
  const message = error instanceof Error ? error.message : String(error);
  return new FileconvError('INTERNAL', `${action} "${key}" failed: ${message}`, {
    details: { key },
    cause: error,
  });
}

/** Removes a file; a missing file (or a directory in its place) is not an error. */
async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    const code = errnoCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR' && code !== 'EPERM') throw error;
  }
}

/** Removes now-empty parent directories up to (not including) `root`, so deleted keys leave no husks. */
async function pruneEmptyDirs(from: string, root: string): Promise<void> {
  for (let dir = from; dir.startsWith(root + path.sep); dir = path.dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return; // not empty (or already gone): everything above is not empty either
    }
  }
}

/**
 * Renames `temp` to `target`, creating parents. A concurrent delete may prune a parent we just
 * created, so a vanished parent is retried a few times.
 */
async function moveIntoPlace(temp: string, target: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await rename(temp, target);
      return;
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT' || attempt >= 3) throw error;
    }
  }
}

export function createFsStorage(options: FsStorageOptions): FsStorage {
  const given = checkOptionsObject(ADAPTER, options);
  const root = path.resolve(checkNonEmptyString(ADAPTER, 'dir', given.dir));
  const fsync = checkBoolean(ADAPTER, 'fsync', given.fsync, true);
  const staleTempAfterMs = given.staleTempAfterMs ?? DAY_MS;
  if (typeof staleTempAfterMs !== 'number' || !(staleTempAfterMs >= 0)) {
    throw invalidOption(
      ADAPTER,
      'staleTempAfterMs',
      'a non-negative number of milliseconds',
      staleTempAfterMs,
    );
  }
  const tempRoot = path.join(root, TEMP_DIR);
  const metaRoot = path.join(root, META_DIR);
  const withKeyLock = createKeyMutex();
  let prepared: Promise<void> | undefined;

  function resolveKey(key: string): KeyPaths {
    const segments = splitStorageKey(key);
    if (segments[0]!.startsWith(RESERVED_PREFIX)) {
      throw new FileconvError('INVALID_REQUEST', `Invalid storage key: "${RESERVED_PREFIX}*" is reserved.`, {
        details: { key },
      });
    }
    const data = path.resolve(root, ...segments);
    // Belt and braces: the key rules already exclude every escape, but never trust one check.
    if (!data.startsWith(root + path.sep)) {
      throw new FileconvError('INVALID_REQUEST', 'Invalid storage key: it leaves the storage directory.', {
        details: { key },
      });
    }
    // The mirror tree uses the same relative path, so it can only collide where the data tree does.
    return { data, meta: path.join(metaRoot, path.relative(root, data)) };
  }

  /** Creates the temp dir and sweeps temp files an earlier process left behind. */
  function prepare(): Promise<void> {
    prepared ??= (async () => {
      await mkdir(tempRoot, { recursive: true });
      const cutoff = Date.now() - staleTempAfterMs;
      for (const name of await readdir(tempRoot)) {
        const file = path.join(tempRoot, name);
        const stats = await stat(file).catch(() => null);
        if (stats && stats.mtimeMs < cutoff) await rm(file, { force: true });
      }
    })().catch((error) => {
      prepared = undefined; // let the next put try again
      throw error;
    });
    return prepared;
  }

  async function readContentType(metaPath: string): Promise<string | undefined> {
    try {
      const parsed = JSON.parse(await readFile(metaPath, 'utf8')) as { contentType?: unknown };
      return typeof parsed.contentType === 'string' ? parsed.contentType : undefined;
    } catch {
      return undefined; // no metadata (or unreadable): the type is simply not known
    }
  }

  /** Moves a local file on this file system in as `key`, with its content type (or none). */
  async function place(
    key: string,
    file: string,
    contentType: string | undefined,
  ): Promise<StoredObjectInfo> {
    const paths = resolveKey(key);
    const tempMeta = path.join(tempRoot, `${randomUUID()}.meta`);
    try {
      await prepare();
      const { size } = await stat(file);
      if (contentType !== undefined)
        await writeFile(tempMeta, JSON.stringify({ contentType }), { flag: 'wx' });
      await withKeyLock(key, async () => {
        await moveIntoPlace(file, paths.data);
        if (contentType !== undefined) await moveIntoPlace(tempMeta, paths.meta);
        else await unlinkIfPresent(paths.meta);
      });
      return contentType === undefined ? { size } : { size, contentType };
    } catch (error) {
      await rm(tempMeta, { force: true }).catch(() => {});
      throw storageError(error, key, 'Storing');
    }
  }

  return {
    resumable: createFsResumable({ root, fsync, place, checkKey: (key) => void resolveKey(key) }),

    async put(
      key: string,
      body: Readable | Uint8Array,
      putOptions: PutOptions = {},
    ): Promise<StoredObjectInfo> {
      const paths = resolveKey(key);
      const maxBytes = checkMaxBytes(putOptions.maxBytes);
      const contentType = checkContentType(putOptions.contentType);
      if (body instanceof Uint8Array && maxBytes !== undefined && body.byteLength > maxBytes) {
        throw fileTooLarge({ limit: maxBytes, size: body.byteLength });
      }
      const source = body instanceof Uint8Array ? Readable.from([Buffer.from(body)]) : body;
      const tempData = path.join(tempRoot, `${randomUUID()}.data`);
      const tempMeta = path.join(tempRoot, `${randomUUID()}.meta`);
      let sink: WriteStream | undefined;
      try {
        await prepare();
        const limit = new ByteLimitStream(maxBytes);
        // `flush`: fsync'd through the stream's own descriptor before it finishes, rather than
        // opened again for it afterwards.
        sink = createWriteStream(tempData, { flags: 'wx', flush: fsync });
        // pipeline destroys every stream on failure, the caller's source included.
        await pipeline(source, limit, sink);
        if (contentType !== undefined)
          await writeFile(tempMeta, JSON.stringify({ contentType }), { flag: 'wx' });
        await withKeyLock(key, async () => {
          await moveIntoPlace(tempData, paths.data);
          if (contentType !== undefined) await moveIntoPlace(tempMeta, paths.meta);
          else await unlinkIfPresent(paths.meta);
        });
        return contentType === undefined ? { size: limit.bytes } : { size: limit.bytes, contentType };
      } catch (error) {
        if (!source.destroyed) source.destroy();
        // A write stream destroyed before its file was even opened still opens it, then closes:
        // removing the temp file before that 'close' would leave it behind.
        if (sink && !sink.closed) await new Promise<void>((resolve) => sink?.once('close', () => resolve()));
        await Promise.all([rm(tempData, { force: true }), rm(tempMeta, { force: true })]).catch(() => {});
        throw storageError(error, key, 'Storing');
      }
    },

    async putFile(key: string, file: string, fileOptions: { contentType?: string } = {}) {
      const contentType = checkContentType(fileOptions.contentType);
      const paths = resolveKey(key);
      const tempMeta = path.join(tempRoot, `${randomUUID()}.meta`);
      try {
        await prepare();
        // The file was written by a converter that never synced it: make it durable before it
        // becomes the object, as put() does for streamed bytes.
        const handle = await open(file, 'r+');
        let size: number;
        try {
          if (fsync) await handle.sync();
          size = (await handle.stat()).size;
        } finally {
          await handle.close();
        }
        if (contentType !== undefined)
          await writeFile(tempMeta, JSON.stringify({ contentType }), { flag: 'wx' });
        await withKeyLock(key, async () => {
          try {
            await moveIntoPlace(file, paths.data);
          } catch (error) {
            // Another file system (a temp dir elsewhere): a copy, as put() would make.
            if (errnoCode(error) !== 'EXDEV') throw error;
            const copy = path.join(tempRoot, `${randomUUID()}.data`);
            await pipeline(createReadStream(file), createWriteStream(copy, { flags: 'wx', flush: fsync }));
            await moveIntoPlace(copy, paths.data);
            await rm(file, { force: true });
          }
          if (contentType !== undefined) await moveIntoPlace(tempMeta, paths.meta);
          else await unlinkIfPresent(paths.meta);
        });
        return contentType === undefined ? { size } : { size, contentType };
      } catch (error) {
        await rm(tempMeta, { force: true }).catch(() => {});
        throw storageError(error, key, 'Storing');
      }
    },

    async get(key: string, range?: ByteRange): Promise<Readable> {
      const paths = resolveKey(key);
      checkByteRange(key, range);
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(paths.data, 'r');
      } catch (error) {
        const code = errnoCode(error);
        if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') throw notFound(key);
        throw storageError(error, key, 'Reading');
      }
      try {
        // Size from the open handle: a concurrent overwrite renames a new file over the path,
        // while this handle keeps reading the object as it was when opened.
        const stats = await handle.stat();
        if (!stats.isFile()) throw notFound(key);
        const span = resolveByteRange(key, range, stats.size);
        return handle.createReadStream(span ? { start: span.start, end: span.end } : {});
      } catch (error) {
        await handle.close();
        throw storageError(error, key, 'Reading');
      }
    },

    async head(key: string): Promise<StoredObjectInfo | null> {
      const paths = resolveKey(key);
      const stats = await stat(paths.data).catch((error) => {
        const code = errnoCode(error);
        if (code === 'ENOENT' || code === 'ENOTDIR') return null;
        throw storageError(error, key, 'Inspecting');
      });
      if (!stats?.isFile()) return null;
      const contentType = await readContentType(paths.meta);
      return contentType === undefined ? { size: stats.size } : { size: stats.size, contentType };
    },

    async delete(key: string): Promise<void> {
      const paths = resolveKey(key);
      try {
        await withKeyLock(key, async () => {
          await unlinkIfPresent(paths.data);
          await unlinkIfPresent(paths.meta);
          await pruneEmptyDirs(path.dirname(paths.data), root);
          await pruneEmptyDirs(path.dirname(paths.meta), metaRoot);
        });
      } catch (error) {
        throw storageError(error, key, 'Deleting');
      }
    },

    async localPath(key: string): Promise<string | null> {
      const paths = resolveKey(key);
      const stats = await stat(paths.data).catch(() => null);
      return stats?.isFile() ? paths.data : null;
    },
  };
}
