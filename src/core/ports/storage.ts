/**
 * The Storage port. Keys are made by the engine ('uploads/<uuid>', 'results/<uuid>'),
 * '/'-separated. Every adapter refuses, with INVALID_REQUEST, an empty key, a leading '/', empty
 * '.' or '..' segments, backslashes, control characters, keys over 1024 bytes and segments over
 * 255 bytes. Ranges: an end past the last byte is clamped; a start at or past the end, a negative
 * start or an end before the start is INVALID_REQUEST.
 */
import type { Readable } from 'node:stream';

export interface StoredObjectInfo {
  /** Size in bytes. */
  size: number;
  /** MIME type recorded at put time, if any. */
  contentType?: string;
}

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive; to the end when omitted. */
  end?: number;
}

export interface PutOptions {
  contentType?: string;
  /**
   * Refuse (FILE_TOO_LARGE) and store nothing once more than this many bytes arrive. Enforced
   * while streaming, so an oversized upload never lands whole on disk or in memory.
   */
  maxBytes?: number;
}

export interface Storage {
  /** Streams `body` under `key`, replacing what was there. The object appears atomically. */
  put(key: string, body: Readable | Uint8Array, options?: PutOptions): Promise<StoredObjectInfo>;
  /** A stream of the object's bytes; FileconvError NOT_FOUND when there is none. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size and type, or null when there is no such object. */
  head(key: string): Promise<StoredObjectInfo | null>;
  /** Deletes the object; deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** A URL the client PUTs bytes to directly (S3). Without it, the HTTP adapter signs local URLs. */
  presignPut?(
    key: string,
    options: { contentType: string; size: number; expiresIn: number },
  ): Promise<string>;
  /** A URL the client GETs the object from directly. */
  presignGet?(key: string, options: { expiresIn: number; fileName?: string }): Promise<string>;
  /**
   * Moves the local file at `path` in as the object `key` (the file is gone afterwards), when the
   * storage can do better than streaming it: a rename on the same file system. The worker stores
   * results this way when it can; without it, they are streamed with put().
   */
  putFile?(key: string, path: string, options?: { contentType?: string }): Promise<StoredObjectInfo>;
  /** Local path of the object, when the storage keeps it as a plain file (lets converters skip a copy). */
  localPath?(key: string): Promise<string | null>;
  /** Uploads in pieces (tus, S3 multipart); without it, /api/tus is not offered. */
  resumable?: ResumableUploads;
  /**
   * Multipart uploads the client sends straight to storage through presigned part URLs (S3), so
   * large files never pass through an API node; without it, POST /api/files/multipart answers
   * NOT_FOUND and clients use the single PUT of Flow A or tus.
   */
  presignedMultipart?: PresignedMultipartUploads;
  /** Releases connections or handles. */
  close?(): Promise<void>;
}

/**
 * Where a resumable upload stands inside a storage: JSON the storage alone reads (an S3
 * multipart upload id and its parts, a partial file's name...). The engine keeps it in the file
 * record between requests, so any API node can continue an upload another one began.
 */
export type ResumableState = Readonly<Record<string, unknown>>;

export interface ResumableAppendOptions {
  /** Bytes already stored: where `body` starts. Always the offset of the state given. */
  offset: number;
  /** The upload's whole size: the bytes past it are refused (FILE_TOO_LARGE), nothing kept. */
  size: number;
  /**
   * All or nothing: the bytes of this append are kept only if their digest matches (the tus
   * checksum extension); on a mismatch CHECKSUM_MISMATCH and the state is what it was.
   */
  checksum?: { algorithm: 'sha1' | 'sha256' | 'md5'; digest: Buffer };
  /**
   * Called whenever bytes are durably stored mid-append (after each S3 part), so a crash loses
   * at most one part; never called with a checksum (all or nothing). A throw stops the append.
   */
  progress?: (state: ResumableState, offset: number) => Promise<void>;
  signal?: AbortSignal;
}

/**
 * Uploads that arrive in pieces over many requests (tus): begun with their size, appended to
 * at the offset they have reached, completed into the object at `key`, or aborted. A body that
 * ends early (the client's connection dropped) is not an error: append keeps what arrived, as
 * far as the storage can (S3 keeps whole parts and a tail object), and says where it got to.
 */
export interface ResumableUploads {
  begin(key: string, options: { size: number; contentType: string }): Promise<ResumableState>;
  append(
    key: string,
    state: ResumableState,
    body: Readable,
    options: ResumableAppendOptions,
  ): Promise<{ state: ResumableState; offset: number }>;
  /** Makes the finished upload the object at `key` (all `size` bytes must be stored). */
  complete(key: string, state: ResumableState): Promise<StoredObjectInfo>;
  /** Drops what was stored of an unfinished upload; aborting twice is not an error. */
  abort(key: string, state: ResumableState): Promise<void>;
}

/** One part URL of a presigned multipart upload: PUT exactly that part's bytes to it. */
export interface PresignedPart {
  partNumber: number;
  url: string;
}

/**
 * Multipart uploads done by the client against storage directly (S3 multipart with presigned
 * UploadPart URLs). Part n holds the bytes [(n-1)*partSize, n*partSize); each URL is bound to
 * its part's exact size. The storage keeps nothing between calls: the upload id travels with
 * the client, and the storage itself refuses an id that is not an upload of `key`.
 */
export interface PresignedMultipartUploads {
  /** Starts the upload of `size` bytes (> 0) and signs one PUT URL per part, valid `expiresIn` seconds. */
  presign(
    key: string,
    options: { contentType: string; size: number; expiresIn: number },
  ): Promise<{ uploadId: string; partSize: number; parts: PresignedPart[] }>;
  /**
   * Assembles the parts (ascending part numbers, with the ETag each PUT answered) into the
   * object at `key`. INVALID_REQUEST for parts storage does not have; the caller checks the size.
   */
  complete(
    key: string,
    options: { uploadId: string; parts: readonly { partNumber: number; etag: string }[] },
  ): Promise<StoredObjectInfo>;
  /** Drops the parts of an unfinished upload; aborting twice, or a finished upload, is not an error. */
  abort(key: string, options: { uploadId: string }): Promise<void>;
}
