/**
 * `fileconv/http/node`: the HTTP service as a plain `node:http` request listener, the fastest
 * way to serve it (no framework, no web-stream copies) and the base of the Express and Fastify
 * adapters. `createNodeHandler(engine, options)` answers every route of the service under
 * `basePath`; anything else gets the host's `next()` when one is given (Connect-style
 * middleware), or a 404 NOT_FOUND.
 *
 *   import { createServer } from 'node:http';
 *   createServer(createNodeHandler(engine, { signingSecret, basePath: '/files' })).listen(3000);
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { TLSSocket } from 'node:tls';
import { FileconvError } from '../../core/errors.js';
import type { HttpAnswer, HttpExchange } from '../../service/exchange.js';
import { errorAnswer } from '../../service/http-errors.js';
import type { HttpService, HttpServiceOptions } from '../../service/service.js';
import type { ServiceEngine } from '../../service/service-engine.js';
import { hostReadBodyOf } from './host-read-body.js';
import { normalizeBasePath, pathBelow } from './mount.js';
import { mountService } from './service.js';

export type { HttpService, HttpServiceOptions, RequestEvent } from '../../service/service.js';
export { createHttpService } from './service.js';

export interface NodeHandlerOptions extends HttpServiceOptions {
  /** The path the service is mounted at, e.g. '/files'. Default '' (the root). */
  basePath?: string;
}

/** A `node:http` request listener that also works as Connect/Express middleware. */
export type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

export function createNodeHandler(engine: ServiceEngine, options?: NodeHandlerOptions): NodeHandler {
  const service = mountService('createNodeHandler', engine, options);
  const basePath = normalizeBasePath(options?.basePath);
  return (req, res, next) => {
    const split = splitUrl(req.url ?? '/');
    const path = pathBelow(split.pathname, basePath);
    if (path === null) {
      notOurs(res, next);
      return;
    }
    void serveNode(
      service,
      nodeExchange(req, res, { path, mountPath: basePath, search: split.search }),
      res,
      next,
    );
  };
}

function splitUrl(url: string): { pathname: string; search: string } {
  const at = url.indexOf('?');
  return at === -1
    ? { pathname: url, search: '' }
    : { pathname: url.slice(0, at), search: url.slice(at + 1) };
}

function notOurs(res: ServerResponse, next: ((error?: unknown) => void) | undefined): void {
  if (next) {
    next();
    return;
  }
  const answer = errorAnswer(new FileconvError('NOT_FOUND', 'No such endpoint.'));
  res.writeHead(answer.status, answer.headers).end(answer.body);
}

