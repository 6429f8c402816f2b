/**
 * The request body's part of an Idempotency-Key fingerprint, computed while the body streams
 * (nothing is buffered, however large the upload). A multipart body is digested part by part
 * (field name, file name, type, bytes), not byte for byte: a client retrying the same form gets
 * a fresh random boundary from its HTTP library, and that must not make the retry "another
 * request". Any other body is the SHA-256 of its bytes as sent.
 *
 * `teeBody` lets a route read the body while it is digested; `digestWholeBody` reads a retry's
 * body only to compare it, up to a bound, and stores nothing.
 */
import { createHash } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import busboy from 'busboy';
import type { HttpExchange } from './exchange.js';
import { mediaType } from './json-body.js';

/** A digest of everything written to it; `result()` once the body has ended. */
interface Digester {
  write(chunk: Buffer): void;
  /** The digest (a malformed multipart body is digested byte for byte). */
  result(): Promise<string>;
}

/** What a body digest is made of: its length as sent (bounds a retry's read) and its digest. */
export interface BodyDigest {
  rawLength: number;
  digest: string;
}

function rawDigester(): Digester {
  const hash = createHash('sha256');
  return {
    write: (chunk) => hash.update(chunk),
    result: async () => `raw:${hash.digest('hex')}`,
  };
}

/** Parts in order, each as SHA-256(name, file name, type, bytes); the raw digest when parsing fails. */
function multipartDigester(contentType: string): Digester {
  const raw = rawDigester();
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { 'content-type': contentType }, defParamCharset: 'utf8' });
  } catch {
    return raw;
  }
  const parts: Promise<string>[] = [];
  const partHash = (...fields: string[]) => {
    const hash = createHash('sha256');
    for (const field of fields) hash.update(`${field.length}:${field}\n`);
    return hash;
  };
  parser.on('file', (name, stream, info) => {
    const hash = partHash('file', name, info.filename ?? '', info.mimeType);
    parts.push(
      new Promise((resolve) => {
        stream.on('data', (chunk: Buffer) => hash.update(chunk));
        stream.once('end', () => resolve(hash.digest('hex')));
        stream.once('error', () => resolve('broken'));
      }),
    );
  });
  parser.on('field', (name, value) => {
    parts.push(Promise.resolve(partHash('field', name, value).digest('hex')));
  });
  const parsed = new Promise<boolean>((resolve) => {
    parser.once('close', () => resolve(true));
    // Kept on: a write after a parse error errors again, and must not become an uncaught one.
    parser.on('error', () => resolve(false));
  });
  return {
    write(chunk) {
      raw.write(chunk);
      parser.write(chunk);
    },
    async result() {
      parser.end();
      if (!(await parsed)) return raw.result();
      const digests = await Promise.all(parts);
      return `parts:${createHash('sha256').update(digests.join(',')).digest('hex')}`;
    },
  };
}

function digesterFor(exchange: HttpExchange): Digester {
  const contentType = exchange.header('content-type');
  return mediaType(contentType) === 'multipart/form-data' && contentType
    ? multipartDigester(contentType)
    : rawDigester();
}

export interface TeedBody {
  /** The exchange to give the route: the same request, its body read through the digest. */
  exchange: HttpExchange;
  /**
   * After the route answered: the body's digest, or null when the body did not arrive whole. With
   * `readRest`, a body the route left unread is read to its end first (at most `maxWaitMs`).
   */
  finish(readRest: boolean, maxWaitMs?: number): Promise<BodyDigest | null>;
}

/** The exchange with its body passed through a digest on the way to the route. */
export function teeBody(exchange: HttpExchange): TeedBody {
  let raw: Readable | undefined;
  let ended = false;
  let rawLength = 0;
  const digester = digesterFor(exchange);
  const onData = (chunk: Buffer) => {
    rawLength += chunk.length;
    digester.write(chunk);
  };
  let toRoute: PassThrough | undefined;
  const body = (): Readable => {
    if (toRoute) return toRoute;
    const source = exchange.body();
    raw = source;
    const through = new PassThrough();
    toRoute = through;
    source.once('end', () => {
      ended = true;
    });
    // A client that leaves mid-body: the route must see its body break off, as it would the request's.
    source.once('error', (error) => through.destroy(error));
    source.once('close', () => {
      if (!ended) through.destroy(new Error('The request body was cut off.'));
    });
    source.on('data', onData);
    source.pipe(through);
    return through;
  };
  // Everything but the body is the request's own (getters such as `signal` included).
  const teed: HttpExchange = Object.create(exchange, { body: { value: body } });

  return {
    exchange: teed,
    async finish(readRest, maxWaitMs = 5000) {
      // A route that never asked for its body (a POST without one): read it now.
      if (!raw && readRest) body();
      const source = raw;
      if (!source) return null;
      if (toRoute) source.unpipe(toRoute);
      if (!ended && readRest && !source.destroyed) await readToEnd(source, maxWaitMs);
      source.off('data', onData);
      if (!ended) return null;
      return { rawLength, digest: await digester.result() };
    },
  };
}

/** Waits for `source` to end while its 'data' listeners take the rest; false after `maxWaitMs` or a break. */
function readToEnd(source: Readable, maxWaitMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (outcome: boolean) => {
      clearTimeout(timer);
      source.off('end', onEnd);
      source.off('close', onClose);
      source.off('error', onClose);
      resolve(outcome);
    };
    const onEnd = () => done(true);
    const onClose = () => done(false);
    const timer = setTimeout(() => done(false), maxWaitMs);
    timer.unref();
    source.once('end', onEnd);
    source.once('close', onClose);
    source.once('error', onClose);
    source.resume();
  });
}

/**
 * Reads a retry's body only to digest it: null when it is longer than `maxRawBytes` (it then
 * cannot be the first request's body; reading stops there) or breaks off.
 */
export function digestWholeBody(exchange: HttpExchange, maxRawBytes: number): Promise<BodyDigest | null> {
  const source = exchange.body();
  const digester = digesterFor(exchange);
  let rawLength = 0;
  return new Promise((resolve) => {
    const stop = (outcome: BodyDigest | null | Promise<BodyDigest | null>) => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('close', onClose);
      source.off('error', onClose);
      source.pause();
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      rawLength += chunk.length;
      if (rawLength > maxRawBytes) stop(null);
      else digester.write(chunk);
    };
    const onEnd = () => stop(digester.result().then((digest) => ({ rawLength, digest })));
    const onClose = () => stop(null);
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('close', onClose);
    source.once('error', onClose);
    if (source.readableEnded) onEnd();
  });
}
