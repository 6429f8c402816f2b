/**
 * The upload side of the engine, transport-free: Flow A's upload grant and the PUT that fills
 * it, Flow B's direct upload, and reading file records. Bytes always stream into storage with
 * the size enforced while they arrive; a failed upload leaves nothing stored.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { FileconvError, isFileconvError } from '../core/errors.js';
import { assertNotEmpty, emptyFile } from '../core/file-size.js';
import type { FileRecord } from '../core/jobs/types.js';
import { sanitizeFileName } from '../core/names.js';
import type { JobContext } from './engine-context.js';

const UPLOAD_KEY = /^uploads\/([0-9a-f-]{36})$/;

/** The storage key of an upload; the `fileKey` clients pass back in Flow A. */
export function uploadKeyOf(fileId: string): string {
  return `uploads/${fileId}`;
}

/** The file id inside an upload key, or undefined for anything that is not one. */
export function fileIdFromKey(fileKey: string): string | undefined {
  return UPLOAD_KEY.exec(fileKey)?.[1];
}

export interface UploadFileInput {
  /** Account id, or `ip:<address>` for anonymous clients. */
  owner: string;
  /** Client-supplied name; sanitised, kept for display only. */
  fileName: string;
  body: Readable | Uint8Array;
  /** Refuse (FILE_TOO_LARGE) once more bytes than this arrive. */
  maxBytes?: number;
  contentType?: string;
  /** How long the file is kept unused, ms (a plan's uploadRetentionSeconds). Default: the engine's uploadTtlMs. */
  retentionMs?: number;
}

/** Streams an upload into storage and records it (Flow B's upload). Empty files are refused. */
export async function uploadFile(context: JobContext, input: UploadFileInput): Promise<FileRecord> {
  const { storage, jobs } = context;
  const id = randomUUID();
  const key = uploadKeyOf(id);
  const stored = await storage.put(key, input.body, {
    contentType: input.contentType,
    maxBytes: input.maxBytes,
  });
  if (stored.size === 0) {
    await storage.delete(key);
    throw emptyFile();
  }
  const now = context.nowMs();
  const file: FileRecord = {
    id,
    version: 1,
    status: 'uploaded',
    owner: input.owner,
    key,
    fileName: sanitizeFileName(input.fileName),
    size: stored.size,
    contentType: input.contentType ?? 'application/octet-stream',
    createdAt: new Date(now).toISOString(),
    uploadedAt: new Date(now).toISOString(),
    expiresAt: new Date(now + retentionOf(context, input.retentionMs)).toISOString(),
    ...(input.retentionMs === undefined ? {} : { retentionMs: input.retentionMs }),
  };
  try {
    await jobs.createFile(file);
  } catch (error) {
    await storage.delete(key);
    throw error;
  }
  return file;
}

/** An owner's file record; NOT_FOUND also for another owner's id (ids never leak across accounts). */
export async function getFile(context: JobContext, id: string, owner?: string): Promise<FileRecord> {
  const file = await context.jobs.getFile(id);
  if (!file || (owner !== undefined && file.owner !== owner)) {
    throw new FileconvError('NOT_FOUND', 'No such file.', { details: { fileId: id } });
  }
  return file;
}

export interface UploadGrantInput {
  owner: string;
  fileName: string;
  /** Declared size in bytes; the upload must match it exactly. */
  size: number;
  /** Declared MIME type; the upload must be sent with it. */
  contentType: string;
  /** How long the grant stays usable, seconds. */
  expiresInSeconds: number;
  /** How long the uploaded file is then kept unused, ms. Default: the engine's uploadTtlMs. */
  retentionMs?: number;
}

/** Flow A, step 1: a pending file record the client then fills with one PUT. */
export async function createUploadGrant(context: JobContext, input: UploadGrantInput): Promise<FileRecord> {
  if (!Number.isSafeInteger(input.size) || input.size < 0) {
    throw new FileconvError('INVALID_REQUEST', 'fileSize must be a whole number of bytes.');
  }
  // Declared empty: refused as an empty upload is (Flow B), not as a malformed request.
  assertNotEmpty(input.size);
  const id = randomUUID();
  const now = context.nowMs();
  const file: FileRecord = {
    id,
    version: 1,
    status: 'pending',
    owner: input.owner,
    key: uploadKeyOf(id),
    fileName: sanitizeFileName(input.fileName),
    size: input.size,
    contentType: input.contentType,
    createdAt: new Date(now).toISOString(),
    uploadedAt: null,
    expiresAt: new Date(now + input.expiresInSeconds * 1000).toISOString(),
    ...(input.retentionMs === undefined ? {} : { retentionMs: retentionOf(context, input.retentionMs) }),
  };
  await context.jobs.createFile(file);
  return file;
}

