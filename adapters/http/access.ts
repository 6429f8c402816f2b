/**
 * Who is calling and what they may do, before any route runs: the client IP (from the socket,
 * or through proxies the host trusts), the account and plan (an API key, or the host's own
 * sign-in), the per-IP rate limit of the request's class, and the monthly API-call quota of
 * keyed requests. Every limited response carries RateLimit headers; refusals are 401 or 429.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import proxyAddr from 'proxy-addr';
import { FileconvError, isFileconvError } from '../../src/errors.js';
import { authenticate, bearerChallenge } from '../../src/policy/api-keys.js';
import { consumeQuota, enforceRateLimit, type QuotaTicket } from '../../src/policy/enforce.js';
import { type RateLimitHeaderEntry, rateLimitHeaders } from '../../src/policy/headers.js';
import { clientKeyOf, type QuotaKind, rateLimitClassOf } from '../../src/policy/limits.js';
import { FREE_PLAN, getPlan, hasPlan, type Plan, type PlanTable } from '../../src/policy/plans.js';
import type { CounterStore, KeyStore } from '../../src/ports.js';

/** The caller of one request, as the routes see it. */
export interface Client {
  ip: string;
  /** The account, or null for the anonymous Free tier. */
  accountId: string | null;
  plan: Readonly<Plan>;
  /** Owner of the files and jobs this client creates: `account:<id>` or `ip:<address>`. */
  owner: string;
}

/** A host's own sign-in (the specification's Flow B "sign in with the account"). */
export type Authenticator = (
  req: Request,
) => Promise<{ accountId: string; plan: string } | null> | { accountId: string; plan: string } | null;

export interface AccessSettings {
  plans: PlanTable;
  keys: KeyStore | undefined;
  counters: CounterStore | undefined;
  authenticate: Authenticator | undefined;
  trust: (address: string, hop: number) => boolean;
  now(): number;
}

interface ClientState {
  client: Client;
  /** Header entries of the policies applied so far, merged into one set of headers. */
  entries: RateLimitHeaderEntry[];
}

function stateOf(res: Response): ClientState {
  const state = res.locals.fileconv as ClientState | undefined;
  if (!state) throw new FileconvError('INTERNAL', 'The access middleware did not run for this route.');
  return state;
}

/** The client of a request the access middleware has seen. */
export function clientOf(res: Response): Client {
  return stateOf(res).client;
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

function setLimitHeaders(res: Response, state: ClientState, now: number): void {
  if (state.entries.length > 0) res.set(rateLimitHeaders(state.entries, now));
}

export function accessMiddleware(settings: AccessSettings): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const now = settings.now();
    const ip = proxyAddr(req, settings.trust);
    const state: ClientState = {
      client: { ip, accountId: null, plan: getPlan(settings.plans, FREE_PLAN), owner: `ip:${ip}` },
      entries: [],
    };
    res.locals.fileconv = state;
    try {
      if (settings.counters) {
        // Rate limits come first and are per IP, so a flood of guessed keys is throttled too.
        const rate = await enforceRateLimit(settings.counters, {
          rule: rateLimitClassOf(req.method, req.path),
          clientKey: `ip:${ip}`,
          now,
        });
        state.entries.push(rate.entry);
        if (rate.error) throw rate.error;
      }
      const identity = await identify(settings, req);
      if (identity) {
        if (!hasPlan(settings.plans, identity.plan)) {
          throw new FileconvError(
            'INTERNAL',
            `The account's plan "${identity.plan}" is not in the plan table.`,
          );
        }
        state.client = {
          ip,
          accountId: identity.accountId,
          plan: getPlan(settings.plans, identity.plan),
          owner: `account:${identity.accountId}`,
        };
        if (settings.counters) {
          const calls = await consumeQuota(settings.counters, {
            plan: state.client.plan,
            kind: 'apiCalls',
            clientKey: clientKeyOf(identity, ip),
            now,
          });
          if (calls.entry) state.entries.push(calls.entry);
          if (calls.error) throw calls.error;
        }
      }
      setLimitHeaders(res, state, now);
      next();
    } catch (error) {
      setLimitHeaders(res, state, now);
      if (isFileconvError(error, 'UNAUTHORIZED')) res.set('WWW-Authenticate', bearerChallenge(error));
      next(error);
    }
  };
}

async function identify(
  settings: AccessSettings,
  req: Request,
): Promise<{ accountId: string; plan: string } | null> {
  const signedIn = settings.authenticate ? await settings.authenticate(req) : null;
  if (signedIn) return signedIn;
  if (settings.keys) return authenticate(settings.keys, req.headers.authorization);
  if (req.headers.authorization !== undefined) {
    throw new FileconvError('UNAUTHORIZED', 'This service does not accept API keys.', {
      details: { reason: 'unknown_key' },
    });
  }
  return null;
}

/**
 * Charges `amount` units of a plan quota (daily conversions, hourly files) to the request's
 * client, setting the quota's headers; throws QUOTA_EXCEEDED when it does not fit. Returns the
 * ticket to store with the job (null when the plan is unlimited or no counters are configured).
 */
export async function chargeQuota(
  settings: AccessSettings,
  res: Response,
  kind: QuotaKind,
  amount = 1,
): Promise<QuotaTicket | null> {
  if (!settings.counters) return null;
  const state = stateOf(res);
  const now = settings.now();
  const { client } = state;
  const outcome = await consumeQuota(settings.counters, {
    plan: client.plan,
    kind,
    clientKey: clientKeyOf(client.accountId === null ? null : { accountId: client.accountId }, client.ip),
    now,
    amount,
  });
  if (outcome.entry) state.entries.push(outcome.entry);
  setLimitHeaders(res, state, now);
  if (outcome.error) throw outcome.error;
  return outcome.ticket;
}
