/**
 * File-system JobStore: one JSON file per record (`<dir>/jobs/<id>.json`, `<dir>/files/<id>.json`),
 * so state survives a restart and a person can read it. Every write goes to a temp file in the
 * same directory and is renamed into place, so a crash leaves the old record or the new one,
 * never half of each. Updates of one id are serialised inside the process, which makes the
 * version check exact for a single process per `dir` (the one-machine setup); several
 * processes writing the same `dir` need a shared store such as Redis instead.
 *
 * Deprecated in 0.2.0, removed in 0.3.0 (`fileconv/jobs/fs`): the SQLite store does the same with
 * crash-safe transactions. It stays until then for the import of old data dirs.
 */

import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { FileconvError } from '../../core/errors.js';
import type { FileRecord, Job } from '../../core/jobs/types.js';
import type { JobStore } from '../../core/ports/index.js';
import { guardFsErrors } from '../fs-errors.js';
import { createKeyMutex } from '../key-mutex.js';
import { checkBoolean, checkFunction, checkNonEmptyString, checkOptionsObject } from '../validate-options.js';
import {
  assertNextVersion,
  assertStorableRecord,
  checkListFilter,
  duplicateError,
  isStorableId,
  type ListJobsFilter,
  notFoundError,
  type RecordKind,
  selectExpiredFiles,
  selectJobs,
  type VersionedRecord,
} from './record-rules.js';

const ADAPTER = 'createFsJobStore';
/** Files read at once by listJobs: enough for speed, few enough to stay clear of EMFILE. */
const READ_BATCH = 64;

export interface FsJobStoreWarning {
  message: string;
  /** The file the warning is about. */
  path: string;
  cause?: unknown;
}

export interface FsJobStoreOptions {
  /** Directory of the record files; created when missing. Required. */
  dir: string;
  /** fsync each record before it is renamed into place, so a power cut cannot leave an empty file. Default true. */
  fsync?: boolean;
  /** Called for a record file that cannot be read (it is skipped). Default: `process.emitWarning`. */
  onWarning?: (warning: FsJobStoreWarning) => void;
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function defaultWarning(warning: FsJobStoreWarning): void {
  process.emitWarning(`${warning.message} (${warning.path})`, { code: 'FILECONV_JOB_STORE' });
}

class CorruptRecordError extends FileconvError {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super('INTERNAL', `The record file ${file} is not a valid record.`, { details: { path: file }, cause });
  }
}

