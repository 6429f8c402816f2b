/**
 * Rate-limit and quota decisions as pure functions: which rate-limit class a request is in,
 * which counter (key and expiry) it counts against, and, given the counter's value, whether it
 * passes, how much is left and when to retry. Nothing here touches a store; enforce.ts does the
 * increments with these answers.
 */
import { FileconvError } from '../errors.js';
import type { Plan } from './plans.js';
import {
  type CountingWindow,
  fixedWindow,
  MINUTE_MS,
  utcDayWindow,
  utcHourWindow,
  utcMonthWindow,
} from './windows.js';

// ---------------------------------------------------------------------------------------------
// Rate limits (DESIGN.md section 5): per IP for anonymous callers, per account for keyed ones

export type RateLimitClass = 'upload' | 'default';

/** Whom a rate limit counts: the client IP (anonymous callers, failed sign-ins) or the account. */
export type RateLimitScope = 'ip' | 'account';

export interface RateLimitRule {
  /**
   * Policy name on the wire (`RateLimit-Policy: "upload";...`) and in counter keys: 'upload' and
   * 'default' per IP (the specification's names), 'upload-account' and 'default-account' per
   * account, 'authfail' for failed sign-ins per IP.
   */
  name: string;
  /** Requests allowed per window. */
  limit: number;
  /** Window length, ms. */
  windowMs: number;
  /** Whom the rule counts, named in a refusal's details. Default 'ip'. */
  scope?: RateLimitScope;
}

/**
 * The specification's per-IP rates: "upload and convert" endpoints 20 requests per minute, every
 * other endpoint 60. They are the Free plan's default rates, which anonymous callers get.
 */
export const RATE_LIMITS: Readonly<Record<RateLimitClass, Readonly<RateLimitRule>>> = Object.freeze({
  upload: Object.freeze({ name: 'upload', limit: 20, windowMs: MINUTE_MS, scope: 'ip' }),
  default: Object.freeze({ name: 'default', limit: 60, windowMs: MINUTE_MS, scope: 'ip' }),
});

/**
 * Failed sign-ins (a malformed, unknown or revoked key) per client IP: the default class's 60 a
 * minute. Once an address has spent it, every request of it that presents a key is refused
 * before the key is looked at, valid or not: otherwise a 200 among the 429s would tell a
 * guesser which guess was right.
 */
export const AUTH_FAILURE_LIMIT: Readonly<RateLimitRule> = Object.freeze({
  name: 'authfail',
  limit: 60,
  windowMs: MINUTE_MS,
  scope: 'ip',
});

/** The plan field holding each class's rate. */
const PLAN_RATE_FIELDS = {
  upload: 'uploadRequestsPerMinute',
  default: 'requestsPerMinute',
} as const satisfies Record<RateLimitClass, keyof Plan>;

/**
 * The rate limit a plan sets for a class, counted per `scope`; null when the plan has none.
 * Per IP the names are the specification's ('upload', 'default'), so anonymous clients see
 * exactly the headers they always did; per account they say so ('upload-account'), so a client
 * can tell from the headers which budget it is spending.
 */
export function planRateLimit(
  plan: Readonly<Plan>,
  rateClass: RateLimitClass,
  scope: RateLimitScope,
): RateLimitRule | null {
  const limit = plan[PLAN_RATE_FIELDS[rateClass]];
  if (limit === null) return null;
  return { name: scope === 'ip' ? rateClass : `${rateClass}-account`, limit, windowMs: MINUTE_MS, scope };
}

const UPLOAD_POSTS = new Set([
  '/api/upload',
  '/api/convert',
  '/api/files/get-upload-url',
  '/api/files/multipart',
  '/api/jobs/create',
  '/api/jobs/batch',
  // tus creation: the upload's size is charged here, its PATCHes are ordinary requests.
  '/api/tus',
]);
/** The local upload PUT: `/api/files/<fileId>/content`, one non-empty segment for the id. */
const LOCAL_UPLOAD_PUT = /^\/api\/files\/[^/]+\/content$/;

