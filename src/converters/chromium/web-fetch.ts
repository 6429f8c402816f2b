/**
 * The requests a captured web page makes, performed by Node under the webhooks' SSRF rules
 * (webhooks/addresses.ts): only http and https; the host resolved and every address it resolves
 * to checked (private, loopback, link-local, metadata and other non-public ranges refused); the
 * connection pinned to the checked addresses, so a rebinding DNS answer cannot swap one in; each
 * redirect followed here, its target checked like the first URL. Bodies are inflated here
 * (gzip, deflate, br) and counted as they arrive against a cap per response and one per job.
 *
 * Redirects are followed in Node rather than handed back to the browser: Chromium does not
 * intercept the request that follows a redirect answered by route.fulfill() (it went straight
 * to the network, where the browser's dead proxy stopped it), so the next hop would escape the
 * checks.
 */
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { FileconvError } from '../../core/errors.js';
import { blockedRange, hostOf, pinnedLookup, resolvePublic } from '../../kit/net/addresses.js';

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

/** Request headers not forwarded: the connection's own, and conditionals (a 304 would leave the browser with no body). */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'transfer-encoding',
  'upgrade',
  'te',
  'content-length',
  'accept-encoding',
  'if-none-match',
  'if-modified-since',
  'if-match',
  'if-unmodified-since',
  'if-range',
]);
/** Response headers not handed to the browser: the body is inflated and whole by then. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-encoding',
  'content-length',
]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Cloud metadata services outside the link-local range: AWS's IPv6 endpoint and Alibaba's. They
 * and link-local addresses (169.254.169.254 of AWS, GCP and Azure) stay refused when private
 * addresses are allowed: an intranet page has no business there, and credentials live there.
 */
const METADATA_ADDRESSES = ['fd00:ec2::254', '100.100.100.200'].map((address) =>
  ipaddr.parse(address).toNormalizedString(),
);

function isMetadataAddress(address: string, range: string): boolean {
  // process() reads ::ffff:100.100.100.200 as the IPv4 address it carries.
  return range === 'linkLocal' || METADATA_ADDRESSES.includes(ipaddr.process(address).toNormalizedString());
}

export function refusedUrl(url: string, reason: string): FileconvError {
  return new FileconvError('UNSAFE_INPUT', `Refused to fetch ${url}: ${reason}.`, {
    details: { engine: 'chromium', url, reason },
  });
}

export function unreachableUrl(url: string, reason: string, cause?: unknown): FileconvError {
  return new FileconvError('URL_UNREACHABLE', `Could not fetch ${url}: ${reason}.`, {
    cause,
    details: { engine: 'chromium', url, reason },
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
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw refusedUrl(raw, `the ${url.protocol} scheme is refused (only http and https are fetched)`);
    }
    return url;
  }

  /**
   * Every address of the URL's host, each checked: one refused address among good ones refuses
   * the host (a rebinding server could answer either). Allowing private addresses lifts the
   * rule except for link-local and metadata addresses.
   */
  private async addresses(url: URL) {
    const host = hostOf(url);
    // resolvePublic's own check is the webhooks' wording; the ranges are judged here, by the same blockedRange.
    const resolved = await resolvePublic(host, true).catch((error: unknown) => {
      throw unreachableUrl(url.href, networkReason(error), error);
    });
    for (const { address } of resolved) {
      const range = blockedRange(address);
      if (!range || (this.allowPrivateAddresses && !isMetadataAddress(address, range))) continue;
      const which = address === host ? address : `${host} resolves to ${address}`;
      throw refusedUrl(url.href, `${which}, a ${range} address (only public addresses are fetched)`);
    }
    return resolved;
  }

  /** One request, no redirect followed; the body read (inflated) unless it is a redirect. */
  private async once(request: WebRequest): Promise<WebResponse> {
    const url = this.checkScheme(request.url);
    const addresses = await this.addresses(url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br' };
    for (const [name, value] of Object.entries(request.headers)) {
      if (!DROPPED_REQUEST_HEADERS.has(name.toLowerCase())) headers[name] = value;
    }
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = send(url, {
        method: request.method,
        headers,
        lookup: pinnedLookup(addresses),
        signal: this.signal,
        // No agent: a pooled socket could outlive the check that allowed its address.
        agent: false,
      });
      outgoing.on('response', resolve);
      outgoing.on('error', (error) => {
        if (this.signal.aborted) reject(error);
        else reject(unreachableUrl(url.href, networkReason(error), error));
      });
      outgoing.end(request.body ?? undefined);
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
