/**
 * fileconv: an embeddable file-conversion engine. This entry is the light core (no engine
 * libraries are loaded here): createEngine, the format registry, the conversion graph, the job
 * state machine, errors and the port types adapters implement. Adapters live in subpaths:
 * `fileconv/storage/fs`, `fileconv/converters/sharp`, ...
 */

export type { ConversionReport, DirectConvertOptions, StreamConversion } from './direct.js';
export type {
  ConverterStatus,
  Engine,
  EngineOptions,
  EngineStats,
  FormatSupport,
  JobPortName,
  OperationStatus,
  WorkerStatus,
} from './engine.js';
export { createEngine } from './engine.js';
export type { ErrorCode, FileconvErrorOptions } from './errors.js';
export { ERROR_CODES, FileconvError, isFileconvError, toFileconvError } from './errors.js';
export * from './formats/index.js';
export * from './graph/index.js';
export type {
  JobEventListener,
  JobLifecycleEvent,
  JobLifecycleEventType,
} from './job-events.js';
export { JOB_LIFECYCLE_EVENT_TYPES } from './job-events.js';
export type { CreateJobInput, JobResult, WaitOptions } from './job-operations.js';
export type { WebhookOutcome } from './job-webhook.js';
export { checkWebhookUrl, MAX_WEBHOOK_URL_LENGTH } from './job-webhook.js';
export type { JobEvent, JobEventType } from './jobs/state.js';
export { canTransition, isTerminal, TERMINAL_STATUSES, transition } from './jobs/state.js';
export type {
  FileRecord,
  FileStatus,
  Job,
  JobError,
  JobInput,
  JobStatus,
  JobWebhook,
  WebhookStatus,
} from './jobs/types.js';
export { FILE_STATUSES, JOB_STATUSES, WEBHOOK_STATUSES } from './jobs/types.js';
export { outputNameFor, sanitizeFileName } from './names.js';
export type { CreateOperationJobInput } from './operation-jobs.js';
export * from './policy/index.js';
export type * from './ports.js';
export type { ReadinessCheck, ReadinessOptions, ReadinessReport } from './readiness.js';
export type {
  AppendResumableInput,
  ChecksumAlgorithm,
  CreateResumableInput,
} from './resumable-operations.js';
export { MIN_SECRET_BYTES, type SignedClaims, sign, signingKey, verify } from './signing.js';
export type { ReceiveUploadInput, UploadFileInput, UploadGrantInput } from './upload-operations.js';
export { fileIdFromKey, uploadKeyOf } from './upload-operations.js';
export {
  signWebhook,
  type VerifyWebhookInput,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
} from './webhook-signature.js';
