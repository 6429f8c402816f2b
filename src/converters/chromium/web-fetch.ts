/**
 * The requests a captured web page makes, performed by Node through the kit's one SSRF-safe
 * request (kit/net/safe-request.ts, as webhooks are sent: only http and https, every address
 * checked, the connection pinned to the checked ones); each redirect followed here, its target
 * checked like the first URL. Bodies are inflated here (gzip, deflate, br) and counted as they
 * arrive against a cap per response and one per job.
 *
 * Redirects are followed in Node rather than handed back to the browser: Chromium does not
 * intercept the request that follows a redirect answered by route.fulfill() (it went straight
 * to the network, where the browser's dead proxy stopped it), so the next hop would escape the
 * checks.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { FileconvError } from '../../core/errors.js';
import { BlockedAddressError } from '../../kit/net/addresses.js';
import { checkedAddresses, schemeProblem, sendPinned } from '../../kit/net/safe-request.js';
import { DROPPED_REQUEST_HEADERS } from './request-headers.js';

export interface WebFetchLimits {
  /** Largest body of one response, inflated. */
  maxResponseBytes: number;
  /** Largest sum of every response body of one job, inflated. */
  maxTotalBytes: number;
  /** Redirects followed for one request. */
  maxRedirects: number;
}

export interface WebRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: Buffer | null;
}

export interface WebResponse {
  /** Where the answer came from, after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Response headers not handed to the browser: the body is inflated and whole by then. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-encoding',
  'content-length',
]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function refusedUrl(url: string, reason: string): FileconvError {
  return new FileconvError('UNSAFE_INPUT', `Refused to fetch ${url}: ${reason}.`, {
    details: { engine: 'chromium', url, reason },
  });
}

/** URL_UNREACHABLE; `status` when the server answered, with a status the job refuses. */
export function unreachableUrl(url: string, reason: string, cause?: unknown, status?: number): FileconvError {
  return new FileconvError('URL_UNREACHABLE', `Could not fetch ${url}: ${reason}.`, {
    cause,
    details: { engine: 'chromium', url, reason, ...(status === undefined ? {} : { status }) },
  });
}

function tooLarge(url: string, what: string, limit: number): FileconvError {
  return new FileconvError('INPUT_LIMIT_EXCEEDED', `${what} passed ${limit} bytes while fetching ${url}.`, {
    details: { engine: 'chromium', url, limit },
  });
}

/** Why `message` (a Node network error) failed, in words; the code alone for the rest. */
function networkReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host is unreachable';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Fetches for one job: the caps and the byte count are per fetcher, so make one per job.
 * Errors: UNSAFE_INPUT for a refused scheme or address, URL_UNREACHABLE for DNS, connection,
 * TLS and redirect-loop failures, INPUT_LIMIT_EXCEEDED past a cap, CANCELED-like AbortError
 * when `signal` fires.
 */
export class WebFetcher {
  private fetched = 0;

  constructor(
    private readonly limits: WebFetchLimits,
    private readonly allowPrivateAddresses: boolean,
    private readonly signal: AbortSignal,
    /**
     * Headers the job adds to a request to `url` (its cookies, its extra headers: see
     * capture-credentials.ts); asked again at every redirect hop, so a hop to another host gets
     * only what that host may have. Lower-case names; a cookie joins the browser's own.
     */
    private readonly addHeaders: (url: URL) => Record<string, string> = () => ({}),
  ) {}

  /** Bytes of response bodies fetched so far. */
  get totalBytes(): number {
    return this.fetched;
  }

