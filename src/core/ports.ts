/**
 * The contracts adapters implement. Each is small on purpose: the required members are what
 * the engine cannot work without, optional members are capabilities the engine uses when
 * present and emulates (or does without) when absent. Conformance suites for every port ship
 * in `fileconv/testing`.
 */
import type { Readable } from 'node:stream';
import type { ZodType } from 'zod';
import type { FormatName } from './formats/types.js';
import type { FileRecord, Job, JobStatus } from './jobs/types.js';

// ---------------------------------------------------------------------------------------------
// Storage
//
// Keys are made by the engine ('uploads/<uuid>', 'results/<uuid>'), '/'-separated. Every adapter
// refuses, with INVALID_REQUEST, an empty key, a leading '/', empty '.' or '..' segments,
// backslashes, control characters, keys over 1024 bytes and segments over 255 bytes.
// Ranges: an end past the last byte is clamped; a start at or past the end, a negative start or
// an end before the start is INVALID_REQUEST.

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

// ---------------------------------------------------------------------------------------------
// Job store
//
// Creating a record whose id exists is INVALID_REQUEST. getJob/getFile return null for any id,
// however odd (never throw, never build a path from it). listJobs orders by createdAt, then id.

export interface JobStore {
  createFile(file: FileRecord): Promise<void>;
  getFile(id: string): Promise<FileRecord | null>;
  /**
   * Replaces the file record if its stored `version` equals `file.version - 1`
   * (the caller bumps the version); otherwise throws VERSION_CONFLICT.
   */
  updateFile(file: FileRecord): Promise<void>;
  deleteFile(id: string): Promise<void>;
  /** Files whose `expiresAt` is before the given instant, soonest first (the upload expiry sweep). */
  listFiles(filter: { expiresBefore: string; limit?: number }): Promise<FileRecord[]>;

