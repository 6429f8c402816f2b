/**
 * Rules every embedded JobStore applies the same way: which ids can be stored, the optimistic
 * version check, the errors for missing and duplicate records, and the order of listJobs.
 * Sharing them keeps the memory store an exact stand-in for the file store.
 */
import { FileconvError } from '../../core/errors.js';
import { type FileRecord, JOB_STATUSES, type Job, type JobStatus } from '../../core/jobs/types.js';

export type RecordKind = 'job' | 'file';

export interface VersionedRecord {
  id: string;
  version: number;
}

export interface ListJobsFilter {
  status: readonly JobStatus[];
  limit?: number;
}

// Ids become file names in the fs store: a portable, traversal-free alphabet, and a first
// character that can never be the `.` of a temp file.
const STORABLE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** Whether `id` could name a stored record. Lookups of any other id simply find nothing. */
export function isStorableId(id: unknown): id is string {
  return typeof id === 'string' && STORABLE_ID.test(id);
}

/** Throws INVALID_REQUEST unless `record` has a storable id and an integer version. */
export function assertStorableRecord(kind: RecordKind, record: unknown): asserts record is VersionedRecord {
  const candidate = record as Partial<VersionedRecord> | null;
  if (candidate === null || typeof candidate !== 'object') {
    throw new FileconvError('INVALID_REQUEST', `A ${kind} record must be an object.`);
  }
  if (!isStorableId(candidate.id)) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `A ${kind} id must be 1-200 characters of A-Z, a-z, 0-9, ".", "_" or "-", starting with a letter or digit.`,
      { details: { kind, id: String(candidate.id).slice(0, 200) } },
    );
  }
  if (typeof candidate.version !== 'number' || !Number.isSafeInteger(candidate.version)) {
    throw new FileconvError('INVALID_REQUEST', `A ${kind} version must be an integer.`, {
      details: { kind, id: candidate.id, version: String(candidate.version) },
    });
  }
}

export function notFoundError(kind: RecordKind, id: string): FileconvError {
  return new FileconvError('NOT_FOUND', `No ${kind} with id "${id}".`, { details: { kind, id } });
}

export function duplicateError(kind: RecordKind, id: string): FileconvError {
  return new FileconvError('INVALID_REQUEST', `A ${kind} with id "${id}" already exists.`, {
    details: { kind, id },
  });
}

/** Throws VERSION_CONFLICT unless `next` is exactly one version after `stored`. */
export function assertNextVersion(kind: RecordKind, stored: VersionedRecord, next: VersionedRecord): void {
  if (stored.version !== next.version - 1) {
    throw new FileconvError(
      'VERSION_CONFLICT',
      `The ${kind} "${next.id}" changed meanwhile: stored version ${stored.version}, update based on ${next.version - 1}.`,
      { details: { kind, id: next.id, storedVersion: stored.version, givenVersion: next.version } },
    );
  }
}

/** Validates a listJobs filter; returns the statuses as a set and the limit (Infinity when none). */
export function checkListFilter(filter: ListJobsFilter): { statuses: Set<JobStatus>; limit: number } {
  if (filter === null || typeof filter !== 'object' || !Array.isArray(filter.status)) {
    throw new FileconvError('INVALID_REQUEST', 'listJobs needs a filter with a "status" array.');
  }
  for (const status of filter.status) {
    if (!JOB_STATUSES.includes(status)) {
      throw new FileconvError('INVALID_REQUEST', `Unknown job status "${String(status)}".`, {
        details: { status: String(status), allowed: [...JOB_STATUSES] },
      });
    }
  }
  const { limit } = filter;
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0)) {
    throw new FileconvError('INVALID_REQUEST', 'The listJobs "limit" must be a non-negative integer.', {
      details: { limit: String(limit) },
    });
  }
  return { statuses: new Set(filter.status), limit: limit ?? Number.POSITIVE_INFINITY };
}

function createdAtMs(job: Job): number {
  const ms = Date.parse(job.createdAt);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

/** Oldest first: by createdAt as an instant (not as text: precision may differ), then by id. */
export function compareOldestFirst(a: Job, b: Job): number {
  return createdAtMs(a) - createdAtMs(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Applies a validated filter to candidate jobs: matching statuses, oldest first, at most `limit`. */
export function selectJobs(jobs: Iterable<Job>, filter: ListJobsFilter): Job[] {
  const { statuses, limit } = checkListFilter(filter);
  const matching: Job[] = [];
  for (const job of jobs) if (statuses.has(job.status)) matching.push(job);
  return matching.sort(compareOldestFirst).slice(0, limit);
}

/** Files that expire before `expiresBefore`, soonest first, at most `limit`. */
export function selectExpiredFiles(
  files: Iterable<FileRecord>,
  filter: { expiresBefore: string; limit?: number },
): FileRecord[] {
  const { before, limit } = checkExpiryFilter(filter);
  const expiring: FileRecord[] = [];
  for (const file of files) if (Date.parse(file.expiresAt) < before) expiring.push(file);
  expiring.sort(
    (a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return expiring.slice(0, limit);
}

/** Validates a listFiles filter: the instant as epoch ms, and the limit (Infinity when none). */
export function checkExpiryFilter(filter: { expiresBefore: string; limit?: number }): {
  before: number;
  limit: number;
} {
  const before = Date.parse(filter?.expiresBefore);
  if (Number.isNaN(before)) {
    throw new FileconvError('INVALID_REQUEST', 'listFiles needs "expiresBefore" as an ISO 8601 instant.');
  }
  const { limit } = filter;
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0)) {
    throw new FileconvError('INVALID_REQUEST', 'The listFiles "limit" must be a non-negative integer.');
  }
  return { before, limit: limit ?? Number.POSITIVE_INFINITY };
}

/** An ISO instant as epoch ms for an index column; an unparsable one sorts last. */
export function instantMs(iso: unknown): number {
  const ms = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  return Number.isNaN(ms) ? Number.MAX_SAFE_INTEGER : ms;
}
