/**
 * Who is calling and what they may do, before any route runs: the client IP (from the socket,
 * or through proxies the host trusts), the account and plan (an API key, or the host's own
 * sign-in), the rate limit of the request's class (per IP for anonymous callers, per account at
 * the plan's rates for identified ones), and the monthly API-call quota of keyed requests.
 * Every limited response carries RateLimit headers; refusals are 401 or 429.
 */
import proxyAddr from 'proxy-addr';
import { FileconvError, isFileconvError } from '../core/errors.js';
import { authenticate, bearerChallenge } from '../core/policy/api-keys.js';
import { consumeQuota, enforceRateLimit, rateLimitSpent } from '../core/policy/enforce.js';
import type { RateLimitHeaderEntry } from '../core/policy/headers.js';
import {
  AUTH_FAILURE_LIMIT,
  clientKeyOf,
  planRateLimit,
  type RateLimitRule,
  rateLimitClassOf,
} from '../core/policy/limits.js';
import { FREE_PLAN, getPlan, hasPlan, type Plan, type PlanTable } from '../core/policy/plans.js';
import type { CounterStore, KeyStore } from '../core/ports/index.js';
import type { HttpExchange } from './exchange.js';
import { setLimitHeaders } from './limit-headers.js';
import { type Meter, openMeter } from './metering.js';

/** The caller of one request, as the routes see it. */
export interface Client {
  ip: string;
  /** The account, or null for the anonymous Free tier. */
  accountId: string | null;
  plan: Readonly<Plan>;
  /** Owner of the files and jobs this client creates: `account:<id>` or `ip:<address>`. */
  owner: string;
}

/** What a host's sign-in sees of a request: its method, path, headers and the framework's own object. */
export interface AuthRequest {
  method: string;
  /** The path below the mount point. */
  path: string;
  /** A request header by lower-case name. */
  header(name: string): string | undefined;
  /** The framework's own request (express.Request, IncomingMessage, a web Request). */
  raw: unknown;
}

/** A host's own sign-in (the specification's Flow B "sign in with the account"). */
export type Authenticator = (
  request: AuthRequest,
) => Promise<{ accountId: string; plan: string } | null> | { accountId: string; plan: string } | null;

export interface AccessSettings {
  plans: PlanTable;
  keys: KeyStore | undefined;
  counters: CounterStore | undefined;
  authenticate: Authenticator | undefined;
  trust: (address: string, hop: number) => boolean;
  now(): number;
  /** Told of a charge that could not be given back (the counters away while a request failed). */
  onError?(error: unknown): void;
}

/** One request on its way through the service: who calls, and the headers every answer carries. */
export interface Call {
  exchange: HttpExchange;
  /** The service's public base URL as this client reached it, for the links the API hands out. */
  baseUrl: string;
  client: Client;
  /** Header entries of the policies applied so far, merged into one set of headers. */
  entries: RateLimitHeaderEntry[];
  /** RateLimit-* and WWW-Authenticate: set on the answer whatever it is. */
  headers: Record<string, string>;
  /** The job the request created or asked about, for the request's log line. */
  jobIds?: string[];
  /** Bytes of the upload the request stored, for the request's metrics. */
  uploadedBytes?: number;
  /** What the request charges the client's quotas, given back if it fails (metering.ts). */
  meter: Meter;
}

/** Compiles the `trustProxy` option: false (default: the socket address), true, a hop count, or addresses/subnets. */
export function compileTrust(trustProxy: boolean | number | string | readonly string[] | undefined) {
  if (trustProxy === undefined || trustProxy === false) return () => false;
  if (trustProxy === true) return () => true;
  if (typeof trustProxy === 'number') return (_address: string, hop: number) => hop < trustProxy;
  return proxyAddr.compile(
    typeof trustProxy === 'string' ? trustProxy.split(',').map((s) => s.trim()) : [...trustProxy],
  );
}

/**
 * The client address: the socket's, or, through proxies the host trusts, the nearest untrusted
 * X-Forwarded-For entry. A runtime that does not tell the socket address (a fetch handler given
 * none) yields 'unknown', which no address list trusts.
 */
export function clientAddress(exchange: HttpExchange, trust: AccessSettings['trust']): string {
  const forwardedFor = exchange.header('x-forwarded-for');
  const socket = { remoteAddress: exchange.remoteAddress ?? 'unknown' };
  // proxy-addr reads only these fields of a Node request.
  const request = {
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    socket,
    connection: socket,
  };
  return proxyAddr(request as unknown as Parameters<typeof proxyAddr>[0], trust);
}

