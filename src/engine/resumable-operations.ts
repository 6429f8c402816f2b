/**
 * Resumable uploads (the tus protocol's engine side), transport-free: an upload is created with
 * its size, appended to over as many requests as the client needs, and becomes an ordinary
 * uploaded file (key `uploads/<id>`) once its last byte is stored. Between requests the file
 * record holds the offset and the storage's own state (FileRecord.resumable); each append
 * commits the new offset with the record's version check, so two nodes can never both move it.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { FileconvError, isFileconvError } from '../core/errors.js';
import { assertNotEmpty, fileTooLarge } from '../core/file-size.js';
import type { FileRecord } from '../core/jobs/types.js';
import { sanitizeFileName } from '../core/names.js';
import type { ResumableAppendOptions, ResumableUploads } from '../core/ports/index.js';
import type { JobContext } from './engine-context.js';
import { getFile, uploadKeyOf } from './upload-operations.js';

export type ChecksumAlgorithm = NonNullable<ResumableAppendOptions['checksum']>['algorithm'];

export interface CreateResumableInput {
  /** Account id, or `ip:<address>` for anonymous clients. */
  owner: string;
  /** Client-supplied name; sanitised, kept for display only. */
  fileName: string;
  /** The whole upload's size in bytes (tus Upload-Length). */
  size: number;
  contentType: string;
  /**
   * How long the upload is kept unused, ms: unfinished, from its last byte (see
   * unfinishedExpiry), and once finished, from its last byte too. Default: the engine's
   * uploadTtlMs for the finished file, resumableUploadTtlMs for the unfinished one.
   */
  retentionMs?: number;
}

export interface AppendResumableInput {
  fileId: string;
  /** Only this owner's upload: another owner's id is NOT_FOUND, like a missing one. */
  owner: string;
  /** Where the client says its bytes start (tus Upload-Offset): must be the stored offset. */
  offset: number;
  body: Readable;
  /** The request's Content-Length, when it sent one: a body past the size is refused before a byte is read. */
  contentLength?: number;
  checksum?: { algorithm: ChecksumAlgorithm; digest: Buffer };
}

/** Appends running in this process, by file id: a newer append to the same upload stops the older one. */
const appending = new WeakMap<JobContext, Map<string, { stop(): void; done: Promise<unknown> }>>();

function runningAppends(context: JobContext) {
  let map = appending.get(context);
  if (!map) {
    map = new Map();
    appending.set(context, map);
  }
  return map;
}

function resumableOf(context: JobContext): ResumableUploads {
  const { storage } = context;
  if (!storage.resumable) {
    throw new FileconvError('CONFIG', 'The storage does not support resumable uploads (Storage.resumable).');
  }
  return storage.resumable;
}

/**
 * When an unfinished upload whose last bytes arrived at `lastByteAt` expires: the upload's
 * retention after them, so a client that stops sending holds its bytes no longer than a plan
 * keeps a finished upload unused (the plan's byte budget then bounds what one client keeps on
 * disk), but never past resumableUploadTtlMs from its creation, the most an upload may take in
 * all. An upload without a retention of its own (a plan that keeps uploads the engine's default
 * time) has that whole ceiling, counted from its creation.
 */
function unfinishedExpiry(
  context: JobContext,
  file: Pick<FileRecord, 'createdAt' | 'retentionMs'>,
  lastByteAt: number,
): string {
  const idle = lastByteAt + (file.retentionMs ?? context.resumableUploadTtlMs);
  return new Date(Math.min(ceilingOf(context, file), idle)).toISOString();
}

/** The most an unfinished upload may live: resumableUploadTtlMs from its creation, epoch ms. */
function ceilingOf(context: JobContext, file: Pick<FileRecord, 'createdAt'>): number {
  return Date.parse(file.createdAt) + context.resumableUploadTtlMs;
}

