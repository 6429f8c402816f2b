/**
 * Errors on the wire: every failure answers `{ "error": { code, message, details? } }` with the
 * status of its code (DESIGN.md section 5). Errors thrown by Express's own parsers and by
 * request validation are translated into the same shape; anything unexpected is a 500 INTERNAL
 * whose details stay in the server log, never in the response.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { ZodError } from 'zod';
import { FileconvError, isFileconvError } from '../../src/errors.js';

/** The FileconvError a request failure stands for. */
export function toHttpError(error: unknown): FileconvError {
  if (isFileconvError(error)) return error;
  const parserType = (error as { type?: unknown } | null)?.type;
  switch (parserType) {
    case 'entity.parse.failed':
      return new FileconvError('INVALID_REQUEST', 'The request body is not valid JSON.', { cause: error });
    case 'entity.too.large':
      return new FileconvError('FILE_TOO_LARGE', 'The request body is too large.', { cause: error });
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.aborted':
    case 'request.size.invalid':
      return new FileconvError('INVALID_REQUEST', 'The request body could not be read.', { cause: error });
  }
  return new FileconvError('INTERNAL', 'Something went wrong on our side.', { cause: error });
}

/** A 400 INVALID_REQUEST listing what failed validation, field by field. */
export function invalidRequest(error: ZodError, what = 'request body'): FileconvError {
  const issues = error.issues.map((issue) => ({ field: issue.path.join('.'), message: issue.message }));
  const summary = issues
    .map((issue) => (issue.field ? `${issue.field}: ${issue.message}` : issue.message))
    .join('; ');
  return new FileconvError('INVALID_REQUEST', `Invalid ${what}: ${summary}.`, {
    details: { issues },
    cause: error,
  });
}

/** Codes whose answer tells the client when to come back (Retry-After from details.retryAfterSeconds). */
const RETRY_LATER = new Set(['RATE_LIMITED', 'QUOTA_EXCEEDED', 'OVERLOADED', 'UNAVAILABLE']);

export function sendError(res: Response, error: FileconvError): void {
  if (RETRY_LATER.has(error.code)) {
    const retryAfter = error.details?.retryAfterSeconds;
    if (typeof retryAfter === 'number') res.set('Retry-After', String(Math.max(0, Math.ceil(retryAfter))));
  }
  res.status(error.status).json({ error: error.toJSON() });
}

/** At most this much of a refused body is read and discarded, for at most this long. */
const DISCARD_BYTES = 8 * 1024 * 1024;
const DISCARD_MS = 2000;

function discardRest(req: Request): void {
  let discarded = 0;
  const cut = () => req.socket.destroy();
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

/** A refused body up to this size is read before the answer is sent (see errorMiddleware). */
const DRAIN_FIRST_BYTES = 1024 * 1024;

/** Reads and discards the rest of `req`; resolves once it ended, or after DISCARD_MS (then it is cut). */
function drain(req: Request): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      req.socket.destroy();
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

/** The router's error middleware. `onError` sees every 5xx with its cause, for the host's log. */
export function errorMiddleware(onError: (error: unknown) => void): ErrorRequestHandler {
  return async (error: unknown, req, res, _next) => {
    // The client went away mid-body (an aborted upload): not a fault of ours, and nobody is
    // left to answer. Whatever the body was being stored into has already cleaned up.
    if (!req.complete && (req.readableAborted || req.socket.destroyed)) {
      req.socket.destroy();
      return;
    }
    const httpError = toHttpError(error);
    if (httpError.status >= 500) onError(error);
    if (res.headersSent) {
      // Mid-stream failure (a download whose storage read broke): all we can do is cut it short.
      req.socket.destroy();
      return;
    }
    // Refused before the body was read (a bad key, a rate limit, too large, a bad signature).
    // A small body is read and dropped first, so the client, still sending it, gets the answer
    // on a connection that stays usable (answering mid-body made fetch fail with EPIPE). A large
    // one is answered at once and the connection closed after; closing a socket with unread
    // data makes the peer's TCP stack drop the answer (a reset), so a bounded amount is read
    // and thrown away after the answer.
    if (!req.complete) {
      const declared = Number(req.get('content-length'));
      if (Number.isFinite(declared) && declared <= DRAIN_FIRST_BYTES) {
        await drain(req);
        if (req.socket.destroyed) return;
      } else {
        res.set('Connection', 'close');
        res.once('finish', () => discardRest(req));
      }
    }
    sendError(res, httpError);
  };
}
