/**
 * The one way fileconv sends a request to a host a user named: a webhook's receiver, a web page
 * captured by its URL and every resource the page asks for. Callers check the scheme
 * (schemeProblem: http and https only) and the host (checkedAddresses: every address it resolves
 * to, loopback, private, link-local, metadata and the other non-public ranges refused), then send
 * to those addresses (sendPinned): the connection is pinned to them, so a rebinding DNS answer
 * cannot swap one in between the check and the connect; no pooled socket, which could outlive
 * the check that allowed its address; no redirect followed (a caller that follows one checks its
 * target as a new request).
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import ipaddr from 'ipaddr.js';
import { BlockedAddressError, blockedRange, hostOf, pinnedLookup } from './addresses.js';

export interface PinnedRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: Buffer | string | null;
  signal: AbortSignal;
}

/**
 * Cloud metadata services outside the link-local range: AWS's IPv6 endpoint and Alibaba's. They
 * and link-local addresses (169.254.169.254 of AWS, GCP and Azure) are never reached.
 */
const METADATA_ADDRESSES = ['fd00:ec2::254', '100.100.100.200'].map((address) =>
  ipaddr.parse(address).toNormalizedString(),
);

function isMetadataAddress(address: string, range: string): boolean {
  // process() reads ::ffff:100.100.100.200 as the IPv4 address it carries.
  return range === 'linkLocal' || METADATA_ADDRESSES.includes(ipaddr.process(address).toNormalizedString());
}

/** Why the scheme of `url` is refused, or null for http and https. */
export function schemeProblem(url: URL): string | null {
  return url.protocol === 'http:' || url.protocol === 'https:'
    ? null
    : `the ${url.protocol} scheme is refused (only http and https are fetched)`;
}

/**
 * Every address of the URL's host, each checked: one refused address among good ones refuses the
 * host (a rebinding server could answer either); BlockedAddressError says which and why. DNS
 * failures are thrown as Node raised them (ENOTFOUND, EAI_AGAIN), for the caller to word.
 * `allowPrivateAddresses` lets private ranges through (receivers and pages on an intranet), never
 * link-local and cloud metadata addresses: no intranet service lives there, credentials do.
 */
export async function checkedAddresses(url: URL, allowPrivateAddresses: boolean): Promise<LookupAddress[]> {
  const host = hostOf(url);
  const addresses = await dnsLookup(host, { all: true, verbatim: true });
  if (addresses.length === 0)
    throw Object.assign(new Error(`${host} has no addresses`), { code: 'ENOTFOUND' });
  for (const { address } of addresses) {
    const range = blockedRange(address);
    if (!range || (allowPrivateAddresses && !isMetadataAddress(address, range))) continue;
    // Said the same way for a name and an IP literal, which "resolves" to itself.
    throw new BlockedAddressError(
      `${host} resolves to ${address}, a ${range} address (only public addresses are reached)`,
    );
  }
  return addresses;
}

/** Sends `request` to the already checked `addresses`; resolves with the response as it starts. */
export function sendPinned(
  request: PinnedRequest,
  addresses: readonly LookupAddress[],
): Promise<IncomingMessage> {
  const send = request.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers = { ...request.headers };
  if (typeof request.body === 'string') headers['Content-Length'] = String(Buffer.byteLength(request.body));
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = send(request.url, {
      method: request.method,
      headers,
      lookup: pinnedLookup(addresses),
      signal: request.signal,
      agent: false,
    });
    outgoing.on('response', resolve);
    outgoing.on('error', reject);
    outgoing.end(request.body ?? undefined);
  });
}
