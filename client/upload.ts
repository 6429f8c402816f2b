/**
 * Sending upload bodies with progress, in Node and in browsers.
 *
 * - Node (and Bun): fetch streams a ReadableStream request body (`duplex: 'half'`), so the body
 *   goes out through a counting stream and onProgress sees every chunk as fetch takes it (a little
 *   ahead of the wire: socket buffers). The Content-Length is set whenever the size is known,
 *   because object stores refuse chunked uploads.
 * - Browsers: fetch has no upload progress and streams request bodies only over HTTP/2 in some
 *   engines, so with onProgress the body goes through XMLHttpRequest (real upload events);
 *   without it, through fetch. A ReadableStream body is first collected into a Blob there.
 */
import { isNodeLike } from './http.js';
import type { UploadBody, UploadProgress } from './types.js';

/** Slice size for in-memory bodies, so that progress moves in steps on big buffers. */
const CHUNK_BYTES = 64 * 1024;

export function isBlob(body: unknown): body is Blob {
  return typeof Blob !== 'undefined' && body instanceof Blob;
}

/** Size of a body in bytes; undefined for a stream, which cannot tell. */
export function sizeOf(body: UploadBody): number | undefined {
  if (isBlob(body)) return body.size;
  if (body instanceof ReadableStream) return undefined;
  return body.byteLength;
}

/** What to send: the body, optionally framed (a multipart head and tail); progress counts the body only. */
export interface FramedBody {
  head?: Uint8Array;
  body: UploadBody;
  tail?: Uint8Array;
  /** The body's size in bytes when known (a stream's must be given to send a Content-Length). */
  size: number | undefined;
}

/** The reader of a stream source, held so that a cancel can reach it while a read is pending. */
interface SourceHold {
  reader?: ReadableStreamDefaultReader<Uint8Array>;
}

async function* chunksOf(body: UploadBody, hold: SourceHold): AsyncGenerator<Uint8Array> {
  if (isBlob(body)) {
    yield* chunksOf(body.stream() as ReadableStream<Uint8Array>, hold);
  } else if (body instanceof ReadableStream) {
    const reader = body.getReader();
    hold.reader = reader;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      // Stopped early (abort, server refused): release the caller's source (e.g. a file handle).
      await reader.cancel().catch(() => undefined);
    }
  } else {
    yield body instanceof Uint8Array ? body : new Uint8Array(body);
  }
}

/**
 * The framed body as one stream that reports the body's bytes as they are pulled, and `stop`,
 * which releases the caller's source (fetch does not cancel a request body when it aborts).
 */
function countingStream(framed: FramedBody, onProgress: UploadProgress | undefined) {
  const hold: SourceHold = {};
  async function* all(): AsyncGenerator<Uint8Array> {
    if (framed.head) yield framed.head;
    let loaded = 0;
    onProgress?.(0, framed.size);
    for await (const chunk of chunksOf(framed.body, hold)) {
      // Sources may hand over big blocks (a Blob's stream can be one chunk): slice for progress.
      for (let at = 0; at < chunk.byteLength; at += CHUNK_BYTES) {
        const piece = chunk.byteLength <= CHUNK_BYTES ? chunk : chunk.subarray(at, at + CHUNK_BYTES);
        yield piece;
        loaded += piece.byteLength;
        onProgress?.(loaded, framed.size);
      }
    }
    if (framed.tail) yield framed.tail;
  }
  const chunks = all();
  // A generator busy in a pending read would only queue return(): cancel the source's reader
  // directly, which ends that read and then the generator.
  const stop = async (reason?: unknown) => {
    await hold.reader?.cancel(reason).catch(() => undefined);
    void chunks.return(undefined);
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel: stop,
    },
    // Pull only when fetch asks: progress then follows the upload instead of racing ahead.
    { highWaterMark: 0 },
  );
  return { stream, stop };
}