/**
 * Identifies the caller and applies the rate limit and the API-call quota; throws RATE_LIMITED,
 * UNAUTHORIZED or QUOTA_EXCEEDED with the call's headers already set.
 *
 * Order. Identity comes first, because whose budget a request spends depends on it: an anonymous
 * request spends its IP's budget at the Free plan's rates (the specification's 20 and 60 a
 * minute), an identified one its account's at its plan's rates and never its IP's, so a busy
 * paying server and the anonymous visitors behind the same address do not starve each other.
 * Looking at a key before any limit must not open the door to guessing keys, so sign-ins that
 * fail are limited per IP on a counter of their own (AUTH_FAILURE_LIMIT, counted in
 * identifyLimited): a flood of bad keys is throttled like a flood of anonymous requests, while
 * valid keys, which never add to that counter, are not held back by it unless their address is
 * itself the one guessing. A host's sign-in (`authenticate`) is therefore asked about every
 * request, including those an anonymous limit then refuses: it should be cheap (a session
 * lookup), as it is on any site that reads a session before its own limits.
 */
export async function admit(
  settings: AccessSettings,
  call: Call,
  options: {
    /** A signed route (Route.signed): leave an anonymous request's rate to chargeSignedRequest. */
    signed?: boolean;
  } = {},
): Promise<void> {
  const now = settings.now();
  const { exchange } = call;
  const ip = call.client.ip;
  const rateClass = rateLimitClassOf(exchange.method, exchange.path);
  try {
    const identity = await identifyLimited(settings, call, now);
    if (identity) {
      if (!hasPlan(settings.plans, identity.plan)) {
        throw new FileconvError(
          'INTERNAL',
          `The account's plan "${identity.plan}" is not in the plan table.`,
        );
      }
      call.client = {
        ip,
        accountId: identity.accountId,
        plan: getPlan(settings.plans, identity.plan),
        owner: `account:${identity.accountId}`,
      };
      if (settings.counters) {
        const clientKey = clientKeyOf(identity, ip);
        await applyRateLimit(
          settings,
          call,
          planRateLimit(call.client.plan, rateClass, 'account'),
          clientKey,
          now,
        );
        const calls = await consumeQuota(settings.counters, {
          plan: call.client.plan,
          kind: 'apiCalls',
          clientKey,
          now,
        });
        if (calls.entry) call.entries.push(calls.entry);
        if (calls.error) throw calls.error;
      }
    } else if (!options.signed) {
      await applyRateLimit(settings, call, planRateLimit(call.client.plan, rateClass, 'ip'), `ip:${ip}`, now);
    }
    setLimitHeaders(call, now);
  } catch (error) {
    setLimitHeaders(call, now);
    if (isFileconvError(error, 'UNAUTHORIZED')) call.headers['www-authenticate'] = bearerChallenge(error);
    throw error;
  }
}

/**
 * The rate limit of an anonymous request to a signed route (the local upload PUT, the local
 * result GET), once the route knows `owner`, the owner of the file or job the URL names (null:
 * the signature did not verify). A URL naming an account's file or job spends no rate limit:
 * the account's grant or job was counted against its plan's rate when the URL was handed out,
 * and a URL is bound to that one object (one upload, one result), as a storage's presigned URL
 * is, which no rate limit of ours sees either. Charging the caller's IP instead would hold a
 * paying server's uploads to the anonymous 20 a minute again. Anything else (an anonymous
 * owner's URL, a signature that fails) is counted per IP as before. Identified callers were
 * counted by admit() already.
 */
export async function chargeSignedRequest(
  settings: AccessSettings,
  call: Call,
  owner: string | null,
): Promise<void> {
  if (call.client.accountId !== null || owner?.startsWith('account:')) return;
  const now = settings.now();
  const { exchange } = call;
  const rule = planRateLimit(call.client.plan, rateLimitClassOf(exchange.method, exchange.path), 'ip');
  try {
    await applyRateLimit(settings, call, rule, `ip:${call.client.ip}`, now);
  } finally {
    setLimitHeaders(call, now);
  }
}

