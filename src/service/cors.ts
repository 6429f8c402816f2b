/**
 * CORS for browser apps that call the API from another origin (off unless `cors` is given).
 * Preflights (OPTIONS with Origin and Access-Control-Request-Method) are answered by the service
 * before routing and access control: a browser sends them without the app's credentials, so
 * they must cost no rate limit and need no key. A plain OPTIONS (tus asks one for the server's
 * capabilities) is no preflight and reaches the routes. Every other answer to a listed origin,
 * errors included, carries Access-Control-Allow-Origin: without it the browser hides a 429 or
 * 413 from the app, which then cannot tell the user why. An origin not listed gets no CORS
 * headers at all, so its browser blocks the answer; its preflight is still a 204, as the `cors`
 * package and Hono's middleware answer it (a 403 tells the browser nothing more).
 */
import { FileconvError } from '../core/errors.js';
import type { HttpAnswer, HttpExchange } from './exchange.js';

export interface CorsOptions {
  /**
   * Origins whose pages may call the API: exact origins ('https://app.example.com', scheme, host
   * and port, no path), or '*' (or ['*']) for any page on the web.
   */
  origins: readonly string[] | '*';
  /**
   * Let pages send cookies or HTTP authentication with their calls (Access-Control-Allow-Credentials).
   * The page's origin is then echoed even with '*', which browsers require. Default false.
   */
  credentials?: boolean;
  /** How long a browser may reuse a preflight answer, seconds. Default 600. */
  maxAgeSeconds?: number;
  /** Request headers pages may send beyond the service's own (Authorization, Idempotency-Key, tus...). Default none. */
  allowHeaders?: readonly string[];
}

/** Methods of the service's routes, the tus protocol's included. */
const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/** Request headers the service and the tus protocol read (the CORS-safelisted ones need no mention). */
const ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'X-Request-ID',
  'Tus-Resumable',
  'Upload-Length',
  'Upload-Metadata',
  'Upload-Offset',
  'Upload-Checksum',
  'Upload-Defer-Length',
  'Upload-Concat',
  'X-HTTP-Method-Override',
];

/** Answer headers a page may read: the service's own and the tus protocol's. */
export const CORS_EXPOSE_HEADERS = [
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'X-Request-ID',
  'Content-Disposition',
  'Location',
  'Upload-Offset',
  'Upload-Length',
  'Upload-Expires',
  'Upload-Metadata',
  'Tus-Version',
  'Tus-Resumable',
  'Tus-Max-Size',
  'Tus-Extension',
].join(', ');

export interface CorsPolicy {
  /** Whether the request is a CORS preflight (answered by `preflight`, never routed). */
  isPreflight(exchange: HttpExchange): boolean;
  /** The 204 answer to a preflight: the allow headers for a listed origin, none for another. */
  preflight(exchange: HttpExchange): HttpAnswer;
  /** Adds the CORS headers an actual request's answer carries (any status) to `headers`. */
  decorate(exchange: HttpExchange, headers: Record<string, string>): void;
}

function invalid(message: string, given: unknown): FileconvError {
  return new FileconvError(
    'INVALID_OPTIONS',
    `fileconv HTTP: cors.${message}, got ${JSON.stringify(given)}.`,
  );
}

/** 'https://App.example.com' -> 'https://app.example.com' (as browsers send it); throws on a path or a non-origin. */
export function normaliseOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw invalid('origins must be origins like "https://app.example.com" (or "*")', origin);
  }
  // A path, query or credentials never appear in an Origin header: such an entry would never match.
  if (url.origin === 'null' || url.pathname !== '/' || url.search || url.hash || url.username) {
    throw invalid('origins must be origins like "https://app.example.com", without a path', origin);
  }
  return url.origin;
}

/** Appends `value` to a Vary header unless it is already named there. */
function addVary(headers: Record<string, string>, value: string): void {
  const vary = headers.vary;
  if (vary === undefined || vary.trim() === '') headers.vary = value;
  else if (!new RegExp(`(^|,)\\s*(${value}|\\*)\\s*(,|$)`, 'i').test(vary))
    headers.vary = `${vary}, ${value}`;
}

/** The policy of `options`; INVALID_OPTIONS naming the field when it cannot be used. */
export function createCorsPolicy(options: CorsOptions): CorsPolicy {
  if (options === null || typeof options !== 'object') throw invalid('must be an object', options);
  const { origins, credentials = false, maxAgeSeconds = 600, allowHeaders = [] } = options;
  if (origins !== '*' && !Array.isArray(origins)) {
    throw invalid('origins must be "*" or an array of origins', origins);
  }
  // ["*"] is "*" (a config file's array, a flag's list of one): any origin. Beside other origins
  // it would make them pointless, which is a mistake to report rather than to guess at.
  const anyOrigin = origins === '*' || (origins.length === 1 && origins[0] === '*');
  if (origins !== '*' && !anyOrigin && origins.includes('*')) {
    throw invalid('origins must be "*" alone or a list of origins, not both', origins);
  }
  const listed = origins === '*' || anyOrigin ? undefined : new Set(origins.map(normaliseOrigin));
  if (!Number.isInteger(maxAgeSeconds) || maxAgeSeconds < 0) {
    throw invalid('maxAgeSeconds must be a non-negative whole number', maxAgeSeconds);
  }
  if (!Array.isArray(allowHeaders) || allowHeaders.some((name) => !/^[\w-]+$/.test(String(name)))) {
    throw invalid('allowHeaders must be an array of header names', allowHeaders);
  }
  const allowHeadersText = [...ALLOW_HEADERS, ...allowHeaders].join(', ');
  // With '*' and no credentials the answer is the same for every origin and caches as one.
  const perOrigin = listed !== undefined || credentials;

  /** The Access-Control-Allow-Origin value for the request's Origin, or undefined (not allowed). */
  function allowedOrigin(origin: string | undefined): string | undefined {
    if (origin === undefined) return undefined;
    if (listed === undefined) return credentials ? origin : '*';
    return listed.has(origin) ? origin : undefined;
  }

  function allowOriginHeaders(origin: string, headers: Record<string, string>): void {
    headers['access-control-allow-origin'] = origin;
    if (credentials) headers['access-control-allow-credentials'] = 'true';
  }

  return {
    isPreflight(exchange) {
      return (
        exchange.method === 'OPTIONS' &&
        exchange.header('origin') !== undefined &&
        exchange.header('access-control-request-method') !== undefined
      );
    },
    preflight(exchange) {
      const headers: Record<string, string> = {};
      if (perOrigin) addVary(headers, 'Origin');
      addVary(headers, 'Access-Control-Request-Method');
      addVary(headers, 'Access-Control-Request-Headers');
      const origin = allowedOrigin(exchange.header('origin'));
      if (origin !== undefined) {
        allowOriginHeaders(origin, headers);
        headers['access-control-allow-methods'] = ALLOW_METHODS;
        headers['access-control-allow-headers'] = allowHeadersText;
        headers['access-control-max-age'] = String(maxAgeSeconds);
      }
      return { status: 204, headers, body: null };
    },
    decorate(exchange, headers) {
      if (perOrigin) addVary(headers, 'Origin');
      const origin = allowedOrigin(exchange.header('origin'));
      if (origin === undefined) return;
      allowOriginHeaders(origin, headers);
      headers['access-control-expose-headers'] = CORS_EXPOSE_HEADERS;
    },
  };
}
