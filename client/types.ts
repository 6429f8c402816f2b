/**
 * The wire shapes of the fileconv HTTP API as the client sees them (SERVICE-SPEC.md section 2,
 * adapters/http/views.ts and the additive endpoints), declared by hand so that the client pulls in
 * neither zod nor express. The error codes come from the server's own table through a type-only
 * import, which disappears at build time and can never drift from the server.
 */
import type { ErrorCode } from '../src/core/errors.js';

export type { ErrorCode };

/** Codes a client can see: the API's table, plus NETWORK_ERROR when no HTTP answer arrived. */
export type ClientErrorCode = ErrorCode | 'NETWORK_ERROR';

/** The error envelope of every non-2xx JSON answer (DESIGN.md section 5). */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

/** POST /api/files/get-upload-url. `expiresIn` is the constant 600 (seconds). */
export interface UploadGrant {
  uploadUrl: string;
  fileKey: string;
  fileId: string;
  expiresIn: number;
}

/**
 * A grant as getUploadUrl returns it: the server's fields plus what was asked for, because the
 * signed PUT must repeat the same Content-Type and exactly the declared number of bytes.
 */
export interface ClientUploadGrant extends UploadGrant {
  contentType: string;
  fileSize: number;
}

/** POST /api/files/multipart (S3 storage): one presigned PUT URL per part. */
export interface MultipartGrant {
  fileId: string;
  fileKey: string;
  uploadId: string;
  /** Part n holds the bytes [(n-1)*partSize, n*partSize); the last part holds the rest. */
  partSize: number;
  parts: { partNumber: number; url: string }[];
  /** Lifetime of the part URLs, seconds. */
  expiresIn: number;
  completeUrl: string;
}

/** POST /api/files/{fileId}/complete: the uploaded file, ready for POST /api/jobs/create. */
export interface CompletedUpload {
  fileId: string;
  fileKey: string;
  fileName: string;
  size: number;
}

export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'canceled' | 'expired';

/** GET /api/jobs/{jobId}: the specification's ten fields, then the additive ones. */
export interface JobView {
  jobId: string;
  status: JobStatus;
  /** Signed, expiring result URL; non-null only while status is 'completed'. */
  downloadUrl: string | null;
  error: { code: ErrorCode; message: string } | null;
  sourceFormat: string;
  targetFormat: string;
  fileName: string;
  cpuMinutes: number;
  /** ISO 8601 UTC. */
  createdAt: string;
  completedAt: string | null;
  outputName: string;
  /** Progress of the running conversion in [0, 1]. */
  progress: number;
  outputSize: number | null;
  expiresAt: string | null;
  /** Only on document operation jobs: the operation ('merge', 'split'...). */
  operation?: string;
  /** Only on document operation jobs: the names of its input files, in order. */
  inputFiles?: string[];
}

/** POST /api/jobs/create's body. `options` depends on the conversion (see formats()). */
export interface CreateJobRequest {
  fileKey: string;
  sourceFormat: string;
  targetFormat: string;
  fileSize: number;
  options?: Record<string, unknown>;
}

/** POST /api/jobs/create's body for a document operation over uploaded files, in order (see operations()). */
export interface OperationJobRequest {
  operation: string;
  fileKeys: string[];
  options?: Record<string, unknown>;
  webhookUrl?: string;
}

/** POST /api/jobs/create's body capturing a web page (Chromium: pdf, png, jpg, webp). */
export interface UrlJobRequest {
  url: string;
  targetFormat: string;
  options?: Record<string, unknown>;
  webhookUrl?: string;
}

/** POST /api/upload (Flow B). */
export interface UploadedFile {
  fileId: string;
  fileName: string;
  size: number;
}

/** POST /api/convert's body (Flow B). */
export interface ConvertRequest {
  fileId: string;
  fileName: string;
  targetFormat: string;
  options?: Record<string, unknown>;
}

/** POST /api/convert's body for a document operation over uploaded files (their fileId), in order. */
export interface OperationConvertRequest {
  operation: string;
  fileIds: string[];
  options?: Record<string, unknown>;
}

/** POST /api/convert's body capturing a web page. */
export interface UrlConvertRequest {
  url: string;
  targetFormat: string;
  options?: Record<string, unknown>;
}

/** GET /api/operations. `options` is the JSON Schema of the operation's options. */
export interface OperationsResponse {
  operations: Array<{
    name: string;
    description: string;
    /** The format every input must have. */
    input: string;
    minInputs: number;
    maxInputs: number;
    options: Record<string, unknown>;
  }>;
}

/** POST /api/convert's answer (Flow B). */
export interface ConversionResult {
  downloadId: string;
  outputName: string;
}

/** GET /api/formats. `options` is the JSON Schema of the conversion's options, or null. */
export interface FormatsResponse {
  formats: Array<{
    name: string;
    family: string;
    label: string;
    aliases: string[];
    extensions: string[];
    mimeTypes: string[];
    targets: Array<{ format: string; lossy: boolean | null; path: string[] | null; options: unknown }>;
  }>;
}

export interface QuotaUsage {
  limit: number | null;
  used: number | null;
  remaining: number | null;
  resetAt: string | null;
}

/** GET /api/usage: the caller's plan, limits, usage and rate-limit rules. */
export interface UsageResponse {
  account: string | null;
  plan: {
    name: string;
    label: string;
    conversionsPerDay: number | null;
    maxFileBytes: number;
    filesPerHour: number | null;
    uploadBytesPerHour: number | null;
    /** How long an unconverted upload is kept, seconds; null: the server's default. */
    uploadRetentionSeconds: number | null;
    /** Work budgets of one conversion; null: the server's limits only. */
    maxWorkPixels: number | null;
    maxMediaSeconds: number | null;
    maxDocumentPages: number | null;
    apiCallsPerMonth: number | null;
    priority: number;
    batch: boolean;
    maxBatchJobs: number;
    /** Requests a minute to the upload and convert endpoints; null: no rate limit. Absent from older servers. */
    uploadRequestsPerMinute?: number | null;
    /** Requests a minute to every other endpoint; null: no rate limit. Absent from older servers. */
    requestsPerMinute?: number | null;
  };
  quotas: Partial<Record<'conversions' | 'files' | 'uploadBytes' | 'apiCalls', QuotaUsage>>;
  /**
   * The caller's rate limits: 'upload' and 'default' per IP without a key, 'upload-account' and
   * 'default-account' per account with one (`scope`, absent from older servers, says which).
   */
  rateLimits: Array<{ name: string; limit: number; windowSeconds: number; scope?: 'ip' | 'account' }>;
}

/** GET /api/health. */
export interface HealthResponse {
  status: 'ok';
  engines: Array<{ name: string; ok: boolean; version: string | null; reason: string | null }>;
}

/** A downloaded result (Flow A result URL or Flow B download). */
export interface DownloadedFile {
  stream: ReadableStream<Uint8Array>;
  fileName: string;
  contentType: string;
  /** Content-Length in bytes, or null when the server did not send one. */
  size: number | null;
}

/** Bytes the client can send: everything fetch streams, in browsers and in Node >= 20. */
export type UploadBody = Blob | ArrayBuffer | Uint8Array | ReadableStream<Uint8Array>;

/** Upload progress: bytes handed to the network so far, and the total when known. */
export type UploadProgress = (loaded: number, total: number | undefined) => void;
