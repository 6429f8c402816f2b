/**
 * fileconv/client: a typed client of the fileconv HTTP API on fetch, for Node >= 20 and browsers.
 * Both flows of the specification, the additive endpoints, and convertFile() for Flow A end to
 * end. Every failure is a FileconvApiError (see errors.ts); retries are described in http.ts and
 * upload progress in upload.ts. No Node-only import: the same module runs in a browser.
 */
import { FileconvApiError, jobFailure } from './errors.js';
import { downloadedFile, multipartFrame } from './files.js';
import { callJson, headersFor, send, sleep, type Transport, urlOf } from './http.js';
import { multipartCalls } from './multipart.js';
import type {
  CallOptions,
  ClientOptions,
  ConvertFileOptions,
  OperationFile,
  RunOperationOptions,
  UploadOptions,
  WaitOptions,
} from './options.js';
import type {
  BatchResult,
  ClientUploadGrant,
  ConversionResult,
  ConvertRequest,
  CreateJobRequest,
  CreateJobResult,
  DownloadedFile,
  FormatsResponse,
  HealthResponse,
  JobView,
  OperationConvertRequest,
  OperationJobRequest,
  OperationsResponse,
  UploadBody,
  UploadedFile,
  UploadGrant,
  UploadUrlRequest,
  UrlConvertRequest,
  UrlJobRequest,
  UsageResponse,
} from './types.js';
import { isBlob, sendUpload, sizeOf } from './upload.js';

export { FileconvApiError, isFileconvApiError } from './errors.js';
export type { RetryOptions } from './http.js';
export type * from './options.js';
export type * from './types.js';

const TERMINAL = new Set<JobView['status']>(['completed', 'failed', 'canceled', 'expired']);

/**
 * How long one GET of a job may be held by the server (`?wait=`) before it answers with the job
 * as it is: under the 60 s the server allows and the idle timeout of most proxies.
 */
const LONG_POLL_SECONDS = 25;

function sizeOrThrow(body: UploadBody, given: number | undefined): number {
  const size = sizeOf(body) ?? given;
  if (size === undefined) throw new TypeError('fileSize is required to upload a ReadableStream body.');
  return size;
}