/** Counts the request against `rule` (none: the plan sets no rate), adding its header entry. */
async function applyRateLimit(
  settings: AccessSettings,
  call: Call,
  rule: RateLimitRule | null,
  clientKey: string,
  now: number,
): Promise<void> {
  if (!settings.counters || !rule) return;
  const rate = await enforceRateLimit(settings.counters, { rule, clientKey, now });
  call.entries.push(rate.entry);
  if (rate.error) throw rate.error;
}

/**
 * identify(), with failed sign-ins limited per IP. A request presenting a key (an Authorization
 * header) from an address that has used up its failures this minute is refused before the key
 * is looked at, whatever the key: were a right key let through, its 200 among the 429s would
 * tell a guesser which guess was right. Checking spends nothing, so valid keys never use up the
 * budget; each failure (any UNAUTHORIZED, from a key or the host's sign-in) adds one, and the
 * failure that goes over it answers 429 instead of 401. Concurrent guesses that all pass the
 * check before the first failure is counted can go over by at most the requests in flight; the
 * check bounds the load of a flood, while the keys' 190-bit secrets are what make guessing vain.
 */
async function identifyLimited(
  settings: AccessSettings,
  call: Call,
  now: number,
): Promise<{ accountId: string; plan: string } | null> {
  const { counters } = settings;
  const clientKey = `ip:${call.client.ip}`;
  const input = { rule: AUTH_FAILURE_LIMIT, clientKey, now };
  if (
    counters &&
    call.exchange.header('authorization') !== undefined &&
    (await rateLimitSpent(counters, input))
  ) {
    const refused = await enforceRateLimit(counters, input);
    call.entries.push(refused.entry);
    // Without an error the window turned between the check and the count: go on.
    if (refused.error) throw refused.error;
  }
  try {
    return await identify(settings, call.exchange);
  } catch (error) {
    if (counters && isFileconvError(error, 'UNAUTHORIZED')) {
      const failed = await enforceRateLimit(counters, input);
      if (!call.entries.some((entry) => entry.policy === AUTH_FAILURE_LIMIT.name))
        call.entries.push(failed.entry);
      if (failed.error) throw failed.error;
    }
    throw error;
  }
}

/**
 * The service's base URL: the configured public one, or the mount as the client reached it (the
 * scheme from X-Forwarded-Proto when the peer is a trusted proxy).
 */
export function baseUrlOf(
  exchange: HttpExchange,
  settings: AccessSettings,
  publicUrl: string | undefined,
): string {
  if (publicUrl) return publicUrl;
  let protocol = exchange.protocol;
  const forwarded = exchange.header('x-forwarded-proto')?.split(',', 1)[0]?.trim().toLowerCase();
  if (
    (forwarded === 'https' || forwarded === 'http') &&
    settings.trust(exchange.remoteAddress ?? 'unknown', 0)
  ) {
    protocol = forwarded;
  }
  return `${protocol}://${exchange.header('host') ?? 'localhost'}${exchange.mountPath}`;
}

/** A call from an anonymous client on the Free plan, before admit() identifies it. */
export function anonymousCall(
  settings: AccessSettings,
  exchange: HttpExchange,
  publicUrl: string | undefined,
): Call {
  const ip = clientAddress(exchange, settings.trust);
  const call: Omit<Call, 'meter'> = {
    exchange,
    baseUrl: baseUrlOf(exchange, settings, publicUrl),
    client: { ip, accountId: null, plan: getPlan(settings.plans, FREE_PLAN), owner: `ip:${ip}` },
    entries: [],
    headers: {},
  };
  // The meter reads the call as admit() leaves it: the client it identified, its headers.
  return Object.assign(call, { meter: openMeter(settings, call) });
}

async function identify(
  settings: AccessSettings,
  exchange: HttpExchange,
): Promise<{ accountId: string; plan: string } | null> {
  const signedIn = settings.authenticate
    ? await settings.authenticate({
        method: exchange.method,
        path: exchange.path,
        header: (name) => exchange.header(name.toLowerCase()),
        raw: exchange.raw,
      })
    : null;
  if (signedIn) return signedIn;
  const authorization = exchange.header('authorization');
  if (settings.keys) return authenticate(settings.keys, authorization);
  if (authorization !== undefined) {
    throw new FileconvError('UNAUTHORIZED', 'This service does not accept API keys.', {
      details: { reason: 'unknown_key' },
    });
  }
  return null;
}
