/**
 * The RateLimit headers of a request: the entries of every policy applied to it so far (rate
 * limits, quotas), merged into one set on the call, so whatever it answers carries them.
 */
import { type RateLimitHeaderEntry, rateLimitHeaders } from '../core/policy/headers.js';

/** Sets the merged headers of `call.entries` on `call.headers` (lower-case names). */
export function setLimitHeaders(
  call: { entries: RateLimitHeaderEntry[]; headers: Record<string, string> },
  now: number,
): void {
  if (call.entries.length === 0) return;
  for (const [name, value] of Object.entries(rateLimitHeaders(call.entries, now))) {
    call.headers[name.toLowerCase()] = value;
  }
}
