/**
 * What a host's middleware left of a Node request's body. Most Express apps run `express.json()`
 * (or `.raw()`, `.urlencoded()`, multer) on every request before the router fileconv is mounted
 * in; those read the stream to its end, and a service that then waits on the stream waits
 * forever. What such a parser kept is used where it still says what the client sent: a Buffer
 * (express.raw) as it is, a parsed JSON body (express.json) written back as JSON. Anything else
 * is "taken": the service refuses it with CONFIG at once (HttpExchange.bodyTakenByHost).
 */
import type { IncomingMessage } from 'node:http';
import { isJsonType } from '../../service/json-body.js';

export type HostReadBody =
  /** Nobody read it: the service streams it from the socket. */
  | { kind: 'unread' }
  /** The host read it and kept these bytes (decoded: body parsers undo any Content-Encoding). */
  | { kind: 'kept'; bytes: Buffer }
  /** The host read it into something the service cannot read back (a form's fields, files). */
  | { kind: 'taken' };

/** The request as body parsers leave it: `body` (body-parser, multer), `_body` (body-parser 1.x). */
type ParsedRequest = IncomingMessage & { body?: unknown; _body?: unknown };

const UNREAD: HostReadBody = { kind: 'unread' };
const TAKEN: HostReadBody = { kind: 'taken' };
const NOTHING: HostReadBody = { kind: 'kept', bytes: Buffer.alloc(0) };

export function hostReadBodyOf(req: IncomingMessage): HostReadBody {
  const parsed = req as ParsedRequest;
  if (!req.readableDidRead && !req.readableEnded && parsed._body !== true) return UNREAD;
  if (Buffer.isBuffer(parsed.body)) return { kind: 'kept', bytes: parsed.body };
  // A request without a body that some middleware read anyway (req.resume()) lost nothing.
  if (!declaresBody(req)) return NOTHING;
  if (isJsonType(req.headers['content-type']) && typeof parsed.body === 'object' && parsed.body !== null) {
    return { kind: 'kept', bytes: Buffer.from(JSON.stringify(parsed.body), 'utf8') };
  }
  return TAKEN;
}

function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
}
