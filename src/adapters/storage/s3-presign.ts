/**
 * Checks of presignPut/presignGet options. A presigned URL is handed to an untrusted client, so
 * a malformed type, size, lifetime or file name is refused (INVALID_REQUEST) before anything is
 * signed, within S3's own limits: URLs live at most 7 days, a presigned PUT carries at most 5 GiB.
 */
import { FileconvError } from '../../core/errors.js';

/** S3's limit on a presigned URL's lifetime (SigV4): 7 days. */
export const MAX_EXPIRES_IN = 7 * 24 * 60 * 60;
/** S3's limit on a single PUT, which is what a presigned PUT is. */
export const MAX_SINGLE_PUT_BYTES = 5 * 1024 * 1024 * 1024;
// biome-ignore lint/suspicious/noControlCharactersInRegex: a header value must not carry them.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

export interface PresignPutOptions {
  /** The Content-Type the client must send; signed. */
  contentType: string;
  /** The exact body size in bytes the client must send; signed as Content-Length. */
  size: number;
  /** Seconds the URL stays valid, 1 to 604800 (7 days). */
  expiresIn: number;
}

export interface PresignGetOptions {
  /** Seconds the URL stays valid, 1 to 604800 (7 days). */
  expiresIn: number;
  /** Offered as the download's file name (Content-Disposition: attachment, RFC 5987 for non-ASCII). */
  fileName?: string;
  /** Served as Content-Type instead of the type stored with the object. */
  contentType?: string;
}

function invalid(key: string, option: string, expected: string, given: unknown): FileconvError {
  return new FileconvError('INVALID_REQUEST', `Cannot presign "${key}": "${option}" must be ${expected}.`, {
    details: { key, option, given: String(given).slice(0, 100) },
  });
}

function isHeaderText(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && !CONTROL_CHARACTERS.test(value);
}

function checkExpiresIn(key: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_EXPIRES_IN) {
    throw invalid(key, 'expiresIn', `an integer number of seconds from 1 to ${MAX_EXPIRES_IN}`, value);
  }
  return value;
}

export function checkPresignPut(key: string, options: PresignPutOptions): PresignPutOptions {
  const { contentType, size, expiresIn } = options ?? ({} as PresignPutOptions);
  if (!isHeaderText(contentType)) throw invalid(key, 'contentType', 'a MIME type', contentType);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0 || size > MAX_SINGLE_PUT_BYTES) {
    throw invalid(key, 'size', `an integer number of bytes from 0 to ${MAX_SINGLE_PUT_BYTES} (5 GiB)`, size);
  }
  return { contentType, size, expiresIn: checkExpiresIn(key, expiresIn) };
}

export function checkPresignGet(key: string, options: PresignGetOptions): PresignGetOptions {
  const { expiresIn, fileName, contentType } = options ?? ({} as PresignGetOptions);
  const checked: PresignGetOptions = { expiresIn: checkExpiresIn(key, expiresIn) };
  if (fileName !== undefined) {
    if (!isHeaderText(fileName)) {
      throw invalid(key, 'fileName', 'a non-empty file name without control characters', fileName);
    }
    checked.fileName = fileName;
  }
  if (contentType !== undefined) {
    if (!isHeaderText(contentType)) throw invalid(key, 'contentType', 'a MIME type', contentType);
    checked.contentType = contentType;
  }
  return checked;
}
