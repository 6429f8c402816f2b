/**
 * The URLs the API hands out: where to PUT an upload and where to GET a result. Storage that
 * can presign (S3) gets its own URLs; otherwise they point back at this router and carry an
 * HMAC signature bound to the file or job, the content type and size, and an expiry.
 */
import { FileconvError } from '../core/errors.js';
import type { FileRecord, Job } from '../core/jobs/types.js';
import type { Storage } from '../core/ports/index.js';
import { sign, verify } from '../core/signing.js';
import { singleQueryValue } from './exchange.js';

export interface LinkSettings {
  storage: Storage | undefined;
  /** Signing key for local URLs, or undefined when storage presigns both ways. */
  key: Buffer | undefined;
  /** Fixed public base URL of the router, or undefined to derive it from each request. */
  publicUrl: string | undefined;
  downloadExpiresIn: number;
  nowSeconds(): number;
}

function requireKey(settings: LinkSettings): Buffer {
  if (!settings.key) {
    throw new FileconvError('INTERNAL', 'The HTTP router has no signingSecret and storage cannot presign.');
  }
  return settings.key;
}

function uploadClaims(file: FileRecord, expires: number) {
  return { purpose: 'upload', id: file.id, expires, bound: [file.contentType.toLowerCase(), file.size] };
}

export async function uploadUrlFor(
  settings: LinkSettings,
  /** The service's public base URL for this request (Call.baseUrl). */
  baseUrl: string,
  file: FileRecord,
  expiresIn: number,
): Promise<string> {
  if (settings.storage?.presignPut) {
    return settings.storage.presignPut(file.key, {
      contentType: file.contentType,
      size: file.size,
      expiresIn,
    });
  }
  const expires = Math.floor(Date.parse(file.expiresAt) / 1000);
  const signature = sign(requireKey(settings), uploadClaims(file, expires));
  return `${baseUrl}/api/files/${file.id}/content?expires=${expires}&signature=${signature}`;
}

/** Checks a local upload URL's query against the file it names. */
export function verifyUploadUrl(settings: LinkSettings, file: FileRecord, query: URLSearchParams): void {
  const expires = Number(singleQueryValue(query, 'expires'));
  verify(
    requireKey(settings),
    uploadClaims(file, Number.isSafeInteger(expires) ? expires : -1),
    singleQueryValue(query, 'signature'),
    settings.nowSeconds(),
  );
}

export async function downloadUrlFor(
  settings: LinkSettings,
  /** The service's public base URL for this request (Call.baseUrl). */
  baseUrl: string,
  job: Job,
): Promise<string | null> {
  if (job.status !== 'completed' || !job.outputKey) return null;
  if (settings.storage?.presignGet) {
    return settings.storage.presignGet(job.outputKey, {
      expiresIn: settings.downloadExpiresIn,
      fileName: job.outputName,
    });
  }
  const resultExpiry = job.expiresAt
    ? Math.floor(Date.parse(job.expiresAt) / 1000)
    : Number.POSITIVE_INFINITY;
  // Rounded up to the minute, so a client polling a finished job gets the same URL (and the
  // server computes its HMAC once) for a minute at a time.
  const expires = Math.min(
    Math.ceil((settings.nowSeconds() + settings.downloadExpiresIn) / 60) * 60,
    resultExpiry,
  );
  const signature = cachedSignature(settings, `${job.id}:${expires}`, () =>
    sign(requireKey(settings), { purpose: 'download', id: job.id, expires }),
  );
  return `${baseUrl}/api/jobs/${job.id}/result?expires=${expires}&signature=${signature}`;
}

const SIGNATURE_CACHE_SIZE = 1000;
/** Per router (per secret): recent download signatures. */
const signatureCaches = new WeakMap<LinkSettings, Map<string, string>>();

/** A small memo of recent download signatures (a Map keeps insertion order: the oldest goes first). */
function cachedSignature(settings: LinkSettings, key: string, compute: () => string): string {
  let signatureCache = signatureCaches.get(settings);
  if (!signatureCache) {
    signatureCache = new Map();
    signatureCaches.set(settings, signatureCache);
  }
  let signature = signatureCache.get(key);
  if (signature === undefined) {
    signature = compute();
    if (signatureCache.size >= SIGNATURE_CACHE_SIZE)
      signatureCache.delete(signatureCache.keys().next().value!);
    signatureCache.set(key, signature);
  }
  return signature;
}

export function verifyDownloadUrl(settings: LinkSettings, jobId: string, query: URLSearchParams): void {
  const expires = Number(singleQueryValue(query, 'expires'));
  verify(
    requireKey(settings),
    { purpose: 'download', id: jobId, expires: Number.isSafeInteger(expires) ? expires : -1 },
    singleQueryValue(query, 'signature'),
    settings.nowSeconds(),
  );
}
