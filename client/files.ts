/** Small pieces around file bodies: multipart framing for Flow B, and reading a download's answer. */
import type { DownloadedFile } from './types.js';

const encoder = new TextEncoder();

/**
 * The head and tail of a multipart/form-data body with one field `file`, built by hand so that
 * the file itself can be streamed (and counted) between them, in Node and in browsers alike.
 */
export function multipartFrame(fileName: string, contentType: string) {
  const boundary = `----fileconv${crypto.randomUUID().replace(/-/g, '')}`;
  // What browsers do (HTML's multipart/form-data encoding): escape only ", CR and LF; the rest is raw UTF-8.
  const quoted = fileName.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const safeType = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/.test(contentType)
    ? contentType
    : 'application/octet-stream';
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: encoder.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted}"\r\nContent-Type: ${safeType}\r\n\r\n`,
    ),
    tail: encoder.encode(`\r\n--${boundary}--\r\n`),
  };
}

/** The download name of a Content-Disposition header: filename* (RFC 6266/8187) first, then filename. */
export function fileNameOf(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;\s]+)/i.exec(header);
  if (extended?.[2]) {
    try {
      return decodeURIComponent(extended[2]);
    } catch {
      // A malformed escape: fall through to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:\\.|[^"\\])*)"|([^;\s]+))/i.exec(header);
  if (plain?.[1] !== undefined) return plain[1].replace(/\\(.)/g, '$1');
  if (plain?.[2] !== undefined) return plain[2];
  return fallback;
}

/** A 2xx download answer as the client hands it out; the caller owns (and must read or cancel) the stream. */
export function downloadedFile(response: Response, fallbackName: string): DownloadedFile {
  const length = response.headers.get('content-length');
  const size = length !== null && /^\d+$/.test(length) ? Number(length) : null;
  return {
    stream: response.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() }),
    fileName: fileNameOf(response.headers.get('content-disposition'), fallbackName),
    contentType: response.headers.get('content-type') ?? 'application/octet-stream',
    size,
  };
}
