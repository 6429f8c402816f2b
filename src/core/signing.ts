/**
 * HMAC-SHA256 signatures for the local upload and download URLs the HTTP adapter hands out when
 * storage cannot presign its own. A signature binds a purpose, a resource id, an expiry and any
 * extra claims (content type, size), so a URL cannot be reused for another file, another type,
 * another size or after it expires. Verification is constant-time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { FileconvError } from './errors.js';

export interface SignedClaims {
  /** What the URL may do: 'upload' or 'download'. */
  purpose: string;
  /** The file or job the URL is for. */
  id: string;
  /** Expiry, seconds since the epoch. */
  expires: number;
  /** Further values the request must match (content type, size), in a fixed order. */
  bound?: readonly (string | number)[];
}

/** Secrets shorter than this are refused: they would make signatures guessable. */
export const MIN_SECRET_BYTES = 32;

function payloadOf(claims: SignedClaims): string {
  // A separator that cannot appear in the parts keeps ('a|b','c') distinct from ('a','b|c').
  return [claims.purpose, claims.id, String(claims.expires), ...(claims.bound ?? []).map(String)]
    .map((part) => encodeURIComponent(part))
    .join('\n');
}

/** Checks that a signing secret is long enough; returns it as a Buffer. */
export function signingKey(secret: string | Uint8Array): Buffer {
  const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  if (key.length < MIN_SECRET_BYTES) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `The signing secret must be at least ${MIN_SECRET_BYTES} bytes long.`,
    );
  }
  return key;
}

/** The base64url HMAC-SHA256 signature of the claims. */
export function sign(key: Buffer, claims: SignedClaims): string {
  return createHmac('sha256', key).update(payloadOf(claims)).digest('base64url');
}

/**
 * Throws SIGNATURE_INVALID when `signature` does not match the claims (tampered id, type, size
 * or expiry), then URL_EXPIRED when it matches but `nowSeconds` is past the expiry.
 */
export function verify(key: Buffer, claims: SignedClaims, signature: unknown, nowSeconds: number): void {
  const expected = Buffer.from(sign(key, claims), 'base64url');
  const given = typeof signature === 'string' ? Buffer.from(signature, 'base64url') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new FileconvError('SIGNATURE_INVALID', 'The URL signature is not valid for this request.');
  }
  if (!(nowSeconds <= claims.expires)) {
    throw new FileconvError('URL_EXPIRED', 'The URL has expired: ask for a new one.', {
      details: { expiredAt: new Date(claims.expires * 1000).toISOString() },
    });
  }
}
