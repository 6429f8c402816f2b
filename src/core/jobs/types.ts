/**
 * The records the engine keeps: an uploaded file and a conversion job. Plain JSON-safe data,
 * so every JobStore can persist them as they are.
 */
import type { ErrorCode } from '../errors.js';
import type { FormatName, OutputPackaging } from '../formats/types.js';
import type { WorkLimits } from '../work-limits.js';
import type { FileStatus, JobStatus, WebhookStatus } from './statuses.js';

export {
  FILE_STATUSES,
  type FileStatus,
  JOB_STATUSES,
  type JobStatus,
  WEBHOOK_STATUSES,
  type WebhookStatus,
} from './statuses.js';

export interface JobError {
  code: ErrorCode;
  message: string;
  /**
   * Set only where the code alone does not tell whose fault the failure was: `fault: 'service'`
   * on a CONVERSION_TIMEOUT that struck while the job waited for a busy engine (a pool's queue,
   * an engine starting) rather than while an engine worked on its input. See
   * core/policy/settlement.ts, which decides what is given back.
   */
  details?: { fault: 'service' };
}

export interface Job {
  id: string;
  /** Bumped by every update; stores refuse an update whose version does not follow theirs. */
  version: number;
  status: JobStatus;
  /** Who may see the job: an account id, or `ip:<address>` for the free tier. */
  owner: string;
  /** The uploaded file the job converts (FileRecord id), when it came from an upload. */
  fileId: string | null;
  /** Storage key of the input. */
  inputKey: string;
  /** Storage key of the result once completed. */
  outputKey: string | null;
  sourceFormat: FormatName;
  targetFormat: FormatName;
  /** Name of the input file as uploaded (sanitised). */
  fileName: string;
  /** Name the result is downloaded under: the input's base name with the target's extension. */
  outputName: string;
  /**
   * 'zip' when the result is a zip archive of several target files (every page of a PDF as
   * PNG); absent for a single file. Decides the result's media type and outputName's extension.
   */
  packaging?: OutputPackaging;
  /**
   * Conversion options as given by the client (validated when the job was created). Once the job
   * is over, a value its schema marks writeOnly (a cookie, a password) reads REDACTED
   * (core/secret-options.ts).
   */
  options: Record<string, unknown>;
  /** Planned chain of formats, source first, target last. */
  path: FormatName[];
  /** Higher runs first. */
  priority: number;
  /** How many times a worker started this job (a crash makes it run again). */
  attempts: number;
  /** Progress of the running conversion in [0, 1]. */
  progress: number;
  error: JobError | null;
  /** Measured CPU time of the conversion (user + system, child processes included), ms. */
  cpuMs: number | null;
  /** Result size in bytes once completed. */
  outputSize: number | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  /** When the result is deleted (completed jobs only). */
  expiresAt: string | null;
  /**
   * The conversion the job was charged (its one-unit share of the request's ticket), so that
   * settling the job can give it back when the service failed it (service/metering.ts). Opaque
   * to the engine; null or absent when uncharged. JSON-safe: stores keep it with the record.
   */
  charge?: JobCharge | null;
  /** Where job.completed / job.failed / job.canceled are POSTed, and how that went. Absent: no webhook. */
  webhook?: JobWebhook;
  /** The work budgets of the plan the job was created under (its worker may be another process). Absent: none. */
  limits?: WorkLimits;
  /**
   * The document operation the job runs ('merge', 'split', ...; see DocumentOperation) instead of
   * a conversion: `path` is then [input format, result format] and `options` the operation's.
   */
  operation?: string;
  /**
   * Every input of an operation job, in order (the first is also fileId / inputKey / fileName).
   * Absent on conversion jobs, which have one input.
   */
  inputs?: JobInput[];
}

/**
 * A quota charge kept with a job: enough to give it back to the counter window it was taken
 * from. The shape of core/policy's QuotaTicket (which types `kind`), defined here so that job
 * records need nothing of the policy. JSON-safe.
 */
export interface JobCharge {
  /** The quota charged ('conversions'). */
  kind: string;
  /** The counter the units were added to. */
  key: string;
  /** The counter window's end, epoch ms: after it there is nothing to give back to. */
  expiresAt: number;
  /** Units charged: a job carries one. */
  amount: number;
}

/** One input of a multi-input job. */
export interface JobInput {
  /** The uploaded file (FileRecord id). */
  fileId: string;
  /** Storage key of its bytes. */
  inputKey: string;
  fileName: string;
}

/**
 * A job's webhook. Its delivery is recorded here, never in the job's status: a receiver that
 * is down does not make a completed conversion fail.
 */
export interface JobWebhook {
  /** http(s) URL given at job creation. */
  url: string;
  /** `pending` until the settled job's event was delivered or given up on. */
  status: WebhookStatus;
  /** Delivery attempts made so far. */
  attempts: number;
  /** Why the last attempt failed; null once delivered. */
  lastError: string | null;
  deliveredAt: string | null;
}

export interface FileRecord {
  id: string;
  version: number;
  /** `pending` until its bytes are stored, then `uploaded`. */
  status: FileStatus;
  owner: string;
  /** Storage key of the bytes. */
  key: string;
  /** Sanitised file name as given by the client. */
  fileName: string;
  /** Declared size (Flow A) or measured size (Flow B), bytes. */
  size: number;
  contentType: string;
  createdAt: string;
  uploadedAt: string | null;
  /** When an upload grant or an unused upload lapses. */
  expiresAt: string;
  /** How long the uploaded bytes are kept unused, ms (a plan's uploadRetentionSeconds). Absent: the engine's uploadTtlMs. */
  retentionMs?: number;
  /**
   * A resumable (tus) upload still arriving: the bytes stored so far and the storage's own state
   * (ports.ts ResumableState). Absent once the upload is complete, and for every other file.
   */
  resumable?: { offset: number; state: Readonly<Record<string, unknown>> };
}
