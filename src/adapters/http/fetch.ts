/**
 * The HTTP service as a web-standard fetch handler (exported from `fileconv/http`),
 * `(request: Request) => Promise<Response>`, for Hono, Next.js route handlers, Bun, Deno and
 * anything else that speaks Request/Response. Requests outside `basePath` or matching no route
 * get a 404 NOT_FOUND (check `response.status` to fall through to your own routes).
 *
 *   const handler = createFetchHandler(engine, { signingSecret, basePath: '/files' });
 *   Bun.serve({ fetch: (request, server) => handler(request, { remoteAddress: server.requestIP(request)?.address }) });
 *
 * A Request does not carry the client's address: pass it as `remoteAddress` where the runtime
 * tells it (Bun's server.requestIP, Deno's info.remoteAddr, @hono/node-server's
 * getConnInfo), or set `trustProxy` behind a proxy that sends X-Forwarded-For. Without either,
 * every anonymous client shares one per-IP budget ('unknown').
 */
import { Readable } from 'node:stream';
import { FileconvError } from '../../core/errors.js';
import type { AnswerBody, HttpAnswer, HttpExchange } from '../../service/exchange.js';
import { errorAnswer } from '../../service/http-errors.js';
import type { HttpService, HttpServiceOptions } from '../../service/service.js';
import type { ServiceEngine } from '../../service/service-engine.js';
import { normalizeBasePath, pathBelow } from './mount.js';
import { mountService } from './service.js';

export { UPLOAD_URL_EXPIRES_IN } from '../../service/route-context.js';
export type {
  Authenticator,
  AuthRequest,
  HttpService,
  HttpServiceOptions,
  RequestEvent,
} from '../../service/service.js';
export { createHttpService } from './service.js';

export interface FetchHandlerOptions extends HttpServiceOptions {
  /** The path the service is mounted at, e.g. '/files'. Default '' (the root). */
  basePath?: string;
}

/** What the runtime knows about the connection that a Request does not carry. */
export interface FetchConnectionInfo {
  /** The peer's IP address. */
  remoteAddress?: string | undefined;
}

export type FetchHandler = (request: Request, connection?: FetchConnectionInfo) => Promise<Response>;

export function createFetchHandler(engine: ServiceEngine, options?: FetchHandlerOptions): FetchHandler {
  // Off unless asked for: the framework around a fetch handler compresses (Next.js, Deno.serve,
  // Hono's compress middleware), and Next.js drops a route's own Content-Encoding header.
  const service = mountService('createFetchHandler', engine, options, (given) => ({
    ...given,
    compression: given.compression ?? false,
  }));
  return fetchHandlerFor(service, options?.basePath);
}

/** The fetch handler of an existing service (one service can back several adapters). */
export function fetchHandlerFor(service: HttpService, basePath?: string): FetchHandler {
  const mountPath = normalizeBasePath(basePath);
  return async (request, connection) => {
    const url = new URL(request.url);
    const path = pathBelow(url.pathname, mountPath);
    const answer =
      path === null
        ? null
        : await service.handle(fetchExchange(request, url, path, mountPath, connection?.remoteAddress));
    if (answer === null)
      return toResponse(service, errorAnswer(new FileconvError('NOT_FOUND', 'No such endpoint.')));
    return toResponse(service, await withSmallBodyRead(service, answer));
  };
}

function fetchExchange(
  request: Request,
  url: URL,
  path: string,
  mountPath: string,
  remoteAddress: string | undefined,
): HttpExchange {
  let body: Readable | undefined;
  return {
    method: request.method.toUpperCase(),
    path,
    mountPath,
    query: url.searchParams,
    header(name) {
      const value = request.headers.get(name);
      if (value !== null) return value;
      return name === 'host' ? url.host : undefined;
    },
    protocol: url.protocol.replace(/:$/, ''),
    remoteAddress,
    body() {
      body ??= requestBody(request);
      return body;
    },
    // A handler in front (a Next.js route that called request.json()) read it: a Request's body reads once.
    ...(request.bodyUsed ? { bodyTakenByHost: true } : {}),
    // Read when a route asks: @hono/node-server makes the signal's AbortController on first use.
    get signal() {
      return request.signal;
    },
    clientGone: () => request.signal.aborted,
    raw: request,
  };
}

