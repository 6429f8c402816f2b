/**
 * The HTTP API as the page uses it: Flow A (grant, PUT with progress, job, polling), the
 * lists, usage. The API may live on another origin than the page (the service sends CORS):
 * `?api=https://host/mount` or `<html data-api="...">` name it; by default it is the service that
 * served this script, under the same mount path. The API key goes in Authorization only, never
 * in a URL, and never to a presigned upload or download URL (their signature is the credential).
 * The answers' types are the server's own (wire/answers.ts), imported type-only: the bundle gets
 * no zod, and a field the page reads that the server does not send fails `tsc -p src/service/web`.
 */
import type {
  CreateJobResult,
  ErrorEnvelope,
  FormatsResponse,
  JobView,
  OperationsResponse,
  UploadGrant,
  UsageResponse,
} from '../../wire/answers.js';

export interface ApiErrorDetails {
  resetAt?: string;
  retryAfterSeconds?: number;
  plan?: string;
  quota?: string;
  [key: string]: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 0,
    readonly details: ApiErrorDetails = {},
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  maxLength?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

type WireFormat = FormatsResponse['formats'][number];
type WireOperation = OperationsResponse['operations'][number];

// The wire says an options schema is a JSON object; the page reads it as the JSON Schema it is.
export type Target = Omit<WireFormat['targets'][number], 'options'> & { options: JsonSchema | null };
export type Format = Omit<WireFormat, 'targets'> & { targets: Target[] };
export type Operation = Omit<WireOperation, 'options'> & { options: JsonSchema };
export type Job = JobView;
/** A completed job: the server signs a download URL for every one. */
export type CompletedJob = Job & { downloadUrl: string };
export type Usage = UsageResponse;

/** A refusal's envelope as the page reads it: the details it acts on typed (the wire: any JSON object). */
type Refusal = { error?: Omit<ErrorEnvelope['error'], 'details'> & { details?: ApiErrorDetails } };

function apiRoot(): string {
  const configured =
    new URLSearchParams(location.search).get('api') ?? document.documentElement.dataset.api ?? '';
  if (configured) return new URL('api/', configured.endsWith('/') ? configured : `${configured}/`).href;
  return new URL('../api/', import.meta.url).href;
}

const root = apiRoot();
let apiKey = '';

/** The API's address: keys are stored per API, so a link with another ?api= never gets one. */
export const apiAddress = root;

export function setApiKey(key: string): void {
  apiKey = key;
}

function headers(json: boolean): Record<string, string> {
  const all: Record<string, string> = json ? { 'content-type': 'application/json' } : {};
  if (apiKey) all.authorization = `Bearer ${apiKey}`;
  return all;
}

/** An API refusal from a status, its JSON body and its Retry-After header. */
function refusal(status: number, body: unknown, retryAfterHeader: string | null): ApiError {
  // Any body at all: a proxy's error page has no envelope.
  const error = (body as Refusal | null)?.error;
  const retryAfter = Number(retryAfterHeader) || error?.details?.retryAfterSeconds || undefined;
  return new ApiError(
    error?.code ?? 'HTTP',
    error?.message ?? `The server answered ${status}.`,
    status,
    error?.details ?? {},
    retryAfter,
  );
}

async function readJson<T>(response: Response): Promise<T> {
  const body: unknown = await response.json().catch(() => null);
  if (response.ok && body) return body as T;
  throw refusal(response.status, body, response.headers.get('retry-after'));
}

export async function getJson<T>(path: string): Promise<T> {
  return readJson<T>(await fetch(root + path, { headers: headers(false), cache: 'no-store' }));
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return readJson<T>(
    await fetch(root + path, { method: 'POST', headers: headers(true), body: JSON.stringify(body) }),
  );
}

/** PUTs the bytes with XMLHttpRequest, the one browser API that reports upload progress. */
function put(url: string, file: Blob, contentType: string, onProgress: (fraction: number) => void) {
  return new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', contentType);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {}
      reject(refusal(xhr.status, body, xhr.getResponseHeader('retry-after')));
    };
    xhr.onerror = () => reject(new ApiError('NETWORK', 'The upload could not reach the server.'));
    xhr.send(file);
  });
}

/** Grant and PUT of one file; returns its fileKey. */
export async function uploadFile(
  file: File,
  contentType: string,
  onProgress: (fraction: number) => void,
): Promise<string> {
  const grant = await postJson<UploadGrant>('files/get-upload-url', {
    fileName: file.name,
    fileSize: file.size,
    contentType,
  });
  // A local upload URL is relative to the API; a presigned one is absolute.
  await put(new URL(grant.uploadUrl, root).href, file, contentType, onProgress);
  return grant.fileKey;
}

const FINAL_FAILURES = new Set(['failed', 'canceled', 'expired']);

/** Creates a job and polls it until it ends; `onStatus` hears each answer. */
export async function runJob(body: unknown, onStatus: (job: Job) => void = () => {}): Promise<CompletedJob> {
  const { jobId } = await postJson<CreateJobResult>('jobs/create', body);
  let delay = 300;
  for (;;) {
    const job = await getJson<Job>(`jobs/${encodeURIComponent(jobId)}`);
    if (job.status === 'completed' && job.downloadUrl) {
      return { ...job, downloadUrl: new URL(job.downloadUrl, root).href };
    }
    if (job.status === 'completed' || FINAL_FAILURES.has(job.status)) {
      throw new ApiError(
        job.error?.code ?? 'CONVERSION_FAILED',
        job.error?.message ?? `The job was ${job.status}.`,
      );
    }
    onStatus(job);
    await new Promise((done) => setTimeout(done, delay));
    delay = Math.min(delay * 1.5, 2000);
  }
}

/** A finished result's bytes (for the zip). */
export async function fetchResult(url: string): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (!response.ok) throw refusal(response.status, await response.json().catch(() => null), null);
  return response.arrayBuffer();
}
