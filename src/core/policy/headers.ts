/**
 * Rate-limit response headers from decisions. Two families are sent side by side:
 *
 * - The IETF httpapi fields (draft-ietf-httpapi-ratelimit-headers, -08 onwards, Structured Field
 *   lists): `RateLimit-Policy: "upload";q=20;w=60` (quota units per window of seconds) and
 *   `RateLimit: "upload";r=19;t=42` (units remaining, seconds until the window resets).
 *   Several policies (the per-IP rate limit and a plan quota) are members of one list.
 * - The de-facto `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` most client
 *   libraries read, for the tightest policy (fewest units left). `X-RateLimit-Reset` is the reset
 *   instant in epoch seconds, as GitHub and express-rate-limit send it: the IETF `t` already
 *   carries the delta, and an absolute time stays right however late the client reads it.
 *
 * `Retry-After` (delay-seconds) is added when a policy refused the request.
 */
import { FileconvError } from '../errors.js';
import { type Decision, secondsUntil } from './limits.js';

export interface RateLimitHeaderEntry {
  /** Policy name: 'upload', 'default', 'conversions', ... */
  policy: string;
  decision: Decision;
  /** Length of the policy's window, seconds (a calendar month's varies: use this month's). */
  windowSeconds: number;
}

/** A Structured Field sf-string: printable ASCII, with `"` and `\` escaped. */
function sfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `A rate-limit policy name must be printable ASCII; got ${JSON.stringify(value)}.`,
    );
  }
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/** Integers only: Structured Field integers have no fraction. */
function sfInteger(value: number): string {
  return String(Math.max(0, Math.floor(value)));
}

/** The tightest entry: fewest units left, then the latest reset. */
function tightest(entries: readonly RateLimitHeaderEntry[]): RateLimitHeaderEntry {
  return entries.reduce((best, entry) =>
    entry.decision.remaining < best.decision.remaining ||
    (entry.decision.remaining === best.decision.remaining && entry.decision.resetAt > best.decision.resetAt)
      ? entry
      : best,
  );
}

/**
 * The headers for one or more policies' decisions at `now`. Header names are in their usual
 * capitalisation; HTTP treats them case-insensitively. No entries, no headers.
 */
export function rateLimitHeaders(
  entries: RateLimitHeaderEntry | readonly RateLimitHeaderEntry[],
  now: number,
): Record<string, string> {
  const list: readonly RateLimitHeaderEntry[] = Array.isArray(entries)
    ? entries
    : [entries as RateLimitHeaderEntry];
  if (list.length === 0) return {};
  const policies = list.map(
    ({ policy, decision, windowSeconds }) =>
      `${sfString(policy)};q=${sfInteger(decision.limit)};w=${sfInteger(windowSeconds)}`,
  );
  const states = list.map(
    ({ policy, decision }) =>
      `${sfString(policy)};r=${sfInteger(decision.remaining)};t=${secondsUntil(decision.resetAt, now)}`,
  );
  const { decision } = tightest(list);
  const headers: Record<string, string> = {
    'RateLimit-Policy': policies.join(', '),
    RateLimit: states.join(', '),
    'X-RateLimit-Limit': sfInteger(decision.limit),
    'X-RateLimit-Remaining': sfInteger(decision.remaining),
    'X-RateLimit-Reset': String(Math.ceil(decision.resetAt / 1000)),
  };
  const denied = list.filter((entry) => !entry.decision.allowed);
  if (denied.length > 0) {
    headers['Retry-After'] = String(Math.max(...denied.map((entry) => entry.decision.retryAfterSeconds)));
  }
  return headers;
}

/** Seconds in a window given as epoch-ms bounds. */
export function windowSeconds(window: { start: number; end: number }): number {
  return Math.round((window.end - window.start) / 1000);
}
