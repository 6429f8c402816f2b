/**
 * In-memory JobStore: file and job records in Maps for the life of the process. Meant for
 * tests and embedding without persistence. Records are deep-copied on the way in and out, so
 * a caller holding a record can never change what is stored behind the version check.
 */
import type { FileRecord, Job } from '../../core/jobs/types.js';
import type { JobStore } from '../../core/ports/index.js';
import {
  assertNextVersion,
  assertStorableRecord,
  duplicateError,
  type ListJobsFilter,
  notFoundError,
  type RecordKind,
  selectExpiredFiles,
  selectJobs,
  type VersionedRecord,
} from './record-rules.js';

/** One kind of record. Every method finishes synchronously, so no two updates can interleave. */
function createCollection<T extends VersionedRecord>(kind: RecordKind) {
  const records = new Map<string, T>();
  return {
    records,
    create(record: T): void {
      assertStorableRecord(kind, record);
      if (records.has(record.id)) throw duplicateError(kind, record.id);
      records.set(record.id, structuredClone(record));
    },
    get(id: string): T | null {
      const record = records.get(id);
      return record ? structuredClone(record) : null;
    },
    update(record: T): void {
      assertStorableRecord(kind, record);
      const stored = records.get(record.id);
      if (!stored) throw notFoundError(kind, record.id);
      assertNextVersion(kind, stored, record);
      records.set(record.id, structuredClone(record));
    },
    delete(id: string): void {
      records.delete(id);
    },
  };
}

/** An in-memory JobStore. It takes no options. */
export function createMemoryJobStore(): JobStore {
  const files = createCollection<FileRecord>('file');
  const jobs = createCollection<Job>('job');
  return {
    async createFile(file) {
      files.create(file);
    },
    async getFile(id) {
      return files.get(id);
    },
    async updateFile(file) {
      files.update(file);
    },
    async deleteFile(id) {
      files.delete(id);
    },
    async listFiles(filter) {
      return selectExpiredFiles(files.records.values(), filter).map((file) => structuredClone(file));
    },
    async createJob(job) {
      jobs.create(job);
    },
    async getJob(id) {
      return jobs.get(id);
    },
    async updateJob(job) {
      jobs.update(job);
    },
    async listJobs(filter: ListJobsFilter) {
      return selectJobs(jobs.records.values(), filter).map((job) => structuredClone(job));
    },
  };
}
