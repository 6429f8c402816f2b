/**
 * One webhook POST: to the checked, pinned addresses over node:http(s) (never following a
 * redirect), or through a host-supplied fetch. Answers the status and Retry-After; throws on
 * network errors, timeouts and refused addresses.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { hostOf, pinnedLookup, resolvePublic } from '../../kit/net/addresses.js';

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
  const addresses = await resolvePublic(hostOf(input.url), input.allowPrivateAddresses);
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
  const send = input.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostResult>((resolve, reject) => {
    const request = send(
      input.url,
      {
        method: 'POST',
        headers: { ...input.headers, 'Content-Length': String(Buffer.byteLength(input.body)) },
        lookup: pinnedLookup(addresses),
        signal: input.signal,
        // No agent: a pooled socket could outlive the check that allowed its address.
        agent: false,
      },
      (response) => {
        // Only the status matters: settle on the headers and drop the body, so a receiver
        // streaming an endless answer cannot hold the delivery.
        resolve({
          status: response.statusCode ?? 0,
          retryAfterMs: parseRetryAfter(response.headers['retry-after']),
        });
        response.destroy();
      },
    );
    request.on('error', reject);
    request.end(input.body);
  });
}
