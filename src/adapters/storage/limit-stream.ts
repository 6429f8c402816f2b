/**
 * Counting and size-limiting of a body while it streams, shared by storage adapters: an
 * oversized upload is refused at the first byte over the limit, never after landing whole.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { FileconvError } from '../../core/errors.js';
import { fileTooLarge } from '../../core/file-size.js';

/** Validates the `maxBytes` put option: undefined (no limit) or a non-negative integer. */
export function checkMaxBytes(maxBytes: unknown): number | undefined {
  if (maxBytes === undefined) return undefined;
  if (typeof maxBytes !== 'number' || !Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new FileconvError('INVALID_REQUEST', 'The put option "maxBytes" must be a non-negative integer.', {
      details: { maxBytes: String(maxBytes) },
    });
  }
  return maxBytes;
}

/** Validates the `contentType` put option: undefined or a non-empty string without control characters. */
export function checkContentType(contentType: unknown): string | undefined {
  if (contentType === undefined) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a header value must not carry them.
  if (typeof contentType !== 'string' || contentType === '' || /[\u0000-\u001f\u007f]/.test(contentType)) {
    throw new FileconvError('INVALID_REQUEST', 'The put option "contentType" must be a non-empty string.', {
      details: { contentType: String(contentType) },
    });
  }
  return contentType;
}

/**
 * Passes bytes through, counting them in `bytes`; errors with FILE_TOO_LARGE as soon as the
 * count passes `maxBytes`. In a pipeline that error destroys the source and the destination.
 */
export class ByteLimitStream extends Transform {
  bytes = 0;

  constructor(private readonly maxBytes: number | undefined) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.maxBytes !== undefined && this.bytes > this.maxBytes) {
      callback(fileTooLarge({ limit: this.maxBytes }));
      return;
    }
    callback(null, chunk);
  }
}
