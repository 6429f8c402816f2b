/**
 * fileconv: an embeddable file-conversion engine. This entry is the light core (no engine
 * libraries are loaded here): createConverter (conversions in this process) and createJobEngine
 * (jobs over storage, a job store and a queue), the format lookups, the conversion graph, the job
 * state machine, errors, plans and API keys, signing, and the port types adapters implement.
 *
 * Its runtime names are a committed list (test/public-surface.test.ts): what an embedding host
 * reaches for. The rest lives behind subpaths: `fileconv/formats` (detection and the `url`
 * format besides the lookups), `fileconv/policy` (rate limits, quotas, charge settlement and key
 * authentication, for hosts that build their own HTTP layer), adapters (`fileconv/storage/fs`,
 * `fileconv/jobs/sqlite`, ...) and converters (`fileconv/converters/sharp`, ...).
 */

export type { ErrorCode, FileconvErrorOptions } from './core/errors.js';
export { ERROR_CODES, FileconvError, isFileconvError, toFileconvError } from './core/errors.js';
export {
  type CustomFormat,
  createFormatRegistry,
  detectFormat,
  extensionOf,
  FORMAT_FAMILIES,
  FORMATS,
  type FormatDefinition,
  type FormatFamily,
  type FormatName,
  type FormatRegistry,
  formatFromExtension,
  formatFromMime,
  formatsByFamily,
  type GenericContainer,
  getFormat,
  mimeTypeOf,
  requireFormat,
} from './core/formats/index.js';
export * from './core/graph/index.js';
export type { JobEvent, JobEventType } from './core/jobs/state.js';
export { canTransition, isTerminal, TERMINAL_STATUSES, transition } from './core/jobs/state.js';
export type {
  FileRecord,
  FileStatus,
  Job,
  JobCharge,
  JobError,
  JobInput,
  JobStatus,
  JobWebhook,
  WebhookStatus,
} from './core/jobs/types.js';
export { FILE_STATUSES, JOB_STATUSES, WEBHOOK_STATUSES } from './core/jobs/types.js';
export { outputNameFor, sanitizeFileName } from './core/names.js';
export {
  type CreateApiKeyInput,
  createApiKey,
  DEFAULT_PLANS,
  type DefinePlansOptions,
  definePlans,
  FREE_PLAN,
  getPlan,
  type Plan,
  type PlanOverride,
  type PlanTable,
  revokeApiKey,
} from './core/policy/index.js';
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
export type { CreateOperationJobInput } from './engine/operation-jobs.js';
export type { ReadinessCheck, ReadinessOptions, ReadinessReport } from './engine/readiness.js';
export type {
  AppendResumableInput,
  ChecksumAlgorithm,
  CreateResumableInput,
} from './engine/resumable-operations.js';
export type { ReceiveUploadInput, UploadFileInput, UploadGrantInput } from './engine/upload-operations.js';