/**
 * Bodies up to this many bytes (a declared Content-Length, or a result's size) are read whole
 * rather than streamed: two web-stream conversions per request cost more than the bytes, and
 * @hono/node-server reads a whole body straight from the socket without building a full Request.
 */
const SMALL_BODY_BYTES = 64 * 1024;

/** The declared Content-Length when it is at most SMALL_BODY_BYTES, else undefined. */
function smallLength(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\d{1,6}$/.test(value)) return undefined;
  const length = Number(value);
  return length <= SMALL_BODY_BYTES ? length : undefined;
}

/** The request body as a Node stream: read whole when small (see SMALL_BODY_BYTES), else streamed. */
function requestBody(request: Request): Readable {
  const body =
    smallLength(request.headers.get('content-length')) !== undefined
      ? Readable.from(
          (async function* () {
            const bytes = await request.arrayBuffer();
            if (bytes.byteLength > 0) yield Buffer.from(bytes);
          })(),
          { objectMode: false },
        )
      : request.body
        ? Readable.fromWeb(request.body as import('node:stream/web').ReadableStream<Uint8Array>)
        : Readable.from([]);
  // A client that leaves mid-body fails this stream. Like node:http's IncomingMessage, which
  // emits 'error' only to listeners, that must not take the process down when the consumer has
  // none (busboy's pipe() adds none): consumers see it as a 'close' before the end, or through
  // pipeline and for-await.
  body.on('error', () => {});
  return body;
}

/**
 * An answer whose stream is small (a download of a small result) with its body read into
 * memory, so the Response carries bytes instead of a web stream. A read that fails is reported
 * and answered 500, before any byte was sent.
 */
async function withSmallBodyRead(service: HttpService, answer: HttpAnswer): Promise<HttpAnswer> {
  const { body } = answer;
  if (!(body instanceof Readable) || answer.gone || NO_BODY.has(answer.status)) return answer;
  const length = smallLength(answer.headers['content-length']);
  if (length === undefined) return answer;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > length) throw new Error(`the body is longer than its Content-Length (${length})`);
      chunks.push(chunk);
    }
  } catch (error) {
    body.destroy();
    service.reportError(error);
    const failed = errorAnswer(new FileconvError('INTERNAL', 'Something went wrong on our side.'));
    const requestId = answer.headers['x-request-id'];
    if (requestId !== undefined) failed.headers['x-request-id'] = requestId;
    return failed;
  }
  return { ...answer, body: Buffer.concat(chunks, size) };
}

/** Statuses whose response must not have a body. */
const NO_BODY = new Set([101, 204, 205, 304]);

function toResponse(service: HttpService, answer: HttpAnswer): Response {
  // A Response cannot be withheld: a client that left gets an empty answer nobody reads.
  if (answer.gone) return new Response(null, { status: 400 });
  const body = NO_BODY.has(answer.status) ? destroyed(answer.body) : webBody(service, answer.body);
  return new Response(body, { status: answer.status, headers: answer.headers });
}

function destroyed(body: AnswerBody): null {
  if (body instanceof Readable) body.destroy();
  return null;
}

/**
 * A Node stream as a web stream that pulls one chunk at a time (backpressure), reports a
 * storage failure mid-download, and closes the source when the client cancels.
 */
function webBody(service: HttpService, body: AnswerBody): ConstructorParameters<typeof Response>[0] {
  if (!(body instanceof Readable)) return body;
  const chunks = body[Symbol.asyncIterator]();
  let canceled = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { value, done } = await chunks.next();
          if (done) controller.close();
          else controller.enqueue(value as Uint8Array);
        } catch (error) {
          // A read cut short because the client left is no failure of ours.
          if (!canceled) service.reportError(error);
          controller.error(error);
        }
      },
      cancel() {
        canceled = true;
        body.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}
