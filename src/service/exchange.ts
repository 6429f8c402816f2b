/**
 * One request and its answer as the framework-neutral HTTP service sees them. Every adapter
 * (node:http, Express, Fastify, the fetch handler for Hono, Next.js, Bun and Deno) turns its
 * native request into an HttpExchange and writes the HttpAnswer back; the routes, access rules,
 * signing, streaming and error mapping are written once against these two shapes.
 *
 * Bodies are Node streams on both sides: busboy, storage uploads and result downloads all speak
 * them, so the Node adapters pass the socket's stream through untouched (no web-stream copy per
 * chunk) and only the fetch adapter converts, once per request.
 */
import type { Readable } from 'node:stream';

export interface HttpExchange {
  /** Upper case, as sent. */
  method: string;
  /**
   * The path below the mount point, still percent-encoded: '/api/health' for
   * `GET /v1/api/health` mounted at '/v1'. Empty for a request to the mount point itself
   * without its trailing slash (`GET /v1`).
   */
  path: string;
  /** Where the service is mounted: '' at the root, '/v1' below a prefix. */
  mountPath: string;
  query: URLSearchParams;
  /** A request header by lower-case name; repeated headers are joined with ', '. */
  header(name: string): string | undefined;
  /** 'http' or 'https' as the runtime received the request (before any proxy's X-Forwarded-Proto). */
  protocol: string;
  /** The peer's socket address (before any proxy), or undefined when the runtime does not tell. */
  remoteAddress: string | undefined;
  /** The request body as a Node stream; the same stream on every call. */
  body(): Readable;
  /**
   * The host's middleware read the body before the service saw it and left nothing the service
   * can use (a parsed form, a stream read to its end): the service answers CONFIG at once rather
   * than wait for bytes that never come. Adapters that can rebuild the body (express.raw's
   * Buffer) give it through `body()` instead.
   */
  bodyTakenByHost?: boolean;
  /** Aborted when the client goes away before its answer is complete. */
  signal: AbortSignal;
  /** The client left while still sending its body: nobody is left to answer. */
  clientGone(): boolean;
  /** The framework's own request object (express.Request, IncomingMessage, Request), for host hooks. */
  raw: unknown;
}

export type AnswerBody = string | Uint8Array | Readable | null;

export interface HttpAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: AnswerBody;
  /** The client left mid-request: the adapter closes the connection instead of answering. */
  gone?: true;
  /** The error code of a refused or failed request, for logs and metrics. */
  code?: string;
}

export function jsonAnswer(status: number, value: unknown, headers: Record<string, string> = {}): HttpAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(value),
  };
}

export function emptyAnswer(status: number, headers: Record<string, string> = {}): HttpAnswer {
  return { status, headers, body: null };
}

/**
 * One query parameter given exactly once; undefined when absent or repeated (a repeated
 * signature or id is never guessed at).
 */
export function singleQueryValue(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}