export function createClient(clientOptions: ClientOptions) {
  const fetchFn = clientOptions.fetch ?? globalThis.fetch.bind(globalThis);
  const t: Transport = {
    baseUrl: clientOptions.baseUrl,
    apiKey: clientOptions.apiKey,
    fetch: fetchFn,
    retry: { maxRetries: 3, maxWaitMs: 60_000, ...clientOptions.retry },
    userAgent: clientOptions.userAgent,
  };
  const jobPath = (id: string) => `/api/jobs/${encodeURIComponent(id)}`;

  /** GET of a signed result URL (which may redirect to an object store: fetch follows it). */
  async function fetchSigned(
    url: string,
    fallbackName: string,
    signal?: AbortSignal,
  ): Promise<DownloadedFile> {
    const headers = headersFor(t, true);
    const response = await send(t, url, () => t.fetch(url, { headers, signal }), {
      signal,
      idempotent: true,
    });
    return downloadedFile(response, fallbackName);
  }

  /** Waits for a job and downloads its result; a job that did not complete throws its error. */
  async function finishJob(
    jobId: string,
    options: RunOperationOptions,
  ): Promise<DownloadedFile & { job: JobView }> {
    const { signal } = options;
    const job = await client.waitForJob(jobId, {
      signal,
      ...(options.pollIntervalMs === undefined ? {} : { intervalMs: options.pollIntervalMs }),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    if (job.status !== 'completed' || !job.downloadUrl) throw jobFailure(job);
    return { ...(await fetchSigned(job.downloadUrl, job.outputName, signal)), job };
  }

  const client = {
    // ---- Flow A, large files straight to S3 (multipart.ts) ----
    ...multipartCalls(t),

    // ---- Flow A ----
    async getUploadUrl(request: UploadUrlRequest, { signal }: CallOptions = {}): Promise<ClientUploadGrant> {
      const grant = await callJson<UploadGrant>(t, {
        method: 'POST',
        path: '/api/files/get-upload-url',
        json: request,
        signal,
      });
      return { ...grant, contentType: request.contentType, fileSize: request.fileSize };
    },

    /** PUTs the bytes to the grant's signed URL (exactly the declared size, with the same Content-Type). */
    async uploadContent(
      grant: UploadGrant & { contentType?: string; fileSize?: number },
      body: UploadBody,
      { onProgress, signal, contentType }: UploadOptions = {},
    ): Promise<void> {
      const type =
        contentType ?? grant.contentType ?? ((isBlob(body) && body.type) || 'application/octet-stream');
      const size = sizeOf(body) ?? grant.fileSize;
      const url = grant.uploadUrl;
      const headers = headersFor(t, true, { 'content-type': type });
      const framed = { body, size };
      const response = await send(
        t,
        url,
        () => sendUpload(t.fetch, { method: 'PUT', url, headers, framed, onProgress, signal }),
        {
          signal,
          // A stream is consumed by the first attempt and cannot be sent again.
          replayable: !(body instanceof ReadableStream),
        },
      );
      await response.body?.cancel();
    },

    /** A conversion job, or a document operation job (`{ operation, fileKeys }`). */
    createJob(
      request: CreateJobRequest | OperationJobRequest | UrlJobRequest,
      { signal }: CallOptions = {},
    ): Promise<CreateJobResult> {
      return callJson(t, { method: 'POST', path: '/api/jobs/create', json: request, signal });
    },

    /** Several jobs at once, all or nothing (plans with batch support). */
    createJobs(
      requests: readonly (CreateJobRequest | OperationJobRequest | UrlJobRequest)[],
      { signal }: CallOptions = {},
    ): Promise<BatchResult> {
      return callJson(t, { method: 'POST', path: '/api/jobs/batch', json: { jobs: requests }, signal });
    },

    getJob(jobId: string, { signal }: CallOptions = {}): Promise<JobView> {
      return callJson(t, { method: 'GET', path: jobPath(jobId), signal });
    },

    /**
     * Waits until the job is completed, failed, canceled or expired, and returns that state (a
     * failed job is returned, not thrown). Without onProgress, each request is a long poll
     * (`?wait=`): the server answers when the job settles. With onProgress, or from a server that
     * answers at once, polls slow down from intervalMs to maxIntervalMs. A 429 or 503 while
     * waiting waits its Retry-After (up to retry.maxWaitMs) and goes on.
     */
    async waitForJob(jobId: string, options: WaitOptions = {}): Promise<JobView> {
      const { signal, onProgress } = options;
      let interval = options.intervalMs ?? 250;
      const maxInterval = options.maxIntervalMs ?? 5_000;
      // Progress is seen only between answers, so a caller who wants it gets short polls.
      const holdSeconds = onProgress ? 0 : LONG_POLL_SECONDS;
      const query = holdSeconds > 0 ? { wait: String(holdSeconds) } : undefined;
      for (;;) {
        let job: JobView | undefined;
        const asked = Date.now();
        try {
          job = await callJson<JobView>(t, { method: 'GET', path: jobPath(jobId), query, signal });
        } catch (error) {
          const busy = error instanceof FileconvApiError && (error.status === 429 || error.status === 503);
          const waitMs = busy ? (error.retryAfterSeconds ?? 1) * 1000 : Number.POSITIVE_INFINITY;
          if (waitMs > t.retry.maxWaitMs) throw error;
          await sleep(waitMs, signal);
          continue;
        }
        onProgress?.(job);
        if (TERMINAL.has(job.status)) return job;
        // Held for the whole wait: the server long-polls, so ask again at once.
        if (holdSeconds > 0 && Date.now() - asked >= holdSeconds * 900) continue;
        await sleep(interval, signal);
        interval = Math.min(maxInterval, Math.round(interval * 1.5));
      }
    },

    /** Cancels a queued or running job (DELETE); answers its new state. */
    cancelJob(jobId: string, { signal }: CallOptions = {}): Promise<JobView> {
      return callJson(t, { method: 'DELETE', path: jobPath(jobId), signal });
    },

    /** The result of a completed job, streamed; a job that is not completed throws its error. */
    async downloadResult(
      jobId: string,
      { signal }: CallOptions = {},
    ): Promise<DownloadedFile & { job: JobView }> {
      const job = await client.getJob(jobId, { signal });
      if (job.status !== 'completed' || !job.downloadUrl) throw jobFailure(job);
      return { ...(await fetchSigned(job.downloadUrl, job.outputName, signal)), job };
    },

    // ---- Flow B ----
    /** Streams a multipart upload (one field `file`). fileName defaults to a File's own name. */
    async upload(
      body: UploadBody,
      options: UploadOptions & { fileName?: string; fileSize?: number } = {},
    ): Promise<UploadedFile> {
      const fileName = options.fileName ?? (isBlob(body) && 'name' in body ? String(body.name) : undefined);
      if (!fileName) throw new TypeError('upload() needs a fileName for a body that is not a File.');
      const type = options.contentType ?? ((isBlob(body) && body.type) || 'application/octet-stream');
      const frame = multipartFrame(fileName, type);
      const url = urlOf(t, '/api/upload');
      const headers = headersFor(t, false, { 'content-type': frame.contentType, accept: 'application/json' });
      const framed = { head: frame.head, body, tail: frame.tail, size: sizeOf(body) ?? options.fileSize };
      const { onProgress, signal } = options;
      const response = await send(
        t,
        url,
        () => sendUpload(t.fetch, { method: 'POST', url, headers, framed, onProgress, signal }),
        {
          signal,
          replayable: !(body instanceof ReadableStream),
        },
      );
      return (await response.json()) as UploadedFile;
    },

    /**
     * Converts an uploaded file, or runs a document operation over uploaded files
     * (`{ operation, fileIds }`); the server answers once the result is ready.
     */
    convert(
      request: ConvertRequest | OperationConvertRequest | UrlConvertRequest,
      { signal }: CallOptions = {},
    ): Promise<ConversionResult> {
      return callJson(t, { method: 'POST', path: '/api/convert', json: request, signal });
    },

    async download(downloadId: string, { signal }: CallOptions = {}): Promise<DownloadedFile> {
      const url = urlOf(t, '/api/download', { id: downloadId });
      const headers = headersFor(t, false);
      const response = await send(t, url, () => t.fetch(url, { headers, signal }), {
        signal,
        idempotent: true,
      });
      return downloadedFile(response, downloadId);
    },

    // ---- Service ----
    formats: ({ signal }: CallOptions = {}) =>
      callJson<FormatsResponse>(t, { method: 'GET', path: '/api/formats', signal }),
    operations: ({ signal }: CallOptions = {}) =>
      callJson<OperationsResponse>(t, { method: 'GET', path: '/api/operations', signal }),
    usage: ({ signal }: CallOptions = {}) =>
      callJson<UsageResponse>(t, { method: 'GET', path: '/api/usage', signal }),
    health: ({ signal }: CallOptions = {}) =>
      callJson<HealthResponse>(t, { method: 'GET', path: '/api/health', signal }),

    /**
     * Flow A end to end: grant, upload, job, wait, download. Throws a FileconvApiError with the
     * job's own error code when the conversion fails.
     */
    async convertFile(
      body: UploadBody,
      options: ConvertFileOptions,
    ): Promise<DownloadedFile & { job: JobView }> {
      const { signal, onProgress } = options;
      const fileSize = sizeOrThrow(body, options.fileSize);
      const contentType = options.contentType ?? ((isBlob(body) && body.type) || 'application/octet-stream');
      const sourceFormat = options.sourceFormat ?? /\.([^./\\]+)$/.exec(options.fileName)?.[1]?.toLowerCase();
      if (!sourceFormat)
        throw new TypeError(`No sourceFormat given and none in the name ${options.fileName}.`);
      const grant = await client.getUploadUrl(
        { fileName: options.fileName, fileSize, contentType },
        { signal },
      );
      await client.uploadContent(grant, body, {
        signal,
        ...(onProgress
          ? { onProgress: (loaded, total) => onProgress({ phase: 'upload', loaded, total }) }
          : {}),
      });
      const { jobId } = await client.createJob(
        {
          fileKey: grant.fileKey,
          sourceFormat,
          targetFormat: options.targetFormat,
          fileSize,
          ...(options.options ? { options: options.options } : {}),
        },
        { signal },
      );
      const job = await client.waitForJob(jobId, {
        signal,
        ...(options.pollIntervalMs === undefined ? {} : { intervalMs: options.pollIntervalMs }),
        ...(onProgress
          ? {
              onProgress: (polled: JobView) =>
                onProgress({ phase: 'convert', status: polled.status, progress: polled.progress }),
            }
          : {}),
      });
      if (job.status !== 'completed' || !job.downloadUrl) throw jobFailure(job);
      return { ...(await fetchSigned(job.downloadUrl, job.outputName, signal)), job };
    },

    /**
     * Captures the web page at `url` as `targetFormat` (pdf, png, jpg, webp) and downloads it:
     * `captureUrl('https://example.com', 'pdf', { options: { paper: 'Letter' } })`. Throws a
     * FileconvApiError with the job's code when it fails (UNSAFE_INPUT, URL_UNREACHABLE...).
     */
    async captureUrl(
      url: string,
      targetFormat: string,
      options: RunOperationOptions = {},
    ): Promise<DownloadedFile & { job: JobView }> {
      const { signal } = options;
      const { jobId } = await client.createJob(
        { url, targetFormat, ...(options.options ? { options: options.options } : {}) },
        { signal },
      );
      return finishJob(jobId, options);
    },

    /**
     * A document operation end to end through Flow A: uploads each file, runs `operation` over
     * them in order, waits, and downloads the result: `runOperation('merge', [a, b])`. Throws a
     * FileconvApiError with the job's own error code when it fails.
     */
    async runOperation(
      operation: string,
      files: readonly OperationFile[],
      options: RunOperationOptions = {},
    ): Promise<DownloadedFile & { job: JobView }> {
      const { signal } = options;
      const fileKeys: string[] = [];
      for (const file of files) {
        const fileSize = sizeOrThrow(file.body, file.fileSize);
        const contentType = file.contentType ?? ((isBlob(file.body) && file.body.type) || 'application/pdf');
        const grant = await client.getUploadUrl(
          { fileName: file.fileName, fileSize, contentType },
          { signal },
        );
        await client.uploadContent(grant, file.body, { signal });
        fileKeys.push(grant.fileKey);
      }
      const { jobId } = await client.createJob(
        { operation, fileKeys, ...(options.options ? { options: options.options } : {}) },
        { signal },
      );
      return finishJob(jobId, options);
    },
  };
  return client;
}

export type FileconvClient = ReturnType<typeof createClient>;
