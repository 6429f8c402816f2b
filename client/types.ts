/**
 * The wire shapes of the fileconv HTTP API as the client sees them: the server's own types,
 * inferred from the zod schemas of src/service/wire/ (the ones OpenAPI is built from and the
 * service's views return), imported type-only so that the client pulls in neither zod nor server
 * code: the import disappears at build time and the types can never drift from the server.
 * The names are the client's own (JobView, UploadGrant, ...), aliases of the inferred types.
 */
import type { ErrorCode, JobView, UploadGrant } from '../src/service/wire/index.js';

export type {
  BatchResult,
  CompletedUpload,
  CompleteMultipartRequest,
  ConversionResult,
  ConvertRequest,
  CreateJobRequest,
  CreateJobResult,
  ErrorCode,
  ErrorEnvelope,
  FormatsResponse,
  HealthResponse,
  JobView,
  MultipartGrant,
  OperationConvertRequest,
  OperationJobRequest,
  OperationsResponse,
  QuotaUsage,
  UploadedFile,
  UploadGrant,
  UploadUrlRequest,
  UrlConvertRequest,
  UrlJobRequest,
  UsageResponse,
} from '../src/service/wire/index.js';

/** Codes a client can see: the API's table, plus NETWORK_ERROR when no HTTP answer arrived. */
export type ClientErrorCode = ErrorCode | 'NETWORK_ERROR';

export type JobStatus = JobView['status'];

/**
 * A grant as getUploadUrl returns it: the server's fields plus what was asked for, because the
 * signed PUT must repeat the same Content-Type and exactly the declared number of bytes.
 */
export interface ClientUploadGrant extends UploadGrant {
  contentType: string;
  fileSize: number;
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
