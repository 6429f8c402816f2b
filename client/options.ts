/** The options of createClient and of its calls. */
import type { RetryOptions } from './http.js';
import type { JobView, UploadProgress } from './types.js';

export interface ClientOptions {
  /** Where the router is mounted, e.g. 'https://convert.example.com' or 'http://localhost:3000/v1'. */
  baseUrl: string;
  /** A paid plan's key, sent as `Authorization: Bearer <apiKey>`; without it, the Free tier. */
  apiKey?: string;
  /** A fetch to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: typeof fetch;
  retry?: RetryOptions;
  /** Sent as User-Agent outside browsers (which do not allow setting it). */
  userAgent?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface UploadOptions extends CallOptions {
  onProgress?: UploadProgress;
  /** Content-Type of the PUT; default the grant's (it must be the one the URL was signed for). */
  contentType?: string;
}

export interface WaitOptions extends CallOptions {
  /** Called with every polled state of the job. */
  onProgress?: (job: JobView) => void;
  /** First polling interval, ms (default 250); it grows by half each poll up to maxIntervalMs (5 000). */
  intervalMs?: number;
  maxIntervalMs?: number;
}

/** Progress of convertFile: the upload's bytes, then the job's polled states. */
export type ConvertFileProgress =
  | { phase: 'upload'; loaded: number; total: number | undefined }
  | { phase: 'convert'; status: JobView['status']; progress: number };

export interface ConvertFileOptions extends CallOptions {
  fileName: string;
  targetFormat: string;
  /** Default: the fileName's extension, lowercased. */
  sourceFormat?: string;
  /** Default: a Blob's own type, else application/octet-stream. */
  contentType?: string;
  /** Required for a ReadableStream body (the upload grant needs the exact size). */
  fileSize?: number;
  options?: Record<string, unknown>;
  onProgress?: (event: ConvertFileProgress) => void;
  pollIntervalMs?: number;
}

/** One file of runOperation: its bytes and the name it is uploaded under. */
export interface OperationFile {
  body: import('./types.js').UploadBody;
  fileName: string;
  /** Default: a Blob's own type, else application/pdf. */
  contentType?: string;
  /** Required for a ReadableStream body. */
  fileSize?: number;
}

export interface RunOperationOptions extends CallOptions {
  options?: Record<string, unknown>;
  pollIntervalMs?: number;
  /** Called with every polled state of the job. */
  onProgress?: (job: JobView) => void;
}

export interface MultipartUploadOptions extends CallOptions {
  fileName: string;
  /** Default: a Blob's own type, else application/octet-stream. */
  contentType?: string;
  /** Parts sent at once. Default 4. */
  concurrency?: number;
  /** Bytes of the parts stored so far (it moves a part at a time), and the total. */
  onProgress?: UploadProgress;
}
