/**
 * API keys: `fc_<keyId>_<secret>`, a 12-character public id (safe to log and list) and a
 * 32-character secret, both base62 from the OS's CSPRNG (32 base62 characters hold about 190
 * bits). Only the SHA-256 of the whole key is stored, so a leaked key file reveals no key.
 * Requests carry the key as `Authorization: Bearer <key>` (RFC 6750); no header means the Free
 * plan, and any header that is there must be a valid, live key: a client that meant to
 * authenticate is never silently served as Free.
 */
import { createHash, randomBytes } from 'node:crypto';
import { FileconvError } from '../errors.js';
import type { ApiKeyRecord, KeyStore } from '../ports/index.js';
import { hasPlan, type PlanTable } from './plans.js';

export const API_KEY_PREFIX = 'fc_';
export const API_KEY_ID_LENGTH = 12;
export const API_KEY_SECRET_LENGTH = 32;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const API_KEY_PATTERN = /^fc_([0-9A-Za-z]{12})_[0-9A-Za-z]{32}$/;
const KEY_ID_PATTERN = /^[0-9A-Za-z]{12}$/;

/** `length` base62 characters; bytes >= 248 are skipped so every character is equally likely. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** SHA-256 of the whole key, lowercase hex: what the KeyStore holds and is searched by. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Whether `key` has the shape of a fileconv API key (says nothing about whether it exists). */
export function isApiKeyFormat(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

/** Whether `id` has the shape of a key id. */
export function isApiKeyId(id: string): boolean {
  return KEY_ID_PATTERN.test(id);
}

/** A new random key: the key to show once, its public id and the hash to store. */
export function generateApiKey(): { key: string; id: string; hash: string } {
  const id = randomBase62(API_KEY_ID_LENGTH);
  const key = `${API_KEY_PREFIX}${id}_${randomBase62(API_KEY_SECRET_LENGTH)}`;
  return { key, id, hash: hashApiKey(key) };
}

// ---------------------------------------------------------------------------------------------
// The Authorization header

/** Why a request was refused with UNAUTHORIZED; in `details.reason`. */
export type AuthFailure = 'malformed_header' | 'malformed_key' | 'unknown_key' | 'revoked_key';

export type ParsedAuthorization = { kind: 'none' } | { kind: 'key'; key: string };

function unauthorized(reason: AuthFailure, message: string): FileconvError {
  return new FileconvError('UNAUTHORIZED', message, { details: { reason } });
}

const HEADER_FORM = 'The Authorization header must be "Bearer <API key>".';
/** RFC 9110 auth-scheme (a token), then 1*SP and the credentials (RFC 6750 section 2.1). */
const CREDENTIALS = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: +(.*))?$/s;
/** RFC 6750 b64token. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Reads an Authorization header value: absent -> `{ kind: 'none' }`; `Bearer <key>` -> the key;
 * anything else (empty, another scheme, `Bearer` alone, a token that is not a b64token, a
 * token that is not shaped like a key, several headers) -> UNAUTHORIZED. The scheme is
 * case-insensitive (RFC 9110 section 11.1) and one or more spaces may follow it (`1*SP`,
 * RFC 6750 section 2.1); surrounding whitespace is not part of a field value and is ignored.
 */
export function parseAuthorization(
  value: string | readonly string[] | null | undefined,
): ParsedAuthorization {
  if (value === undefined || value === null) return { kind: 'none' };
  if (typeof value !== 'string') {
    if (value.length === 0) return { kind: 'none' };
    if (value.length > 1)
      throw unauthorized('malformed_header', 'Send one Authorization header, not several.');
    return parseAuthorization(value[0]);
  }
  const match = CREDENTIALS.exec(value.replace(/^[ \t]+|[ \t]+$/g, ''));
  if (!match || match[1]!.toLowerCase() !== 'bearer' || match[2] === undefined || !B64TOKEN.test(match[2])) {
    throw unauthorized('malformed_header', HEADER_FORM);
  }
  const key = match[2];
  if (!isApiKeyFormat(key)) throw unauthorized('malformed_key', 'The API key is malformed.');
  return { kind: 'key', key };
}

/**
 * The `WWW-Authenticate` challenge RFC 6750 section 3 asks a 401 to carry: `invalid_request`
 * for a malformed header, `invalid_token` for a key that is malformed, unknown or revoked.
 */