export interface UploadRequest {
  method: 'PUT' | 'POST';
  url: string;
  headers: Record<string, string>;
  framed: FramedBody;
  onProgress?: UploadProgress | undefined;
  signal?: AbortSignal | undefined;
}

/** Sends an upload and returns the raw response (status not checked; fetch errors thrown as is). */
export async function sendUpload(fetchFn: typeof fetch, request: UploadRequest): Promise<Response> {
  const { framed } = request;
  const xhr = (globalThis as { XMLHttpRequest?: new () => XhrLike }).XMLHttpRequest;
  if (!isNodeLike() && xhr) {
    const parts: Array<Uint8Array | Blob> = [];
    if (framed.head) parts.push(framed.head);
    parts.push(
      framed.body instanceof ReadableStream
        ? await new Response(framed.body).blob()
        : toBlobPart(framed.body),
    );
    if (framed.tail) parts.push(framed.tail);
    const blob = new Blob(parts);
    if (request.onProgress) return viaXhr(xhr, request, blob);
    return fetchFn(request.url, {
      method: request.method,
      headers: request.headers,
      body: blob,
      signal: request.signal,
    });
  }
  const headers = { ...request.headers };
  if (framed.size !== undefined) {
    const frame = (framed.head?.byteLength ?? 0) + (framed.tail?.byteLength ?? 0);
    headers['content-length'] = String(framed.size + frame);
  }
  const { stream, stop } = countingStream(framed, request.onProgress);
  const init: RequestInit & { duplex: 'half' } = {
    method: request.method,
    headers,
    body: stream,
    signal: request.signal,
    // Required by fetch for a streamed request body.
    duplex: 'half',
  };
  const { signal } = request;
  const onAbort = () => void stop(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await fetchFn(request.url, init);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Answered or failed: whatever of the source is left unsent (an early refusal) is not needed.
    await stop();
  }
}

function toBlobPart(body: Blob | ArrayBuffer | Uint8Array): Blob | Uint8Array {
  return body instanceof ArrayBuffer ? new Uint8Array(body) : body;
}

/** The part of XMLHttpRequest used here (the DOM lib is not loaded: the client builds for Node too). */
interface XhrLike {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: Blob): void;
  abort(): void;
  responseType: string;
  response: unknown;
  status: number;
  getAllResponseHeaders(): string;
  upload: { onprogress: ((event: { loaded: number }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}

/** One upload through XMLHttpRequest, for its upload progress events; answers a fetch Response. */
function viaXhr(Xhr: new () => XhrLike, request: UploadRequest, blob: Blob): Promise<Response> {
  const { framed, onProgress, signal } = request;
  const headBytes = framed.head?.byteLength ?? 0;
  const size = framed.size ?? blob.size - headBytes - (framed.tail?.byteLength ?? 0);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const xhr = new Xhr();
    xhr.open(request.method, request.url);
    xhr.responseType = 'blob';
    // Content-Length is the browser's to set.
    for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value);
    const onAbort = () => xhr.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    onProgress?.(0, size);
    // Events count the whole framed body: keep the file's share of it.
    xhr.upload.onprogress = (event) =>
      onProgress?.(Math.min(size, Math.max(0, event.loaded - headBytes)), size);
    xhr.onload = () => {
      signal?.removeEventListener('abort', onAbort);
      if (xhr.status >= 200 && xhr.status < 300) onProgress?.(size, size);
      const headers = new Headers();
      for (const line of xhr
        .getAllResponseHeaders()
        .trim()
        .split(/[\r\n]+/)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      const empty = [204, 205, 304].includes(xhr.status);
      resolve(new Response(empty ? null : (xhr.response as Blob), { status: xhr.status, headers }));
    };
    xhr.onerror = () => reject(new TypeError('XMLHttpRequest failed'));
    xhr.onabort = () => reject(signal?.reason ?? new TypeError('XMLHttpRequest aborted'));
    xhr.send(blob);
  });
}
