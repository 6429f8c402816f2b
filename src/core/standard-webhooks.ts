/**
 * Standard Webhooks (https://www.standardwebhooks.com/) signatures of webhook deliveries, and
 * the one rule for how a configured webhook secret becomes signing keys. Every delivery carries
 * `webhook-id` (the delivery's id, the same on every retry), `webhook-timestamp` (unix seconds of
 * the attempt) and `webhook-signature: v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." +
 * rawBody)>`, so receivers verify it with any Standard Webhooks library. Pure (node:crypto only).
 */
import { createHmac } from 'node:crypto';
import { FileconvError } from './errors.js';
import { MIN_SECRET_BYTES } from './signing.js';

/** The prefix of a secret in the spec's own format: `whsec_` + base64 of the key bytes. */
export const STANDARD_SECRET_PREFIX = 'whsec_';

/** The spec's smallest key (it asks for 24 to 64 random bytes): a `whsec_` secret below it is refused. */
export const MIN_STANDARD_KEY_BYTES = 24;

/** The keys one configured webhook secret signs with. */
export interface WebhookSigningKeys {
  /** The deprecated Fileconv-Signature's key: the secret's own bytes (UTF-8), as before Standard Webhooks. */
  legacy: Buffer;
  /** The webhook-signature key: a `whsec_` secret's decoded bytes, else the secret's own bytes. */
  standard: Buffer;
}

function refused(message: string): FileconvError {
  return new FileconvError('INVALID_OPTIONS', message);
}

/**
 * The keys of a webhook secret. A string starting with `whsec_` is the spec's format: the rest must
 * be canonical base64 (padded, as Standard Webhooks libraries decode it) of at least 24 bytes, which
 * are the key. Any other secret (a plain string, at least 32 bytes of UTF-8, or bytes) is its own
 * key, so deployments configured before Standard Webhooks keep their secret; their receivers give a
 * library `whsec_` + base64 of those bytes. Throws INVALID_OPTIONS (never echoing the secret).
 */
export function webhookSigningKeys(secret: string | Uint8Array | undefined): WebhookSigningKeys {
  const own = secret === undefined ? Buffer.alloc(0) : Buffer.from(secret);
  if (typeof secret === 'string' && secret.startsWith(STANDARD_SECRET_PREFIX)) {
    const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
    const key = Buffer.from(encoded, 'base64');
    // Buffer's decoder skips what is not base64; a receiver's strict one would not, and the two
    // sides would then hold different keys: only the exact encoding of the decoded bytes passes.
    if (key.toString('base64') !== encoded) {
      throw refused(
        `The webhook secret starts with ${STANDARD_SECRET_PREFIX} but what follows is not standard padded base64.`,
      );
    }
    if (key.length < MIN_STANDARD_KEY_BYTES) {
      throw refused(
        `The webhook secret's key (after ${STANDARD_SECRET_PREFIX}) must be at least ${MIN_STANDARD_KEY_BYTES} bytes, got ${key.length}.`,
      );
    }
    return { legacy: own, standard: key };
  }
  // The same floor as the URL-signing secret: a shorter text secret makes signatures guessable.
  if (own.length < MIN_SECRET_BYTES) {
    throw refused(
      `The webhook secret is required: ${STANDARD_SECRET_PREFIX} + base64 of ${MIN_STANDARD_KEY_BYTES}+ random bytes, or at least ${MIN_SECRET_BYTES} bytes of text (got ${own.length}).`,
    );
  }
  return { legacy: own, standard: own };
}

/** What one attempt of a delivery is signed over. */
export interface StandardWebhookMessage {
  /** The delivery's id, the same on every attempt: receivers dedupe by it. */
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** The raw body, exactly as sent. */
  body: string;
}

/** The three Standard Webhooks headers of one attempt, signed with the `standard` key. */
export function standardWebhookHeaders(
  key: Uint8Array,
  message: StandardWebhookMessage,
): Record<string, string> {
  const { id, timestamp, body } = message;
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw refused('standardWebhookHeaders: the timestamp must be whole seconds since the epoch.');
  }
  // The spec signs "<id>.<timestamp>.<body>", so an id or time moved onto another body fails.
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${signature}`,
  };
}