export interface ReceiveUploadInput {
  fileId: string;
  body: Readable;
  /** The request's Content-Length, when it sent one: checked before a byte is read. */
  contentLength?: number;
}

/**
 * Flow A, step 2: stores the bytes of a pending upload. Exactly the declared size, once, before
 * the grant expires: SIZE_MISMATCH, ALREADY_UPLOADED or URL_EXPIRED otherwise, storing nothing.
 */
export async function receiveUpload(context: JobContext, input: ReceiveUploadInput): Promise<FileRecord> {
  const { storage, jobs } = context;
  const file = await getFile(context, input.fileId);
  if (file.status === 'uploaded') {
    throw new FileconvError('ALREADY_UPLOADED', 'This file has already been uploaded.', {
      details: { fileId: file.id },
    });
  }
  if (context.nowMs() > Date.parse(file.expiresAt)) {
    throw new FileconvError('URL_EXPIRED', 'The upload URL has expired: ask for a new one.');
  }
  if (input.contentLength !== undefined && input.contentLength !== file.size) {
    throw sizeMismatch(file.size, input.contentLength);
  }
  let stored: { size: number };
  try {
    stored = await storage.put(file.key, input.body, { contentType: file.contentType, maxBytes: file.size });
  } catch (error) {
    if (isFileconvError(error, 'FILE_TOO_LARGE')) throw sizeMismatch(file.size, undefined, error);
    throw error;
  }
  if (stored.size !== file.size) {
    await storage.delete(file.key);
    throw sizeMismatch(file.size, stored.size);
  }
  const uploaded = markedUploaded(context, file);
  try {
    await jobs.updateFile(uploaded);
  } catch (error) {
    // Two PUTs raced on the same grant: the other one recorded the upload first.
    if (isFileconvError(error, 'VERSION_CONFLICT')) {
      throw new FileconvError('ALREADY_UPLOADED', 'This file has already been uploaded.', { cause: error });
    }
    throw error;
  }
  return uploaded;
}

/** How long an upload is kept unused: `requested` (checked) or the engine's uploadTtlMs. */
function retentionOf(context: JobContext, requested: number | undefined): number {
  if (requested === undefined) return context.uploadTtlMs;
  if (!Number.isSafeInteger(requested) || requested < 1) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      'retentionMs must be a positive whole number of milliseconds.',
    );
  }
  return requested;
}

/** The next version of a pending record, now uploaded and kept for its retention from now. */
function markedUploaded(context: JobContext, file: FileRecord): FileRecord {
  const now = context.nowMs();
  return {
    ...file,
    version: file.version + 1,
    status: 'uploaded',
    uploadedAt: new Date(now).toISOString(),
    expiresAt: new Date(now + (file.retentionMs ?? context.uploadTtlMs)).toISOString(),
  };
}

function sizeMismatch(declared: number, actual: number | undefined, cause?: unknown): FileconvError {
  const got = actual === undefined ? 'more' : String(actual);
  return new FileconvError(
    'SIZE_MISMATCH',
    `The upload was declared as ${declared} bytes but ${got} were sent.`,
    {
      details: { declared, ...(actual === undefined ? {} : { actual }) },
      cause,
    },
  );
}

/** Deletes an upload's bytes and record (an owner's only, when `owner` is given). */
export async function deleteFile(context: JobContext, id: string, owner?: string): Promise<void> {
  const file = await getFile(context, id, owner);
  const { storage, jobs } = context;
  // An unfinished resumable upload's bytes live in the storage's own state, not at its key.
  if (file.resumable) await storage.resumable?.abort(file.key, file.resumable.state);
  await storage.delete(file.key);
  await jobs.deleteFile(file.id);
}

/**
 * Flow A with presigning storage (S3): the client PUTs straight to storage, so the engine learns
 * of the upload only when a job asks for the file. A pending record whose object now exists with
 * the declared size becomes `uploaded`; another size is SIZE_MISMATCH (the object is deleted);
 * no object is NOT_UPLOADED. Records that are already uploaded pass through.
 */
export async function confirmUpload(context: JobContext, file: FileRecord): Promise<FileRecord> {
  if (file.status === 'uploaded') return file;
  const { storage, jobs } = context;
  const stored = await storage.head(file.key);
  if (!stored) {
    throw new FileconvError('NOT_UPLOADED', 'The file has not been uploaded yet.', {
      details: { fileId: file.id },
    });
  }
  if (stored.size !== file.size) {
    await storage.delete(file.key);
    throw sizeMismatch(file.size, stored.size);
  }
  const uploaded = markedUploaded(context, file);
  try {
    await jobs.updateFile(uploaded);
    return uploaded;
  } catch (error) {
    // Another node confirmed it first: the stored record is the one to use.
    if (!isFileconvError(error, 'VERSION_CONFLICT')) throw error;
    return getFile(context, file.id);
  }
}
