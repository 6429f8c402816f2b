/**
 * Signatures of webhook deliveries, for the sender and for receivers. The header is
 * `Fileconv-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + rawBody)>`:
 * signing the timestamp with the body lets a receiver refuse replays of an old delivery by
 * checking the timestamp's age. Pure (node:crypto only) so receivers can import it from the core.
 * Deprecated: deliveries also carry the Standard Webhooks headers (standard-webhooks.ts), which
 * any Standard Webhooks library verifies; this header is sent for one more release.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { FileconvError } from './errors.js';

/** The header carrying the signature. @deprecated Verify the Standard Webhooks headers instead. */
export const WEBHOOK_SIGNATURE_HEADER = 'Fileconv-Signature';

type Bytes = string | Uint8Array;

function hmacHex(secret: Bytes, timestampSeconds: number, body: Bytes): string {
  return createHmac('sha256', secret)
    .update(`${timestampSeconds}.`)
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('hex');
}

/**
 * The Fileconv-Signature header value for `body` sent at `timestampSeconds`.
 * @deprecated Deliveries carry Standard Webhooks headers: verify those (the `standardwebhooks` library).
 */
export function signWebhook(secret: Bytes, body: Bytes, timestampSeconds: number): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      'signWebhook: the timestamp must be whole seconds since the epoch.',
    );
  }
  return `t=${timestampSeconds},v1=${hmacHex(secret, timestampSeconds, body)}`;
}

export interface VerifyWebhookInput {
  /** The secret shared with the sender (FILECONV_WEBHOOK_SECRET). */
  secret: Bytes;
  /** The raw request body exactly as received: re-serialised JSON would not match. */
  body: Bytes;
  /** The Fileconv-Signature header value. */
  header: string | null | undefined;
  /** Largest accepted age (or clock skew) of the timestamp, seconds. Default 300. */
  toleranceSeconds?: number;
  /** Current time, seconds since the epoch, for tests. Default: the system clock. */
  now?: number;
}

function invalid(reason: string, message: string): FileconvError {
  return new FileconvError('SIGNATURE_INVALID', message, { details: { reason } });
}

/**
 * Returns true when the header signs `body` with `secret` at a timestamp within the tolerance;
 * otherwise throws SIGNATURE_INVALID with details.reason 'malformed', 'mismatch' or 'expired'.
 * @deprecated Verify the Standard Webhooks headers with a Standard Webhooks library instead.
 */
export function verifyWebhookSignature(input: VerifyWebhookInput): true {
  const { secret, body, header, toleranceSeconds = 300 } = input;
  if (typeof header !== 'string' || header.length > 1024) {
    throw invalid('malformed', 'The webhook signature header is missing or malformed.');
  }
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const [key, value, ...rest] = part.trim().split('=');
    if (rest.length > 0 || value === undefined) continue;
    if (key === 't' && /^\d{1,15}$/.test(value)) timestamp = Number(value);
    // Several v1 entries may appear while a secret is rotated; any one matching is enough.
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw invalid('malformed', 'The webhook signature header is missing or malformed.');
  }
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'hex');
  if (!signatures.some((given) => timingSafeEqual(given, expected))) {
    throw invalid('mismatch', 'The webhook signature does not match the body (forged body or wrong secret).');
  }
  // Checked after the signature, so a forger cannot learn anything from the timestamp check.
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > toleranceSeconds) {
    throw new FileconvError(
      'SIGNATURE_INVALID',
      'The webhook timestamp is outside the tolerance (a replay?).',
      {
        details: { reason: 'expired', timestamp, toleranceSeconds },
      },
    );
  }
  return true;
}