export function bearerChallenge(error?: FileconvError | null, realm = 'fileconv'): string {
  const base = `Bearer realm="${realm.replace(/[\\"]/g, '')}"`;
  const reason = error?.code === 'UNAUTHORIZED' ? error.details?.reason : undefined;
  if (reason === 'malformed_header') return `${base}, error="invalid_request"`;
  if (typeof reason === 'string') return `${base}, error="invalid_token"`;
  return base;
}

export interface ApiKeyIdentity {
  accountId: string;
  /** Plan name from the key's record. */
  plan: string;
  /** Public id of the key used. */
  keyId: string;
}

/**
 * Who is calling: null without an Authorization header (the Free plan, limited per IP), the
 * key's account and plan for a live key, UNAUTHORIZED for a malformed, unknown or revoked key.
 *
 * The lookup is by SHA-256 of the presented key, so no comparison ever runs against a stored
 * secret: timing can at most reveal how a hash of the attacker's own input relates to stored
 * hashes, and turning that into a key would need a SHA-256 preimage. Constant-time comparison
 * would protect nothing here.
 */
export async function authenticate(
  keyStore: KeyStore,
  headerValue: string | readonly string[] | null | undefined,
): Promise<ApiKeyIdentity | null> {
  const parsed = parseAuthorization(headerValue);
  if (parsed.kind === 'none') return null;
  const record = await keyStore.findByHash(hashApiKey(parsed.key));
  // The key embeds its id: a record under another id means a damaged store, not this key.
  if (
    !record ||
    `${API_KEY_PREFIX}${record.id}_` !== parsed.key.slice(0, API_KEY_PREFIX.length + API_KEY_ID_LENGTH + 1)
  ) {
    throw unauthorized('unknown_key', 'The API key is not valid.');
  }
  if (record.revokedAt !== null) throw unauthorized('revoked_key', 'The API key has been revoked.');
  return { accountId: record.accountId, plan: record.plan, keyId: record.id };
}

// ---------------------------------------------------------------------------------------------
// Managing keys (the CLI's `keys` commands)

export interface CreateApiKeyInput {
  accountId: string;
  /** Plan name; checked against `plans` when given. */
  plan: string;
  /** Free text to recognise the key by. Default ''. */
  label?: string;
  /** The plan table `plan` must belong to. Default: not checked. */
  plans?: PlanTable;
}

function checkText(field: string, value: unknown, max: number, allowEmpty: boolean): string {
  if (
    typeof value !== 'string' ||
    (!allowEmpty && value.trim() === '') ||
    value.length > max ||
    /\p{Cc}/u.test(value)
  ) {
    const expected = `${allowEmpty ? 'a' : 'a non-empty'} string of at most ${max} characters without control characters`;
    throw new FileconvError('INVALID_REQUEST', `API key ${field} must be ${expected}.`, {
      details: { field },
    });
  }
  return value;
}

/**
 * Makes and stores a new key. The returned `key` is the only time the secret exists outside
 * the caller: show it once. `now` is epoch ms (default: the clock).
 */
export async function createApiKey(
  keyStore: KeyStore,
  input: CreateApiKeyInput,
  now: number = Date.now(),
): Promise<{ key: string; record: ApiKeyRecord }> {
  const accountId = checkText('accountId', input.accountId, 128, false);
  const plan = checkText('plan', input.plan, 32, false);
  const label = checkText('label', input.label ?? '', 200, true);
  if (input.plans && !hasPlan(input.plans, plan)) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `Unknown plan "${plan}"; known plans: ${Object.keys(input.plans).join(', ')}.`,
      { details: { field: 'plan' } },
    );
  }
  const { key, id, hash } = generateApiKey();
  const record: ApiKeyRecord = {
    id,
    hash,
    accountId,
    plan,
    label,
    createdAt: new Date(now).toISOString(),
    revokedAt: null,
  };
  await keyStore.create(record);
  return { key, record };
}

/** Revokes the key with public id `id` (idempotent); NOT_FOUND for an unknown id. */
export async function revokeApiKey(
  keyStore: KeyStore,
  id: string,
  now: number = Date.now(),
): Promise<ApiKeyRecord> {
  return keyStore.revoke(id, new Date(now).toISOString());
}
