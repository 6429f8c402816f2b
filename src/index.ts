/**
 * fileconv: an embeddable file-conversion engine. This entry is the light core (no engine
 * libraries are loaded here): createConverter (conversions in this process) and createJobEngine
 * (jobs over storage, a job store and a queue), the format registry, the conversion graph, the
 * job state machine, errors and the port types adapters implement. Adapters live in subpaths:
 * `fileconv/storage/fs`, `fileconv/converters/sharp`, ...
 */

export type { ErrorCode, FileconvErrorOptions } from './core/errors.js';
export { ERROR_CODES, FileconvError, isFileconvError, toFileconvError } from './core/errors.js';
export * from './core/formats/index.js';
export * from './core/graph/index.js';
export type { JobEvent, JobEventType } from './core/jobs/state.js';
export { canTransition, isTerminal, TERMINAL_STATUSES, transition } from './core/jobs/state.js';
export type {
  FileRecord,
  FileStatus,
  Job,
  JobError,
  JobInput,
  JobStatus,
  JobWebhook,
  WebhookStatus,
} from './core/jobs/types.js';
export { FILE_STATUSES, JOB_STATUSES, WEBHOOK_STATUSES } from './core/jobs/types.js';
export { outputNameFor, sanitizeFileName } from './core/names.js';
export * from './core/policy/index.js';
export type * from './core/ports/index.js';
export { MIN_SECRET_BYTES, type SignedClaims, sign, signingKey, verify } from './core/signing.js';
export {
  signWebhook,
  type VerifyWebhookInput,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
} from './core/webhook-signature.js';
export type { ConverterEntry } from './engine/converter-set.js';
export type { ConversionReport, DirectConvertOptions, StreamConversion } from './engine/direct.js';
export type {
  ConverterStatus,
  Engine,
  EngineOptions,
  EngineStats,
  FileConverter,
  FileConverterOptions,
  FormatSupport,
  JobEngine,
  JobEngineOptions,
  JobPortName,
  OperationStatus,
  WorkerStatus,
} from './engine/engine.js';
export { createEngine } from './engine/engine.js';
export { createConverter } from './engine/file-converter.js';
export { createJobEngine } from './engine/job-engine.js';
export type {
  JobEventListener,
  JobLifecycleEvent,
  JobLifecycleEventType,
} from './engine/job-events.js';
export { JOB_LIFECYCLE_EVENT_TYPES } from './engine/job-events.js';
export type { CreateJobInput, JobResult, WaitOptions } from './engine/job-operations.js';
export type { WebhookOutcome } from './engine/job-webhook.js';
export { checkWebhookUrl, MAX_WEBHOOK_URL_LENGTH } from './engine/job-webhook.js';
export type { CreateOperationJobInput } from './engine/operation-jobs.js';
export type { ReadinessCheck, ReadinessOptions, ReadinessReport } from './engine/readiness.js';
export type {
  AppendResumableInput,
  ChecksumAlgorithm,
  CreateResumableInput,
} from './engine/resumable-operations.js';
export type { ReceiveUploadInput, UploadFileInput, UploadGrantInput } from './engine/upload-operations.js';
export { fileIdFromKey, uploadKeyOf } from './engine/upload-operations.js';
