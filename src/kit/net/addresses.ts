/**
 * SSRF rules: which IP addresses a request to a host a user named (a webhook receiver, a web page
 * to capture) may reach, and a DNS answer pinned to the checked addresses, so a rebinding DNS
 * server cannot swap in a private address between the check and the connect (safe-request.ts
 * sends through them).
 */

import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Why a request must not reach `address` ('loopback', 'private', 'linkLocal', 'uniqueLocal',
 * 'multicast', 'unspecified', 'carrierGradeNat', ...), or null for a public unicast address.
 * An allowlist: only ipaddr.js's plain 'unicast' range passes, so documentation, reserved,
 * NAT64 and tunnel ranges (which can embed a private IPv4) are refused too.
 */
export function blockedRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  let parsed = ipaddr.parse(address);
  // ::ffff:127.0.0.1 reaches 127.0.0.1: judge the IPv4 address it carries.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  return range === 'unicast' ? null : range;
}

/** The host of a URL as DNS or an IP literal: WHATWG brackets IPv6 literals, net.isIP wants them bare. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The reason a URL whose host is an IP literal is refused, or null (names are resolved at
 * delivery). The WHATWG URL parser has already normalised 0x7f.1 and friends to 127.0.0.1.
 */
export function literalAddressProblem(url: URL): string | null {
  const host = hostOf(url);
  if (isIP(host) === 0) return null;
  const range = blockedRange(host);
  return range ? `${host} is a ${range} address` : null;
}

/** A host or scheme a request may not reach; `reason` says which address and why. */
export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';

  constructor(readonly reason: string) {
    super(`refused: ${reason}`);
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http(s).request that answers with the already checked addresses instead
 * of asking DNS again (which is what would let a rebinding answer through).
 */
export function pinnedLookup(addresses: readonly LookupAddress[]) {
  return (_host: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback) => {
    const family = Number(options.family) || 0;
    const matching = addresses.filter((entry) => family === 0 || entry.family === family);
    if (matching.length === 0) {
      callback(
        Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }),
        [],
      );
      return;
    }
    if (options.all) callback(null, matching);
    else callback(null, matching[0]!.address, matching[0]!.family);
  };
}