/** The exchange of a Node request; `path` and `mountPath` as the adapter resolved them. */
export function nodeExchange(
  req: IncomingMessage,
  res: ServerResponse,
  where: { path: string; mountPath: string; search: string; protocol?: string; raw?: unknown },
): HttpExchange {
  // Made when a route asks (most never do: an AbortController and a listener per request were
  // ~3% of a status request's CPU). 'close' before the answer was finished: the client went away.
  let gone: AbortController | undefined;
  const signal = (): AbortSignal => {
    if (!gone) {
      const controller = new AbortController();
      gone = controller;
      if (res.closed) {
        if (!res.writableFinished) controller.abort();
      } else {
        res.once('close', () => {
          if (!res.writableFinished) controller.abort();
        });
      }
    }
    return gone.signal;
  };
  const hostBody = hostReadBodyOf(req);
  return {
    method: req.method ?? 'GET',
    path: where.path,
    mountPath: where.mountPath,
    query: new URLSearchParams(where.search),
    header:
      hostBody.kind === 'kept'
        ? (name) => keptBodyHeader(req, hostBody.bytes, name)
        : (name) => header(req, name),
    protocol: where.protocol ?? ((req.socket as TLSSocket).encrypted ? 'https' : 'http'),
    remoteAddress: req.socket.remoteAddress,
    body: hostBody.kind === 'kept' ? keptBody(hostBody.bytes) : () => req,
    ...(hostBody.kind === 'taken' ? { bodyTakenByHost: true } : {}),
    get signal() {
      return signal();
    },
    clientGone: () => !req.complete && (req.readableAborted || req.socket.destroyed),
    raw: where.raw ?? req,
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The headers of a body a host's parser kept: its bytes are decoded and whole, whatever was sent. */
function keptBodyHeader(req: IncomingMessage, bytes: Buffer, name: string): string | undefined {
  if (name === 'content-length') return String(bytes.length);
  if (name === 'content-encoding' || name === 'transfer-encoding') return undefined;
  return header(req, name);
}

/** The body a host's parser kept, as the one stream every call of `body()` returns. */
function keptBody(bytes: Buffer): () => Readable {
  let stream: Readable | undefined;
  return () => {
    stream ??= Readable.from(bytes.length > 0 ? [bytes] : [], { objectMode: false });
    return stream;
  };
}

/**
 * Runs one request through the service and writes its answer. Used by every Node adapter; a
 * request no route matches goes to `next` (or gets a 404).
 */
export async function serveNode(
  service: HttpService,
  exchange: HttpExchange,
  res: ServerResponse,
  next?: (error?: unknown) => void,
): Promise<void> {
  const { req } = res;
  let answer: HttpAnswer | null;
  try {
    answer = await service.handle(exchange);
  } catch (error) {
    // handle() answers every failure itself; this is a bug, not a request problem.
    service.reportError(error);
    answer = errorAnswer(new FileconvError('INTERNAL', 'Something went wrong on our side.'));
  }
  if (answer === null) {
    notOurs(res, next);
    return;
  }
  if (answer.gone) {
    // The socket may be gone already (Node detaches it once closed).
    req.socket?.destroy();
    return;
  }
  await writeAnswer(service, req, res, answer);
}

async function writeAnswer(
  service: HttpService,
  req: IncomingMessage,
  res: ServerResponse,
  answer: HttpAnswer,
) {
  const { body } = answer;
  if (!req.complete) {
    // Answered before the body was read (a bad key, a rate limit, too large, a bad signature).
    // A small body is read and dropped first, so the client, still sending it, gets the answer
    // on a connection that stays usable (answering mid-body made fetch fail with EPIPE). A large
    // one is answered at once and the connection closed after; closing a socket with unread
    // data makes the peer's TCP stack drop the answer (a reset), so a bounded amount is read
    // and thrown away after the answer.
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared <= DRAIN_FIRST_BYTES) {
      await drain(req);
      if (req.socket?.destroyed ?? true) {
        if (body instanceof Readable) body.destroy();
        return;
      }
    } else {
      answer.headers.connection = 'close';
      res.once('finish', () => discardRest(req));
    }
  }
  if (!(body instanceof Readable)) {
    res.writeHead(answer.status, answer.headers).end(body ?? undefined);
    return;
  }
  res.writeHead(answer.status, answer.headers);
  try {
    await pipeline(body, res);
  } catch (error) {
    // The client went away mid-download: nothing failed on our side, and nobody is left to answer.
    if (
      res.destroyed &&
      !res.writableFinished &&
      (error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE'
    )
      return;
    // Mid-stream failure (a download whose storage read broke): all we can do is cut it short.
    service.reportError(error);
    req.socket?.destroy();
  }
}

/** A refused body up to this size is read before the answer is sent. */
const DRAIN_FIRST_BYTES = 1024 * 1024;
/** At most this much of a refused body is read and discarded, for at most this long. */
const DISCARD_BYTES = 8 * 1024 * 1024;
const DISCARD_MS = 2000;

function discardRest(req: IncomingMessage): void {
  let discarded = 0;
  const cut = () => req.socket?.destroy();
  const timer = setTimeout(cut, DISCARD_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_BYTES) cut();
  });
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

/** Reads and discards the rest of `req`; resolves once it ended, or after DISCARD_MS (then it is cut). */
function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      req.socket?.destroy();
      resolve();
    }, DISCARD_MS);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    req.once('end', done);
    req.once('close', done);
    req.resume();
  });
}