/**
 * The rate-limit class of a request. `path` is relative to the router ('/api/upload'); a query
 * string and one trailing slash are ignored and case is folded, because Express routes match
 * that way by default: a spelling the router would serve must not escape the stricter class.
 */
export function rateLimitClassOf(method: string, path: string): RateLimitClass {
  const verb = method.toUpperCase();
  let route = path.split(/[?#]/, 1)[0]!.toLowerCase();
  if (route.length > 1 && route.endsWith('/')) route = route.slice(0, -1);
  if (verb === 'POST' && UPLOAD_POSTS.has(route)) return 'upload';
  if (verb === 'PUT' && LOCAL_UPLOAD_PUT.test(route)) return 'upload';
  return 'default';
}

// ---------------------------------------------------------------------------------------------
// Counters

/** The counter one request adds to: its key, when the store may forget it, and its window. */
export interface CounterSlot {
  key: string;
  /** Epoch ms; the window's end. */
  expiresAt: number;
  window: CountingWindow;
}

/** Longest client key accepted in a counter key; longer ones are a caller bug or an attack. */
const MAX_CLIENT_KEY = 256;

/**
 * Checks the caller-made part of a counter key ('ip:2001:db8::1', 'account:acc_1'). Colons are
 * fine: a key is `<prefix>:<clientKey>:<windowId>` with a fixed prefix and a colon-free window
 * id, so the client key between them is never ambiguous.
 */
function checkClientKey(clientKey: string): string {
  if (
    typeof clientKey !== 'string' ||
    clientKey === '' ||
    clientKey.length > MAX_CLIENT_KEY ||
    /[\s\p{Cc}]/u.test(clientKey)
  ) {
    throw new FileconvError('INVALID_REQUEST', 'A rate-limit client key must be 1-256 visible characters.', {
      details: { clientKey: String(clientKey).slice(0, 64) },
    });
  }
  return clientKey;
}

/** The subject limits apply to: the account for a keyed request, else the client IP. */
export function clientKeyOf(identity: { accountId: string } | null, ip: string): string {
  return identity ? `account:${identity.accountId}` : `ip:${ip}`;
}

/** The rate-limit counter for `clientKey` at `now`: 'rate:upload:ip:203.0.113.7:29360160'. */
export function rateLimitSlot(input: { rule: RateLimitRule; clientKey: string; now: number }): CounterSlot {
  const window = fixedWindow(input.now, input.rule.windowMs);
  return {
    key: `rate:${input.rule.name}:${checkClientKey(input.clientKey)}:${window.id}`,
    expiresAt: window.end,
    window,
  };
}

// ---------------------------------------------------------------------------------------------
// Quotas

export type QuotaKind = 'conversions' | 'files' | 'uploadBytes' | 'apiCalls';

export interface QuotaRule {
  kind: QuotaKind;
  /** The plan field holding the limit. */
  field: 'conversionsPerDay' | 'filesPerHour' | 'uploadBytesPerHour' | 'apiCallsPerMonth';
  /** The allowance in words, for messages: 5 -> "5 conversions per day". */
  allowance: (limit: number) => string;
  /**
   * Whether it is announced in the RateLimit headers, which count requests and files. A byte
   * budget is not: it would only confuse them (its refusal carries Retry-After and the quota).
   */
  inRateLimitHeaders: boolean;
  window: (now: number) => CountingWindow;
}

const MiB = 1024 * 1024;

/** Daily conversions (UTC day), hourly files and upload bytes (UTC hour), monthly API calls (UTC month). */
export const QUOTAS: Readonly<Record<QuotaKind, Readonly<QuotaRule>>> = Object.freeze({
  conversions: Object.freeze({
    kind: 'conversions',
    field: 'conversionsPerDay',
    allowance: (limit: number) => `${limit} conversions per day`,
    inRateLimitHeaders: true,
    window: utcDayWindow,
  }),
  files: Object.freeze({
    kind: 'files',
    field: 'filesPerHour',
    allowance: (limit: number) => `${limit} files per hour`,
    inRateLimitHeaders: true,
    window: utcHourWindow,
  }),
  uploadBytes: Object.freeze({
    kind: 'uploadBytes',
    field: 'uploadBytesPerHour',
    // Bytes read better in MB: "100 MB of uploads per hour", not "104857600 bytes ...".
    allowance: (limit: number) => `${Math.round((limit / MiB) * 10) / 10} MB of uploads per hour`,
    inRateLimitHeaders: false,
    window: utcHourWindow,
  }),
  apiCalls: Object.freeze({
    kind: 'apiCalls',
    field: 'apiCallsPerMonth',
    allowance: (limit: number) => `${limit} API calls per month`,
    inRateLimitHeaders: true,
    window: utcMonthWindow,
  }),
});

/** The plan's limit for a quota; null = unlimited. */
export function quotaLimit(plan: Readonly<Plan>, kind: QuotaKind): number | null {
  return plan[QUOTAS[kind].field];
}

/** The quota counter for `clientKey` at `now`: 'quota:conversions:ip:203.0.113.7:2026-03-10'. */
export function quotaSlot(input: { kind: QuotaKind; clientKey: string; now: number }): CounterSlot {
  const window = QUOTAS[input.kind].window(input.now);
  return {
    key: `quota:${input.kind}:${checkClientKey(input.clientKey)}:${window.id}`,
    expiresAt: window.end,
    window,
  };
}

// ---------------------------------------------------------------------------------------------
// Decisions

export interface Decision {
  allowed: boolean;
  limit: number;
  /** Units left in the window after this request; 0 when denied. */
  remaining: number;
  /** When the window's counter resets, epoch ms. */
  resetAt: number;
  /** Whole seconds until the reset, rounded up (so waiting that long always suffices); 0 when allowed. */
  retryAfterSeconds: number;
}

/** Whole seconds from `now` until `at`, rounded up, never negative. */
export function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * Decides from the counter value *after* this request was added: `count` <= `limit` passes, so
 * with a limit of 20 the 20th request passes and the 21st is refused.
 */
export function decide(input: { limit: number; count: number; windowEnd: number; now: number }): Decision {
  const allowed = input.count <= input.limit;
  return {
    allowed,
    limit: input.limit,
    remaining: Math.max(0, input.limit - input.count),
    resetAt: input.windowEnd,
    retryAfterSeconds: allowed ? 0 : Math.max(1, secondsUntil(input.windowEnd, input.now)),
  };
}

function denialDetails(decision: Decision, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    ...extra,
    limit: decision.limit,
    remaining: 0,
    resetAt: new Date(decision.resetAt).toISOString(),
    retryAfterSeconds: decision.retryAfterSeconds,
  };
}

/** The 429 RATE_LIMITED for a refused request; its details name the policy and the scope. */
export function rateLimitedError(rule: RateLimitRule, decision: Decision): FileconvError {
  const perWindow = rule.windowMs === MINUTE_MS ? 'per minute' : `per ${rule.windowMs / 1000} seconds`;
  const scope = rule.scope ?? 'ip';
  const what =
    rule.name === AUTH_FAILURE_LIMIT.name
      ? `Too many failed sign-ins: this address may fail ${rule.limit} times ${perWindow}.`
      : scope === 'account'
        ? `Too many requests: your plan allows ${rule.limit} requests ${perWindow} to this endpoint.`
        : `Too many requests: this endpoint allows ${rule.limit} requests ${perWindow}.`;
  return new FileconvError('RATE_LIMITED', `${what} Try again in ${decision.retryAfterSeconds} seconds.`, {
    details: denialDetails(decision, { policy: rule.name, scope }),
  });
}

/** The 429 QUOTA_EXCEEDED for a refused request. */
export function quotaExceededError(plan: Readonly<Plan>, kind: QuotaKind, decision: Decision): FileconvError {
  const resetAt = new Date(decision.resetAt).toISOString();
  return new FileconvError(
    'QUOTA_EXCEEDED',
    `The ${plan.label} plan allows ${QUOTAS[kind].allowance(decision.limit)}; the quota resets at ${resetAt}.`,
    { details: denialDetails(decision, { quota: kind, plan: plan.name }) },
  );
}
