/**
 * JSON request bodies, read the way Express's `express.json({ limit: '64kb' })` read them before
 * the HTTP layer became framework-neutral, so no client sees a difference: only a body declared
 * `application/json` (or `+json`) is read (any other is treated as absent and fails validation);
 * gzip, deflate and br bodies are inflated; the limit applies to the inflated bytes; the
 * top level must be an object or an array; an empty body is `{}`.
 */
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { FileconvError } from '../core/errors.js';
import type { HttpExchange } from './exchange.js';

export const JSON_BODY_LIMIT = 64 * 1024;

const unreadable = (cause?: unknown) =>
  new FileconvError('INVALID_REQUEST', 'The request body could not be read.', { cause });
const tooLarge = (limit: number) =>
  new FileconvError(
    'REQUEST_TOO_LARGE',
    `The request body is larger than the ${Math.round(limit / 1024)} KiB this endpoint reads.`,
  );

/** `application/json; charset=utf-8` -> `application/json`, lowercase; '' when absent. */
export function mediaType(value: string | undefined): string {
  return (value ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Whether a Content-Type declares JSON (`application/json` or any `+json`). */
export function isJsonType(contentType: string | undefined): boolean {
  const type = mediaType(contentType);
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function decoded(body: Readable, encoding: string): Readable {
  switch (encoding) {
    case '':
    case 'identity':
      return body;
    case 'gzip':
    case 'x-gzip':
      return body.pipe(createGunzip());
    case 'deflate':
      return body.pipe(createInflate());
    case 'br':
      return body.pipe(createBrotliDecompress());
    default:
      throw new FileconvError('INVALID_REQUEST', `The content encoding "${encoding}" is not supported.`);
  }
}

/** Form bodies: what a client sends when it takes a JSON endpoint for an upload (`curl -F`). */
const FORM_TYPES = new Set(['multipart/form-data', 'application/x-www-form-urlencoded']);

/**
 * The parsed JSON body, `undefined` when the request does not declare JSON (it is then not
 * read). A form is refused with a message that says what the endpoint reads, and `formHint`
 * (what to do instead, e.g. upload first), since the field-by-field validation errors a form
 * would otherwise get do not say that the whole body is of the wrong kind.
 */
export async function readJsonBody(
  exchange: HttpExchange,
  limit = JSON_BODY_LIMIT,
  formHint?: string,
): Promise<unknown> {
  const contentType = exchange.header('content-type');
  if (FORM_TYPES.has(mediaType(contentType))) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `This endpoint reads a JSON body (Content-Type: application/json), not ${mediaType(contentType)}.${formHint ? ` ${formHint}` : ''}`,
      { details: { expected: 'application/json' } },
    );
  }
  if (!isJsonType(contentType)) return undefined;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new FileconvError('INVALID_REQUEST', `The charset "${charset}" is not supported: send UTF-8.`);
  }
  const declared = Number(exchange.header('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);

  const raw = exchange.body();
  const stream = decoded(raw, (exchange.header('content-encoding') ?? '').trim().toLowerCase());
  const bytes = await collect(stream, limit).finally(() => {
    // An inflater is ours to close; the request stream is not: left unread, the adapter can
    // still drain it and answer on the same connection.
    if (stream !== raw) stream.destroy();
  });
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const first = /\S/.exec(text)?.[0];
  if (first === undefined) return {};
  if (first !== '{' && first !== '[') {
    throw new FileconvError('INVALID_REQUEST', 'The request body is not valid JSON.');
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new FileconvError('INVALID_REQUEST', 'The request body is not valid JSON.', { cause });
  }
}

/** Reads `stream` to the end, up to `limit` bytes; stops listening (without destroying it) on failure. */
function collect(stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      stream.pause();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        reject(tooLarge(limit));
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: unknown) => {
      stop();
      reject(error instanceof FileconvError ? error : unreadable(error));
    };
    // A client that leaves mid-body: 'close' without 'end'.
    const onClose = () => onError(unreadable());
    stream.on('data', onData);
    stream.once('close', onClose);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}
