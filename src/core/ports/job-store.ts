/**
 * The JobStore port: file and job records. Creating a record whose id exists is INVALID_REQUEST.
 * getJob/getFile return null for any id, however odd (never throw, never build a path from it).
 * listJobs orders by createdAt, then id.
 */
import type { FileRecord, Job, JobStatus } from '../jobs/types.js';

export interface JobStore {
  createFile(file: FileRecord): Promise<void>;
  getFile(id: string): Promise<FileRecord | null>;
  /**
   * Replaces the file record if its stored `version` equals `file.version - 1`
   * (the caller bumps the version); otherwise throws VERSION_CONFLICT.
   */
  updateFile(file: FileRecord): Promise<void>;
  deleteFile(id: string): Promise<void>;
  /** Files whose `expiresAt` is before the given instant, soonest first (the upload expiry sweep). */
  listFiles(filter: { expiresBefore: string; limit?: number }): Promise<FileRecord[]>;

  /** Stores a new job; throws INVALID_REQUEST if the id exists. */
  createJob(job: Job): Promise<void>;
  getJob(id: string): Promise<Job | null>;
  /**
   * Replaces the job if its stored `version` equals `job.version - 1`; otherwise throws
   * VERSION_CONFLICT, so two workers can never both move the same job.
   */
  updateJob(job: Job): Promise<void>;
  /** Jobs in any of the given states, oldest first (recovery and expiry sweeps). */
  listJobs(filter: { status: readonly JobStatus[]; limit?: number }): Promise<Job[]>;
  close?(): Promise<void>;
}
