/**
 * SQLite JobStore: job and upload records in the embedded database (adapters/sqlite), the
 * default of `fileconv serve` on one machine. Each record is kept whole as JSON beside the columns
 * its queries use; the optimistic version check is part of the UPDATE itself, so it holds across
 * processes sharing the file too. A record's creation is on disk, power cut included, before its
 * promise resolves (a job or upload whose id a client is given), through the database's group
 * commit: committed on the fast connection, then one fdatasync of the WAL off the event loop for
 * every creation waiting at that moment (SqliteDatabase.synced). An fsync'd commit on the event
 * loop (synchronous=FULL) blocked every other request ~1.5 ms a job under load. A job's later
 * transitions (started, completed, failed) are not waited for: they survive a killed process like
 * every commit, and the worst a power cut can do is take a job back to an earlier state, from
 * which it runs again after the restart.
 */
import type { FileRecord, Job } from '../../core/jobs/types.js';
import type { JobStore } from '../../core/ports/index.js';
import type { SqliteConnection } from '../sqlite/database.js';
import { preparedRunner, type SqliteStoreOptions, sqliteHandle } from '../sqlite/handle.js';
import {
  assertNextVersion,
  assertStorableRecord,
  checkExpiryFilter,
  checkListFilter,
  duplicateError,
  instantMs,
  isStorableId,
  notFoundError,
  type RecordKind,
  type VersionedRecord,
} from './record-rules.js';

const ADAPTER = 'createSqliteJobStore';

export type SqliteJobStoreOptions = SqliteStoreOptions;

/** SQLite's LIMIT for "no limit". */
const NO_LIMIT = -1;

interface Table<T> {
  name: 'jobs' | 'files';
  kind: RecordKind;
  /** Column values besides id, version and record, in the order of `columns`. */
  columns: readonly string[];
  values(record: T): (string | number)[];
}

const JOBS: Table<Job> = {
  name: 'jobs',
  kind: 'job',
  columns: ['status', 'created_at'],
  values: (job) => [job.status, instantMs(job.createdAt)],
};

const FILES: Table<FileRecord> = {
  name: 'files',
  kind: 'file',
  columns: ['expires_at'],
  values: (file) => [instantMs(file.expiresAt)],
};

/** The statements of one table, prepared once per connection. */
function collection<T extends VersionedRecord>(db: SqliteConnection, table: Table<T>) {
  const placeholders = table.columns.map(() => '?').join(', ');
  const insert = db.prepare(
    `INSERT INTO ${table.name} (id, version, ${table.columns.join(', ')}, record) VALUES (?, ?, ${placeholders}, ?) ON CONFLICT (id) DO NOTHING`,
  );
  const update = db.prepare(
    `UPDATE ${table.name} SET version = ?, ${table.columns.map((column) => `${column} = ?`).join(', ')}, record = ? WHERE id = ? AND version = ?`,
  );
  const select = db.prepare(`SELECT record FROM ${table.name} WHERE id = ?`).pluck();
  const remove = db.prepare(`DELETE FROM ${table.name} WHERE id = ?`);
  const read = (id: string): T | null => {
    const text = select.get(id) as string | undefined;
    return text === undefined ? null : (JSON.parse(text) as T);
  };
  return {
    create(record: T): void {
      assertStorableRecord(table.kind, record);
      const result = insert.run(record.id, record.version, ...table.values(record), JSON.stringify(record));
      if (result.changes === 0) throw duplicateError(table.kind, record.id);
    },
    get: (id: string): T | null => (isStorableId(id) ? read(id) : null),
    update(record: T): void {
      assertStorableRecord(table.kind, record);
      const result = update.run(
        record.version,
        ...table.values(record),
        JSON.stringify(record),
        record.id,
        record.version - 1,
      );
      if (result.changes > 0) return;
      const stored = read(record.id);
      if (!stored) throw notFoundError(table.kind, record.id);
      assertNextVersion(table.kind, stored, record);
    },
    delete(id: string): void {
      if (isStorableId(id)) remove.run(id);
    },
  };
}

/** A JobStore in the SQLite database given (or opened from `path`). */
export function createSqliteJobStore(options: SqliteJobStoreOptions): JobStore & { close(): Promise<void> } {
  const handle = sqliteHandle(ADAPTER, options);
  // The statements of the job table, prepared again on the fast connection for later transitions.
  const runFast = preparedRunner(handle, 'fast', (db) => collection(db, JOBS));
  // And for creations, which resolve once on disk.
  const runSynced = preparedRunner(handle, 'synced', (db) => ({
    jobs: collection(db, JOBS),
    files: collection(db, FILES),
  }));
  const run = preparedRunner(handle, 'durable', (db) => {
    const expiring = db
      .prepare('SELECT record FROM files WHERE expires_at < ? ORDER BY expires_at, id LIMIT ?')
      .pluck();
    const byStatus = new Map<number, ReturnType<SqliteConnection['prepare']>>();
    return {
      jobs: collection(db, JOBS),
      files: collection(db, FILES),
      listJobs(statuses: string[], limit: number) {
        let statement = byStatus.get(statuses.length);
        if (!statement) {
          const marks = statuses.map(() => '?').join(', ');
          statement = db
            .prepare(`SELECT record FROM jobs WHERE status IN (${marks}) ORDER BY created_at, id LIMIT ?`)
            .pluck();
          byStatus.set(statuses.length, statement);
        }
        return (statement.all([...statuses, limit]) as string[]).map((text) => JSON.parse(text) as Job);
      },
      listFiles: (before: number, limit: number) =>
        (expiring.all(before, limit) as string[]).map((text) => JSON.parse(text) as FileRecord),
    };
  });

  return {
    createFile: (file) => runSynced(({ files }) => files.create(file)),
    getFile: (id) => run(({ files }) => files.get(id)),
    updateFile: (file) => runSynced(({ files }) => files.update(file)),
    deleteFile: (id) => run(({ files }) => files.delete(id)),
    listFiles: async (filter) => {
      const { before, limit } = checkExpiryFilter(filter);
      return run((stores) => stores.listFiles(before, Number.isFinite(limit) ? limit : NO_LIMIT));
    },
    createJob: (job) => runSynced(({ jobs }) => jobs.create(job)),
    getJob: (id) => run(({ jobs }) => jobs.get(id)),
    updateJob: (job) => runFast((jobs) => jobs.update(job)),
    listJobs: async (filter) => {
      const { statuses, limit } = checkListFilter(filter);
      if (statuses.size === 0) return [];
      return run((stores) => stores.listJobs([...statuses], Number.isFinite(limit) ? limit : NO_LIMIT));
    },
    close: () => handle.close(),
  };
}
