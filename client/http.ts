/**
 * The client's transport: URL building, the Authorization and User-Agent headers, JSON calls,
 * and the one retry rule. A 429 (RATE_LIMITED / QUOTA_EXCEEDED) is refused before the server
 * does anything, so any request whose body can be sent again is retried after Retry-After; a 503
 * (OVERLOADED, UNAVAILABLE) is retried for GETs only. Nothing else is retried: a 4xx is the caller's to fix, and
 * a 5xx of a POST may have done its work. A wait longer than maxWaitMs is not worth blocking for
 * (a daily quota's Retry-After is hours), so the error is thrown at once instead.
 */
import { errorFromResponse, networkError } from './errors.js';

export interface RetryOptions {
  /** Retries after a 429 (or a 503 of a GET). Default 3; 0 turns retrying off. */
  maxRetries?: number;
  /** Longest single wait a Retry-After may ask for, ms. Default 60 000. */
  maxWaitMs?: number;
}

export interface Transport {
  baseUrl: string;
  apiKey: string | undefined;
  fetch: typeof fetch;
  retry: Required<RetryOptions>;
  userAgent: string | undefined;
}

/** Wait used when a 429 or 503 has no Retry-After header. */
const DEFAULT_RETRY_AFTER_S = 1;

/** Whether this runtime is Node (or Bun): full fetch, streaming request bodies, User-Agent allowed. */
export function isNodeLike(): boolean {
  const proc = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof proc?.versions?.node === 'string';
}

export function urlOf(transport: Transport, path: string, query?: Record<string, string>): string {
  const url = new URL(transport.baseUrl.replace(/\/+$/, '') + path);
  for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * Headers of an API call. Signed URLs (upload PUT, result GET) get no Authorization: the
 * signature is the credential, and an object store would refuse a second one.
 */
export function headersFor(transport: Transport, signed: boolean, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extra };
  if (!signed && transport.apiKey) headers.authorization = `Bearer ${transport.apiKey}`;
  // Browsers forbid setting User-Agent (and Firefox would make every call preflighted).
  if (transport.userAgent && isNodeLike()) headers['user-agent'] = transport.userAgent;
  return headers;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface SendOptions {
  signal?: AbortSignal | undefined;
  /** The body can be sent again (not a one-shot stream): 429s may be retried. Default true. */
  replayable?: boolean;
  /** The request has no side effects: a 503 (OVERLOADED, UNAVAILABLE) may be retried too. */
  idempotent?: boolean;
}

/**
 * Runs `attempt` (one fetch) until it answers 2xx, retrying as the module comment says; throws
 * a FileconvApiError for any other answer and for a network failure.
 */
export async function send(
  transport: Transport,
  url: string,
  attempt: () => Promise<Response>,
  options: SendOptions = {},
): Promise<Response> {
  const { maxRetries, maxWaitMs } = transport.retry;
  for (let retries = 0; ; retries++) {
    let response: Response;
    try {
      response = await attempt();
    } catch (error) {
      throw networkError(error, options.signal, url);
    }
    if (response.ok) return response;
    const error = await errorFromResponse(response);
    const retryable =
      (options.replayable ?? true) &&
      (response.status === 429 || (response.status === 503 && options.idempotent === true));
    const waitMs = (error.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_S) * 1000;
    if (!retryable || retries >= maxRetries || waitMs > maxWaitMs) throw error;
    await sleep(waitMs, options.signal);
  }
}

export interface JsonCall {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  json?: unknown;
  signal?: AbortSignal | undefined;
}

/** One JSON API call: sends `json` if given, parses the JSON answer as T (trusted: our server). */
export async function callJson<T>(transport: Transport, call: JsonCall): Promise<T> {
  const url = urlOf(transport, call.path, call.query);
  const headers = headersFor(
    transport,
    false,
    call.json === undefined
      ? { accept: 'application/json' }
      : { accept: 'application/json', 'content-type': 'application/json' },
  );
  const body = call.json === undefined ? undefined : JSON.stringify(call.json);
  const response = await send(
    transport,
    url,
    () => transport.fetch(url, { method: call.method, headers, body, signal: call.signal }),
    { signal: call.signal, idempotent: call.method === 'GET' },
  );
  try {
    return (await response.json()) as T;
  } catch (error) {
    throw networkError(error, call.signal, url);
  }
}
