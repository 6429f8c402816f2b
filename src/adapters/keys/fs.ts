/**
 * File-system KeyStore: every key record in one JSON file, `<dir>/api-keys.json`, readable by
 * the owner only (mode 0600: it holds key hashes, and the directory is made 0700). A write goes
 * to a temp file beside it that is renamed into place, so a crash leaves the old file or the
 * new one, never half of each. Writes are serialised inside the process; the CLI and a running
 * server may share the file, since the server re-reads it whenever it changed on disk (that is
 * how a key made or revoked by `fileconv keys` takes effect without a restart). Two processes
 * writing at the very same moment can lose one write; key management is rare and manual.
 *
 * Deprecated in 0.2.0, removed in 0.3.0 (`fileconv/keys/fs`): use the SQLite or Redis key store.
 * It stays until then for the import of old data dirs.
 */

import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { FileconvError } from '../../core/errors.js';
import type { ApiKeyRecord, KeyStore } from '../../core/ports/index.js';
import { guardFsErrors } from '../fs-errors.js';
import { createKeyMutex } from '../key-mutex.js';
import { checkBoolean, checkNonEmptyString, checkOptionsObject } from '../validate-options.js';
import {
  assertStorableKeyRecord,
  duplicateKeyError,
  isKeyId,
  selectKeys,
  unknownKeyError,
} from './key-rules.js';

const ADAPTER = 'createFsKeyStore';
/** Name of the key file inside `dir`. */
export const KEY_FILE_NAME = 'api-keys.json';
const FILE_VERSION = 1;

export interface FsKeyStoreOptions {
  /** Directory of the key file; created (mode 0700) when missing. Required. */
  dir: string;
  /** fsync the file before it is renamed into place, so a power cut cannot leave it empty. Default true. */
  fsync?: boolean;
}

interface KeyFile {
  version: number;
  keys: ApiKeyRecord[];
}

/** The parsed file and the identity of the on-disk file it came from. */
interface Snapshot {
  stamp: string;
  keys: ApiKeyRecord[];
  /** Authentication looks keys up by hash on every keyed request. */
  byHash: Map<string, ApiKeyRecord>;
}

const EMPTY: Snapshot = { stamp: 'none', keys: [], byHash: new Map() };

function snapshotOf(stamp: string, keys: ApiKeyRecord[]): Snapshot {
  return { stamp, keys, byHash: new Map(keys.map((record) => [record.hash, record])) };
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function parseKeyFile(file: string, text: string): ApiKeyRecord[] {
  try {
    const parsed = JSON.parse(text) as Partial<KeyFile> | null;
    if (parsed?.version !== FILE_VERSION || !Array.isArray(parsed.keys)) {
      throw new Error(`expected { "version": ${FILE_VERSION}, "keys": [...] }`);
    }
    for (const record of parsed.keys) assertStorableKeyRecord(record);
    return parsed.keys;
  } catch (error) {
    // Never read a damaged file as "no keys": the next write would erase every key in it.
    const reason = error instanceof Error ? error.message : String(error);
    throw new FileconvError('INTERNAL', `The API key file ${file} is damaged: ${reason}`, {
      details: { path: file },
      cause: error,
    });
  }
}

function guarded<T>(action: string, work: () => Promise<T>): Promise<T> {
  return guardFsErrors('Key store', action, work);
}

/**
 * @deprecated Removed in 0.3.0. Use the SQLite key store (`createSqliteKeyStore` from
 * `fileconv/keys/sqlite`) or Redis (`fileconv/keys/redis`); `fileconv serve` moves an old data
 * dir's `keys/api-keys.json` into its database on its first start (until 0.3.0).
 */
export function createFsKeyStore(options: FsKeyStoreOptions): KeyStore {
  const given = checkOptionsObject(ADAPTER, options);
  const dir = path.resolve(checkNonEmptyString(ADAPTER, 'dir', given.dir));
  const fsync = checkBoolean(ADAPTER, 'fsync', given.fsync, true);
  const file = path.join(dir, KEY_FILE_NAME);
  const withLock = createKeyMutex();
  let cache: Snapshot | undefined;

  /**
   * The records on disk. The file is re-parsed only when it changed: every write renames a new
   * file into place, so a new inode (or size or mtime) means new content. The stamp comes from
   * the open handle, so it always describes the bytes read.
   */
  async function load(): Promise<Snapshot> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return EMPTY;
      throw error;
    }
    try {
      const info = await handle.stat();
      const stamp = `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
      if (cache?.stamp !== stamp)
        cache = snapshotOf(stamp, parseKeyFile(file, await handle.readFile('utf8')));
      return cache;
    } finally {
      await handle.close();
    }
  }

  async function save(keys: ApiKeyRecord[]): Promise<void> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = path.join(dir, `.${KEY_FILE_NAME}.${randomUUID()}.tmp`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      try {
        await handle.chmod(0o600); // whatever the umask
        await handle.writeFile(
          `${JSON.stringify({ version: FILE_VERSION, keys } satisfies KeyFile, null, 2)}\n`,
        );
        if (fsync) await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    cache = undefined;
  }

  /** Read, change and write the file as one step inside this process. */
  const update = <T>(change: (keys: ApiKeyRecord[]) => { keys?: ApiKeyRecord[]; result: T }) =>
    withLock(file, async () => {
      const { keys, result } = change(structuredClone((await load()).keys));
      if (keys) await save(keys);
      return result;
    });

  return {
    create: (record) =>
      guarded('create', async () => {
        assertStorableKeyRecord(record);
        await update((keys) => {
          if (keys.some((stored) => stored.id === record.id)) throw duplicateKeyError(record, 'id');
          if (keys.some((stored) => stored.hash === record.hash)) throw duplicateKeyError(record, 'hash');
          return { keys: [...keys, structuredClone(record)], result: undefined };
        });
      }),
    findByHash: (hash) =>
      guarded('findByHash', async () => {
        const record = typeof hash === 'string' ? (await load()).byHash.get(hash) : undefined;
        return record ? structuredClone(record) : null;
      }),
    list: (filter) =>
      guarded('list', async () =>
        selectKeys((await load()).keys, filter).map((record) => structuredClone(record)),
      ),
    revoke: (id, revokedAt) =>
      guarded('revoke', () =>
        update((keys) => {
          const record = isKeyId(id) ? keys.find((stored) => stored.id === id) : undefined;
          if (!record) throw unknownKeyError(id);
          if (record.revokedAt !== null) return { result: record };
          record.revokedAt = revokedAt;
          assertStorableKeyRecord(record);
          return { keys, result: structuredClone(record) };
        }),
      ),
  };
}