/** One kind of record in its own directory. */
function createCollection<T extends VersionedRecord>(kind: RecordKind, dir: string, fsync: boolean) {
  const withKeyLock = createKeyMutex();
  let made: Promise<unknown> | undefined;
  const ensureDir = () => {
    made ??= mkdir(dir, { recursive: true }).catch((error) => {
      made = undefined;
      throw error;
    });
    return made;
  };
  const fileOf = (id: string) => path.join(dir, `${id}.json`);

  /** Writes the record to a fresh temp file beside its final name ("." first: never listed). */
  async function writeTemp(record: T): Promise<string> {
    await ensureDir();
    const temp = path.join(dir, `.${record.id}.${randomUUID()}.tmp`);
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(JSON.stringify(record, null, 2));
      if (fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    return temp;
  }

  async function read(file: string): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as Partial<T> | null;
      if (typeof parsed?.id !== 'string' || typeof parsed.version !== 'number')
        throw new Error('missing id or version');
      return parsed as T;
    } catch (error) {
      throw new CorruptRecordError(file, error);
    }
  }

  return {
    get(id: string): Promise<T | null> {
      // An id that cannot be stored cannot exist; it must not reach the path either.
      return isStorableId(id) ? read(fileOf(id)) : Promise.resolve(null);
    },

    async create(record: T): Promise<void> {
      assertStorableRecord(kind, record);
      await withKeyLock(record.id, async () => {
        const temp = await writeTemp(record);
        try {
          // link() refuses an existing target: create-if-absent is atomic even across processes.
          await link(temp, fileOf(record.id));
        } catch (error) {
          const code = errnoCode(error);
          if (code === 'EEXIST') throw duplicateError(kind, record.id);
          if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS')
            throw error;
          // A file system without hard links: the per-id lock still makes this exact in-process.
          if (await stat(fileOf(record.id)).catch(() => null)) throw duplicateError(kind, record.id);
          await rename(temp, fileOf(record.id));
        } finally {
          await rm(temp, { force: true });
        }
      });
    },

    async update(record: T): Promise<void> {
      assertStorableRecord(kind, record);
      await withKeyLock(record.id, async () => {
        const stored = await read(fileOf(record.id));
        if (!stored) throw notFoundError(kind, record.id);
        assertNextVersion(kind, stored, record);
        const temp = await writeTemp(record);
        try {
          await rename(temp, fileOf(record.id));
        } catch (error) {
          await rm(temp, { force: true });
          throw error;
        }
      });
    },

    async delete(id: string): Promise<void> {
      if (!isStorableId(id)) return;
      await withKeyLock(id, () => rm(fileOf(id), { force: true }));
    },

    /** Every readable record; unreadable ones go to `onCorrupt` and are skipped. */
    async readAll(onCorrupt: (error: CorruptRecordError) => void): Promise<T[]> {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return [];
        throw error;
      }
      const files = names.filter((name) => name.endsWith('.json') && !name.startsWith('.'));
      const records: T[] = [];
      for (let index = 0; index < files.length; index += READ_BATCH) {
        const batch = files.slice(index, index + READ_BATCH).map(async (name) => {
          try {
            return await read(path.join(dir, name)); // null: deleted since readdir
          } catch (error) {
            if (error instanceof CorruptRecordError) onCorrupt(error);
            else onCorrupt(new CorruptRecordError(path.join(dir, name), error));
            return null;
          }
        });
        for (const record of await Promise.all(batch)) if (record) records.push(record);
      }
      return records;
    },
  };
}

function guarded<T>(action: string, work: () => Promise<T>): Promise<T> {
  return guardFsErrors('Job store', action, work);
}

/**
 * @deprecated Removed in 0.3.0. Use the SQLite job store (`createSqliteJobStore` from
 * `fileconv/jobs/sqlite`: crash-safe transactions, one file) or Redis (`fileconv/jobs/redis`)
 * for several processes; `fileconv serve` moves an old data dir's JSON records into its database
 * on its first start (until 0.3.0).
 */
export function createFsJobStore(options: FsJobStoreOptions): JobStore {
  const given = checkOptionsObject(ADAPTER, options);
  const root = path.resolve(checkNonEmptyString(ADAPTER, 'dir', given.dir));
  const fsync = checkBoolean(ADAPTER, 'fsync', given.fsync, true);
  const onWarning = checkFunction(ADAPTER, 'onWarning', given.onWarning, defaultWarning);
  const files = createCollection<FileRecord>('file', path.join(root, 'files'), fsync);
  const jobs = createCollection<Job>('job', path.join(root, 'jobs'), fsync);

  const reportCorrupt = (error: CorruptRecordError) => {
    try {
      onWarning({
        message: `Skipped an unreadable job record: ${error.message}`,
        path: error.file,
        cause: error.cause,
      });
    } catch {
      // A failing warning hook must not turn a skipped record into a failed listing.
    }
  };

  return {
    createFile: (file) => guarded('createFile', () => files.create(file)),
    getFile: (id) => guarded('getFile', () => files.get(id)),
    updateFile: (file) => guarded('updateFile', () => files.update(file)),
    deleteFile: (id) => guarded('deleteFile', () => files.delete(id)),
    listFiles: (filter) =>
      guarded('listFiles', async () => selectExpiredFiles(await files.readAll(reportCorrupt), filter)),
    createJob: (job) => guarded('createJob', () => jobs.create(job)),
    getJob: (id) => guarded('getJob', () => jobs.get(id)),
    updateJob: (job) => guarded('updateJob', () => jobs.update(job)),
    listJobs: (filter: ListJobsFilter) =>
      guarded('listJobs', async () => {
        checkListFilter(filter); // fail on a bad filter before reading every file
        return selectJobs(await jobs.readAll(reportCorrupt), filter);
      }),
  };
}