/** A pending file record whose bytes will arrive in pieces; expires as unfinishedExpiry says. */
export async function createResumableUpload(
  context: JobContext,
  input: CreateResumableInput,
): Promise<FileRecord> {
  const resumable = resumableOf(context);
  if (!Number.isSafeInteger(input.size) || input.size < 0) {
    throw new FileconvError('INVALID_REQUEST', 'The upload size must be a whole number of bytes.');
  }
  // Declared empty: refused as an empty upload is, not as a malformed request.
  assertNotEmpty(input.size);
  if (
    input.retentionMs !== undefined &&
    (!Number.isSafeInteger(input.retentionMs) || input.retentionMs < 1)
  ) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      'retentionMs must be a positive whole number of milliseconds.',
    );
  }
  const id = randomUUID();
  const key = uploadKeyOf(id);
  const state = await resumable.begin(key, { size: input.size, contentType: input.contentType });
  const now = context.nowMs();
  const createdAt = new Date(now).toISOString();
  const retention = input.retentionMs === undefined ? {} : { retentionMs: input.retentionMs };
  const file: FileRecord = {
    id,
    version: 1,
    status: 'pending',
    owner: input.owner,
    key,
    fileName: sanitizeFileName(input.fileName),
    size: input.size,
    contentType: input.contentType,
    createdAt,
    uploadedAt: null,
    // Creation counts as its first byte: an upload nobody continues goes after its retention.
    expiresAt: unfinishedExpiry(context, { createdAt, ...retention }, now),
    ...retention,
    resumable: { offset: 0, state },
  };
  try {
    await context.jobs.createFile(file);
  } catch (error) {
    await resumable.abort(key, state).catch((cause: unknown) => context.onError(cause, 'resumable'));
    throw error;
  }
  return file;
}

/**
 * An owner's resumable upload, pending or finished (a finished one is a plain uploaded file).
 * A pending upload past its expiry is dropped, bytes and record, and refused: UPLOAD_EXPIRED.
 * A Flow A grant (pending, not resumable) is NOT_FOUND here.
 */
export async function getResumableUpload(
  context: JobContext,
  id: string,
  owner: string,
): Promise<FileRecord> {
  const file = await getFile(context, id, owner);
  if (file.status === 'uploaded') return file;
  if (!file.resumable) throw new FileconvError('NOT_FOUND', 'No such file.', { details: { fileId: id } });
  if (context.nowMs() > Date.parse(file.expiresAt)) {
    await dropResumable(context, file);
    throw new FileconvError(
      'UPLOAD_EXPIRED',
      'The upload has expired: its bytes are gone, start a new upload.',
      {
        details: { fileId: id, expiresAt: file.expiresAt },
      },
    );
  }
  return file;
}

/**
 * Stores the bytes of one tus PATCH at the upload's offset and commits the new offset. A body
 * that ends early (the client dropped) keeps what arrived. A newer append to the same upload
 * in this process stops this one (it then commits what it has): the client gave up on it.
 * With the last byte stored, the upload becomes an `uploaded` file.
 */
export async function appendResumable(context: JobContext, input: AppendResumableInput): Promise<FileRecord> {
  // The owner first: nobody else's request may stop a running append.
  await getFile(context, input.fileId, input.owner);
  const running = runningAppends(context);
  const previous = running.get(input.fileId);
  const controller = new AbortController();
  const stop = () => {
    controller.abort();
    // Ends the body as a dropped connection would: the storage keeps what arrived.
    input.body.destroy();
  };
  // Registered at once, before waiting for the previous append: a third request then stops
  // this one, and appends to one upload never run side by side.
  const done = (async () => {
    if (previous) {
      previous.stop();
      await previous.done.catch(() => {});
    }
    if (controller.signal.aborted) {
      throw new FileconvError('UPLOAD_LOCKED', 'A newer request is appending to this upload.', {
        details: { fileId: input.fileId },
      });
    }
    return appendNow(context, input, controller.signal);
  })();
  const entry = { stop, done };
  running.set(input.fileId, entry);
  try {
    return await done;
  } finally {
    if (running.get(input.fileId) === entry) running.delete(input.fileId);
  }
}

