/**
 * Streaming multipart parsing for Flow B's upload, on busboy: the one file in the field `file`
 * flows straight into the handler (and on into storage) without being buffered, and the size
 * limit stops it the moment it is crossed.
 */
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { FileconvError } from '../core/errors.js';
import { fileTooLarge } from '../core/file-size.js';
import type { HttpExchange } from './exchange.js';

export interface IncomingFile {
  stream: Readable;
  fileName: string;
  mimeType: string;
}

export interface MultipartOptions<T> {
  /** Bytes allowed for the file; one more aborts the upload with FILE_TOO_LARGE. */
  maxBytes: number;
  /** Consumes the file stream (e.g. into storage) and returns what the upload produced. */
  onFile(file: IncomingFile): Promise<T>;
  /** Undoes onFile's work when the request fails afterwards (a second file, a broken body). */
  discard(result: T): Promise<void>;
}

/**
 * Reads a multipart request that must carry exactly one file, in the field named `file`.
 * INVALID_REQUEST for anything else (not multipart, no file, two files, a broken body).
 */
export function receiveSingleFile<T>(exchange: HttpExchange, options: MultipartOptions<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const body = exchange.body();
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': exchange.header('content-type') },
        // Browsers, fetch and curl send file names as raw UTF-8 (busboy's default is latin1).
        defParamCharset: 'utf8',
        // One byte over the limit is how we learn the limit was crossed.
        limits: { files: 1, fileSize: options.maxBytes + 1, fields: 20, fieldSize: 64 * 1024, parts: 30 },
      });
    } catch (error) {
      reject(
        new FileconvError(
          'INVALID_REQUEST',
          'Send the file as multipart/form-data in a field named "file".',
          { cause: error },
        ),
      );
      return;
    }

    let handled = false;
    let stored: { result: T } | undefined;
    let closed = false;
    let finished = false;
    let failure: FileconvError | undefined;
    let current: Readable | undefined;

    const finish = (outcome: () => void) => {
      if (finished) return;
      finished = true;
      outcome();
    };
    const fail = (error: FileconvError) => {
      failure ??= error;
      current?.destroy(error);
      if (!handled) finish(() => reject(failure));
    };
    // Settles once the file is stored and the body is fully parsed (to catch a second file).
    const maybeFinish = () => {
      if (!closed || !stored) return;
      const { result } = stored;
      if (!failure) return finish(() => resolve(result));
      const error = failure;
      finish(() => {
        options.discard(result).then(
          () => reject(error),
          () => reject(error),
        );
      });
    };

    parser.on('file', (field, stream, info) => {
      if (finished) {
        stream.resume();
        return;
      }
      if (field !== 'file' || handled) {
        stream.resume();
        fail(
          new FileconvError(
            'INVALID_REQUEST',
            handled ? 'Send one file per upload.' : `Unexpected file field "${field}": use "file".`,
          ),
        );
        return;
      }
      handled = true;
      current = stream;
      // onFile's consumer sees the stream's errors (pipeline and for-await check an already
      // failed stream too); this listener only keeps an error raised while no consumer is
      // attached yet (a storage still preparing when the body breaks off or a second file
      // arrives) from becoming an uncaught exception that takes the process down.
      stream.on('error', () => {});
      stream.on('limit', () => {
        fail(fileTooLarge({ limit: options.maxBytes }));
      });
      options.onFile({ stream, fileName: info.filename ?? 'file', mimeType: info.mimeType }).then(
        (result) => {
          stored = { result };
          maybeFinish();
        },
        (error: unknown) => {
          // Stop reading the body: the response goes out now and the connection is closed.
          body.unpipe(parser);
          finish(() => reject(failure ?? error));
        },
      );
    });
    parser.on('filesLimit', () => fail(new FileconvError('INVALID_REQUEST', 'Send one file per upload.')));
    parser.on('error', (error: unknown) =>
      fail(new FileconvError('INVALID_REQUEST', 'The multipart body is malformed.', { cause: error })),
    );
    parser.on('close', () => {
      closed = true;
      if (!handled)
        finish(() =>
          reject(
            failure ??
              new FileconvError(
                'INVALID_REQUEST',
                'The upload has no file: send it in a field named "file".',
              ),
          ),
        );
      else maybeFinish();
    });
    // A client that goes away mid-upload must not leave the storage write waiting forever.
    body.on('close', () => {
      if (!body.readableEnded) fail(new FileconvError('INVALID_REQUEST', 'The upload was interrupted.'));
    });

    body.pipe(parser);
  });
}