  /** Stores a new job; throws INVALID_REQUEST if the id exists. */
  createJob(job: Job): Promise<void>;
  getJob(id: string): Promise<Job | null>;
  /**
   * Replaces the job if its stored `version` equals `job.version - 1`; otherwise throws
   * VERSION_CONFLICT, so two workers can never both move the same job.
   */
  updateJob(job: Job): Promise<void>;
  /** Jobs in any of the given states, oldest first (recovery and expiry sweeps). */
  listJobs(filter: { status: readonly JobStatus[]; limit?: number }): Promise<Job[]>;
  close?(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Queue
//
// enqueue after close rejects; process may be called once; close may be called repeatedly;
// size counts waiting ids, not running ones.

export interface EnqueueOptions {
  /** Higher runs first. Default 0. */
  priority?: number;
  /**
   * True when the job was just created and its id never enqueued before: a queue may then skip
   * whatever it does to tell a repeat of a waiting or running id (the BullMQ queue saves a Redis
   * round trip per new job). Default false.
   */
  firstTime?: boolean;
}

/** What a queue knows about one delivery of an id. */
export interface QueueDelivery {
  /**
   * True when this very entry was handed out before and its handler did not finish (its worker
   * died, or the handler threw); false for a first delivery, including a second entry of an id
   * enqueued again. A durable queue passes it; the engine takes a `processing` job over from
   * another worker only on a redelivery, never because a duplicate entry turned up.
   */
  redelivered: boolean;
}

export type QueueHandler = (jobId: string, delivery?: QueueDelivery) => Promise<void>;

export interface Queue {
  /**
   * True when ids survive a restart of this process and the queue itself redelivers the job of a
   * worker that died (BullMQ's stalled-job check). The engine then leaves `processing` jobs to
   * the queue on start, and a delivery of a `processing` job not running here is a takeover.
   * Default false (the in-process queue: the engine requeues interrupted jobs on start).
   */
  readonly durable?: boolean;
  /** Adds a job id. Delivery is at-least-once: the handler must tolerate a repeat. */
  enqueue(jobId: string, options?: EnqueueOptions): Promise<void>;
  /** Starts delivering ids to `handler`, at most `concurrency` at once. Call once. */
  process(handler: QueueHandler, options?: { concurrency?: number }): void;
  /** Stops taking new ids and waits for running handlers to settle. */
  close(): Promise<void>;
  /** Ids waiting (not running). Optional: used for health and overload decisions. */
  size?(): Promise<number>;
  /**
   * Only for a queue whose ids no other process can take (the in-process queue): whether a
   * handler takes them now (process() was called, close() was not). While it is false a job
   * enqueued there is never converted, so the HTTP service refuses new jobs (UNAVAILABLE) and
   * readiness fails its `worker` check. Leave it out for a shared queue (BullMQ): its workers may
   * run in other processes, which this one cannot see.
   */
  hasHandler?(): boolean;
}

// ---------------------------------------------------------------------------------------------
// Counters (rate limits and quotas)
//
// Windows are computed by the pure policy (src/policy/): a counter key names its window
// ('rate:upload:ip:203.0.113.7:29360160'), so the store only needs an atomic add with an expiry.
// That fits a per-minute rate limit, a UTC day and a calendar month alike, and maps onto Redis
// INCRBY + PEXPIREAT.

export interface CounterStore {
  /**
   * Adds `amount` (negative for a refund) to the counter `key`, creating it at 0 if absent or
   * expired, and returns the new value. The counter disappears at `expiresAt` (epoch ms).
   * Atomic: concurrent increments never lose an update (across processes for shared stores).
   */
  increment(key: string, amount: number, expiresAt: number): Promise<number>;
  /** The counter's current value; 0 when absent or expired. */
  get(key: string): Promise<number>;
  close?(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Idempotency keys (the HTTP service's Idempotency-Key header)
//
// A key is claimed by the one request that runs; the others see it pending (and wait) or done
// (and get its answer). A pending claim holds a lease its runner renews while it works, so a
// claim whose process died is taken over once the lease runs out. The store keeps fingerprints
// and answers as opaque strings: what they mean is the HTTP service's business.

/** What `claim` found. */
export type IdempotencyClaim =
  /** The key was free (or its lease had run out): the caller runs the request. */
  | { state: 'claimed' }
  /** Another request holds the key and is still running; `fingerprint` is the one it claimed with. */
  | { state: 'pending'; fingerprint: string }
  /** The key's request finished: its fingerprint and answer, as given to `complete`. */
  | { state: 'done'; fingerprint: string; answer: string };

export interface IdempotencyStore {
  /**
   * Atomically: when `key` is absent, or pending with an expired lease, records it pending for
   * `token` with `fingerprint` until `leaseMs` from now and answers `claimed`; otherwise answers
   * what the key holds. Across processes for shared stores: of any number of concurrent claims
   * exactly one is `claimed`.
   */
  claim(
    key: string,
    claim: { token: string; fingerprint: string; leaseMs: number },
  ): Promise<IdempotencyClaim>;
  /** Extends the lease of `token`'s pending claim to `leaseMs` from now; false when the claim is no longer its own. */
  renew(key: string, token: string, leaseMs: number): Promise<boolean>;
  /**
   * Turns `token`'s pending claim into a done record (fingerprint and answer) kept for `ttlMs`;
   * false (and nothing changed) when the claim is no longer its own.
   */
  complete(
    key: string,
    done: { token: string; fingerprint: string; answer: string; ttlMs: number },
  ): Promise<boolean>;
  /** Drops `token`'s pending claim (its request failed and may run again); anything else is left alone. */
  release(key: string, token: string): Promise<void>;
  close?(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// API keys

export interface ApiKeyRecord {
  /** Public identifier of the key (safe to log and list); the secret part is never stored. */
  id: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
  accountId: string;
  /** Plan name from the plan table ('plus', 'pro', ...). */
  plan: string;
  /** Free-text label given at creation. */
  label: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface KeyStore {
  /** Stores a new key record; INVALID_REQUEST if its id or hash exists. */
  create(record: ApiKeyRecord): Promise<void>;
  /** The record whose hash this is, or null. Revoked records are returned too (the caller decides). */
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  /** All records, optionally of one account, oldest first. */
  list(filter?: { accountId?: string }): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked (idempotent); NOT_FOUND for an unknown id. Returns the record. */
  revoke(id: string, revokedAt: string): Promise<ApiKeyRecord>;
  close?(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Converters

export interface ConversionEdge {
  from: FormatName;
  to: FormatName;
  /** Relative cost; the graph picks the cheapest path. Rough guide: 1 = a fast in-process re-encode. */
  cost: number;
  /** True when the conversion loses information (re-encoding to a lossy codec, flattening). */
  lossy?: boolean;
  /**
   * True when the step reads its input's sound (a video's soundtrack to mp3, audio to audio): the
   * graph then never routes content that has passed through a format without sound (a PNG, a
   * GIF) into it, since such a chain could only fail. Default false.
   */
  needsAudio?: boolean;
  /**
   * True when the step may only end a chain (OCR: text read out of pixels). The graph plans
   * png -> txt through it, never png -> txt -> pdf. Default false.
   */
  finalOnly?: boolean;
}

export interface ConvertContext {
  inputPath: string;
  outputPath: string;
  from: FormatName;
  to: FormatName;
  /** Options already validated against the converter's schema. */
  options: Record<string, unknown>;
  /** A private directory the converter may write scratch files to; removed by the engine. */
  tempDir: string;
  /** Aborted on timeout or cancel: stop work, kill child processes. */
  signal: AbortSignal;
  /** Reports progress as a fraction in [0, 1]. */
  onProgress(fraction: number): void;
  limits: ConversionLimits;
}

export interface ConversionLimits extends WorkLimits {
  /** Largest image (width x height) a converter may decode. */
  maxPixels: number;
}

/**
 * One conversion's work budgets (a plan's, see Plan), checked from the input's headers before
 * the work starts; INPUT_LIMIT_EXCEEDED past one. Absent: no budget beyond the engine's limits.
 */
export interface WorkLimits {
  /** Pixels the conversion may decode: frames x frame size (animations, video, rendered PDF pages). */
  maxWorkPixels?: number;
  /** Longest audio or video input, seconds. */
  maxMediaSeconds?: number;
  /** Most pages of a PDF read, rendered or written. */
  maxDocumentPages?: number;
}

export interface ConvertResult {
  /** CPU time (user + system) the conversion used, in milliseconds, child processes included. */
  cpuMs?: number;
}

export interface Availability {
  ok: boolean;
  /** What is missing, when not ok. */
  reason?: string;
  /** The command that installs what is missing. */
  install?: string;
  /** Engine version, when known. */
  version?: string;
}

/**
 * What a converter that keeps engine processes (or threads) reports about them, for metrics:
 * the LibreOffice pool's warm workers, the ffmpeg runs in flight. A converter fills in what it
 * knows; a member it cannot tell is left out, never guessed.
 */
export interface ConverterStats {
  /** Engine processes (or worker threads) alive now, idle ones included. */
  processes?: number;
  /** Of those, the ones converting now. */
  busy?: number;
  /** Conversions waiting for a free process. */
  queued?: number;
  /** Processes replaced since the converter was created: recycled, killed (timeout, abort) or died. */
  restarts?: number;
}

/** How a result is wrapped: one file of the target format (undefined) or a zip of several. */
export type OutputPackaging = 'zip';

export interface Converter {
  /** Unique, short: 'sharp', 'ffmpeg', ... */
  name: string;
  edges: readonly ConversionEdge[];
  /** Whether the engine behind it can run here (library importable, binary on PATH). */
  available(): Promise<Availability>;
  /** Schema for the options of a conversion to `to`. Unknown keys must be rejected. */
  optionsSchema?(to: FormatName): ZodType<Record<string, unknown>>;
  /**
   * 'zip' when a conversion to `to` with these (validated) options writes a zip archive of
   * several `to` files instead of one (every page of a PDF as PNG). Only the last step of a
   * chain may package its output; the result is then named and served as a zip.
   */
  packaging?(to: FormatName, options: Record<string, unknown>): OutputPackaging | undefined;
  convert(ctx: ConvertContext): Promise<ConvertResult | undefined>;
  /**
   * Releases what the converter keeps between conversions (worker processes, threads). The
   * engine calls it from its own close(), after running conversions have finished.
   */
  close?(): Promise<void>;
  /**
   * Its engine processes right now (Engine.stats, read on every metrics scrape): synchronous and
   * cheap, no I/O. Undefined when there is nothing to report yet (no engine chosen).
   */
  stats?(): ConverterStats | undefined;
}

// ---------------------------------------------------------------------------------------------
// Document operations
//
// Work on whole documents that is not a change of format: merge N PDFs, split out pages, rotate,
// compress, stamp a watermark, protect with a password. A job runs one operation over its
// inputs, in order, instead of a conversion chain.

export interface OperationContext {
  /** The job's inputs, in the order given, each already checked to be of the operation's input format. */
  inputPaths: readonly string[];
  outputPath: string;
  /** Options already validated against optionsSchema. */
  options: Record<string, unknown>;
  /** A private directory for scratch files; removed by the engine. */
  tempDir: string;
  /** Aborted on timeout or cancel: stop work, kill child processes. */
  signal: AbortSignal;
  limits: ConversionLimits;
}

/** What an operation writes for given options: one file of `format`, or a zip of several. */
export interface OperationOutput {
  format: FormatName;
  packaging?: OutputPackaging;
}

export interface DocumentOperation {
  /** Unique, short, as clients name it: 'merge', 'split', 'rotate', ... */
  name: string;
  /** One line for API descriptions and `GET /api/operations`. */
  description: string;
  /** The format inputs must have ('pdf'); the first input's always. */
  input: FormatName;
  /** The formats input `index` may have, where they differ from `input` (a watermark's image). Default [input]. */
  accepts?(index: number): readonly FormatName[];
  /** How many inputs it takes. */
  minInputs: number;
  maxInputs: number;
  /** Whether the engine behind it can run here. */
  available(): Promise<Availability>;
  /** Schema of its options; unknown keys are rejected. */
  optionsSchema: ZodType<Record<string, unknown>>;
  /** The result's format for these (validated) options. */
  output(options: Record<string, unknown>): OperationOutput;
  /**
   * Checks what the schema cannot see: the options against the number of inputs (a watermark
   * needs its text or an image file). Throws INVALID_OPTIONS; called when the job is created.
   */
  checkInputs?(options: Record<string, unknown>, inputCount: number): void;
  run(ctx: OperationContext): Promise<ConvertResult | undefined>;
  /** Releases what it keeps between runs (worker processes); called by the engine's close(). */
  close?(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Webhook outbox
//
// Deliveries the webhook dispatcher still owes, kept where a restart cannot lose them. A
// delivery is due at `dueAt`; claiming due deliveries moves their `dueAt` a lease ahead, so two
// dispatchers (API nodes and workers of one deployment) never send the same attempt, and a
// dispatcher that dies mid-attempt leaves its deliveries due again once the lease ends.

export type WebhookEventType = 'job.completed' | 'job.failed' | 'job.canceled';

export interface WebhookDelivery {
  /** Delivery id, the same on every attempt (the receiver dedupes by it). */
  id: string;
  jobId: string;
  type: WebhookEventType;
  url: string;
  /** The JSON body, fixed when the delivery is made (signed anew on each attempt). */
  body: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due, epoch ms. */
  dueAt: number;
  /** Why the last attempt failed, when one did. */
  lastError: string | null;
}

export interface WebhookOutbox {
  /** Stores a new delivery; INVALID_REQUEST if its id exists. Resolves once it would survive a crash. */
  add(delivery: WebhookDelivery): Promise<void>;
  /**
   * Up to `limit` deliveries due at `now` (dueAt <= now), soonest first, each claimed by moving
   * its dueAt to `now + leaseMs`. Concurrent claims never return the same delivery.
   */
  claimDue(now: number, leaseMs: number, limit: number): Promise<WebhookDelivery[]>;
  /** Saves an attempt's outcome and when to try again; a delivery no longer stored is not stored again. */
  reschedule(delivery: WebhookDelivery): Promise<void>;
  /** Forgets a settled delivery (delivered or given up); removing a missing one is not an error. */
  remove(id: string): Promise<void>;
  close?(): Promise<void>;
}