async function appendNow(
  context: JobContext,
  input: AppendResumableInput,
  signal: AbortSignal,
): Promise<FileRecord> {
  const { jobs } = context;
  const resumable = resumableOf(context);
  let file = await getResumableUpload(context, input.fileId, input.owner);
  const stored = file.status === 'uploaded' ? file.size : file.resumable!.offset;
  if (input.offset !== stored) {
    throw new FileconvError('OFFSET_MISMATCH', `The upload is at offset ${stored}, not ${input.offset}.`, {
      details: { fileId: file.id, offset: stored },
    });
  }
  if (input.contentLength !== undefined && input.offset + input.contentLength > file.size) {
    throw tooLarge(file, input.offset + input.contentLength);
  }
  if (file.status === 'uploaded') return file; // an empty PATCH at the end: nothing to do
  const commit = async (changes: Partial<Pick<FileRecord, 'resumable' | 'expiresAt'>>) => {
    const next: FileRecord = { ...file, ...changes, version: file.version + 1 };
    await jobs.updateFile(next);
    file = next;
  };
  // Where the expiry stands once this request ends, at offset `reached`: the retention after the
  // last byte, now, when bytes arrived; where it stood before when none did.
  const before = file.expiresAt;
  const expiryAt = (reached: number) =>
    reached > input.offset ? unfinishedExpiry(context, file, context.nowMs()) : before;
  // While bytes arrive the upload is held to its ceiling, so that a sweep (on any node) never
  // drops it under a request that outlasts the retention; the end of the request sets it back.
  await commit({ expiresAt: new Date(ceilingOf(context, file)).toISOString() });
  let appended: Awaited<ReturnType<ResumableUploads['append']>>;
  try {
    appended = await resumable.append(file.key, file.resumable!.state, input.body, {
      offset: input.offset,
      size: file.size,
      ...(input.checksum ? { checksum: input.checksum } : {}),
      progress: (state, offset) => commit({ resumable: { offset, state } }),
      signal,
    });
  } catch (error) {
    // What progress committed stays (S3's whole parts); the expiry follows it.
    await commit({ expiresAt: expiryAt(file.resumable!.offset) }).catch((cause: unknown) =>
      context.onError(cause, 'resumable'),
    );
    if (isFileconvError(error, 'FILE_TOO_LARGE')) throw tooLarge(file, undefined, error);
    throw error;
  }
  if (appended.offset < file.size) {
    await commit({
      resumable: { offset: appended.offset, state: appended.state },
      expiresAt: expiryAt(appended.offset),
    });
    return file;
  }
  if (appended.offset !== file.resumable!.offset || appended.state !== file.resumable!.state) {
    await commit({ resumable: { offset: appended.offset, state: appended.state } });
  }
  return finish(context, file);
}

/** The last byte is stored: the storage makes it the object, the record becomes an uploaded file. */
async function finish(context: JobContext, file: FileRecord): Promise<FileRecord> {
  await resumableOf(context).complete(file.key, file.resumable!.state);
  const now = context.nowMs();
  const { resumable: _done, ...rest } = file;
  const uploaded: FileRecord = {
    ...rest,
    version: file.version + 1,
    status: 'uploaded',
    uploadedAt: new Date(now).toISOString(),
    // The plan's retention counts from the last byte, as for any other upload.
    expiresAt: new Date(now + (file.retentionMs ?? context.uploadTtlMs)).toISOString(),
  };
  await context.jobs.updateFile(uploaded);
  return uploaded;
}

/** tus termination: drops an unfinished upload's bytes, or deletes a finished one, and its record. */
export async function terminateResumable(context: JobContext, id: string, owner: string): Promise<void> {
  const file = await getFile(context, id, owner);
  if (file.status === 'pending' && !file.resumable) {
    throw new FileconvError('NOT_FOUND', 'No such file.', { details: { fileId: id } });
  }
  const previous = runningAppends(context).get(id);
  if (previous) {
    previous.stop();
    await previous.done.catch(() => {});
  }
  const current = (await context.jobs.getFile(id)) ?? file;
  if (current.status === 'uploaded') {
    await context.storage.delete(current.key);
    await context.jobs.deleteFile(current.id);
    return;
  }
  await dropResumable(context, current);
}

/** Aborts an unfinished upload's stored bytes and deletes its record. */
export async function dropResumable(context: JobContext, file: FileRecord): Promise<void> {
  const { storage, jobs } = context;
  if (file.resumable) await storage.resumable?.abort(file.key, file.resumable.state);
  await jobs.deleteFile(file.id);
}

/** More bytes than the upload declared: `size` is what it would then hold, when the request said. */
function tooLarge(file: FileRecord, size?: number, cause?: unknown): FileconvError {
  return fileTooLarge({
    limit: file.size,
    ...(size === undefined ? {} : { size }),
    setBy: "the upload's declared size",
    cause,
  });
}