  async fetch(request: WebRequest): Promise<WebResponse> {
    let current = request;
    for (let hop = 0; ; hop++) {
      const response = await this.once(current);
      const location = response.headers.location;
      if (!REDIRECTS.has(response.status) || location === undefined) return response;
      if (hop >= this.limits.maxRedirects) {
        throw unreachableUrl(request.url, `more than ${this.limits.maxRedirects} redirects`);
      }
      const next = new URL(location, current.url).href;
      // As browsers do: 303, and 301/302 after a POST, turn into a GET without a body.
      const toGet = response.status === 303 || (current.method === 'POST' && response.status < 303);
      current = toGet
        ? { url: next, method: 'GET', headers: withoutBodyHeaders(current.headers), body: null }
        : { ...current, url: next };
    }
  }

  /** The http(s) URL of `raw`, or UNSAFE_INPUT. */
  private checkScheme(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw refusedUrl(raw, 'not an absolute URL');
    }
    const problem = schemeProblem(url);
    if (problem) throw refusedUrl(raw, problem);
    return url;
  }

  /** The URL's checked addresses: UNSAFE_INPUT for a refused one, URL_UNREACHABLE when DNS fails. */
  private async addresses(url: URL) {
    return checkedAddresses(url, this.allowPrivateAddresses).catch((error: unknown) => {
      if (error instanceof BlockedAddressError) throw refusedUrl(url.href, error.reason);
      throw unreachableUrl(url.href, networkReason(error), error);
    });
  }

  /** One request, no redirect followed; the body read (inflated) unless it is a redirect. */
  private async once(request: WebRequest): Promise<WebResponse> {
    const url = this.checkScheme(request.url);
    const addresses = await this.addresses(url);
    const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br' };
    for (const [name, value] of Object.entries(request.headers)) {
      if (!DROPPED_REQUEST_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }
    for (const [name, value] of Object.entries(this.addHeaders(url))) {
      const own = name === 'cookie' ? headers.cookie : undefined;
      headers[name] = own ? `${own}; ${value}` : value;
    }
    const sent = { url, method: request.method, headers, body: request.body ?? null, signal: this.signal };
    const response = await sendPinned(sent, addresses).catch((error: unknown) => {
      throw this.signal.aborted ? error : unreachableUrl(url.href, networkReason(error), error);
    });
    const status = response.statusCode ?? 0;
    const responseHeaders = flattenHeaders(response);
    if (REDIRECTS.has(status) && responseHeaders.location !== undefined) {
      response.destroy();
      return { url: url.href, status, headers: responseHeaders, body: Buffer.alloc(0) };
    }
    const body = await this.readBody(url.href, response);
    return { url: url.href, status, headers: responseHeaders, body };
  }

  /** The inflated body, counted against both caps as it arrives. */
  private async readBody(url: string, response: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    const stream = inflated(response);
    try {
      for await (const chunk of stream) {
        const bytes = chunk as Buffer;
        size += bytes.length;
        this.fetched += bytes.length;
        if (size > this.limits.maxResponseBytes) {
          throw tooLarge(url, 'One response', this.limits.maxResponseBytes);
        }
        if (this.fetched > this.limits.maxTotalBytes) {
          throw tooLarge(url, 'The page and its resources together', this.limits.maxTotalBytes);
        }
        chunks.push(bytes);
      }
    } catch (error) {
      if (error instanceof FileconvError || this.signal.aborted) throw error;
      throw unreachableUrl(url, `the response broke off: ${networkReason(error)}`, error);
    } finally {
      response.destroy();
      stream.destroy();
    }
    return Buffer.concat(chunks);
  }
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !/^content-(type|length|encoding)$/i.test(name)),
  );
}

/** The response's headers as route.fulfill() takes them: one string each (Set-Cookie lines joined by newlines). */
function flattenHeaders(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(name === 'set-cookie' ? '\n' : ', ') : value;
  }
  return headers;
}

/** The body stream, inflated by its Content-Encoding (gzip, deflate, br; identity as it is). */
function inflated(response: IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  const inflater =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!inflater) return response;
  // pipe() does not pass a broken connection on: the reader would wait forever.
  response.on('error', (error) => inflater.destroy(error));
  return response.pipe(inflater);
}
