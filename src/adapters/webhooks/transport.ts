/**
 * One webhook POST: to the checked, pinned addresses (kit/net/safe-request.ts, never following a
 * redirect), or through a host-supplied fetch. Answers the status and Retry-After; throws on
 * network errors, timeouts and refused addresses (BlockedAddressError).
 */
import { checkedAddresses, sendPinned } from '../../kit/net/safe-request.js';

export interface PostResult {
  status: number;
  /** Retry-After in ms, when the receiver sent one. */
  retryAfterMs: number | null;
}

export interface PostInput {
  url: URL;
  body: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  allowPrivateAddresses: boolean;
  fetchImpl?: typeof fetch;
}

/** Retry-After as delay seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

export async function postWebhook(input: PostInput): Promise<PostResult> {
  // Checked before every attempt, also with a custom fetch, so a refused host is never contacted.
  const addresses = await checkedAddresses(input.url, input.allowPrivateAddresses);
  if (input.fetchImpl) {
    // A host's fetch does its own DNS: pinning is then the host's responsibility (documented).
    const response = await input.fetchImpl(input.url, {
      method: 'POST',
      body: input.body,
      headers: input.headers,
      redirect: 'manual',
      signal: input.signal,
    });
    await response.body?.cancel();
    return { status: response.status, retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) };
  }
  const { url, headers, body, signal } = input;
  const response = await sendPinned({ url, method: 'POST', headers, body, signal }, addresses);
  // Only the status matters: settle on the headers and drop the body, so a receiver streaming an
  // endless answer cannot hold the delivery.
  response.destroy();
  return { status: response.statusCode ?? 0, retryAfterMs: parseRetryAfter(response.headers['retry-after']) };
}
