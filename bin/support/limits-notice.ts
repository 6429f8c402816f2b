/**
 * What `fileconv serve` tells its operator about the limits in force, which otherwise surprise a
 * self-hoster: the default is the specification's public Free tier (a few conversions a day per
 * IP address). One start-up line names the numbers of the plans actually in force and how to
 * change them; a warning says when per-IP limits meet a public address without a trust-proxy
 * setting (behind a proxy every user would share one address); and the first refusal of each
 * kind is said to the log with the same ways out. The client's error stays client-facing.
 */
import { FREE_PLAN, MB, type Plan, type PlanTable } from '../../src/core/policy/plans.js';
import type { RequestEvent } from '../../src/service/service.js';

/** How an operator changes the limits, as every notice here says it. */
const WAYS_OUT =
  'change with --plans <file> (or FILECONV_PLANS), API keys for other plans: fileconv keys create; turn off with --no-limits';

/** The start-up line: the plans in force with their numbers, or that there are no limits. */
export function limitsLine(plans: PlanTable, limits: { on: boolean; source: string }): string {
  if (!limits.on) {
    return `fileconv: limits off (${limits.source}): no limits: no rate limits and no quotas (file sizes and work budgets of the plans still apply); keep this service behind your own access control`;
  }
  const free = plans[FREE_PLAN];
  const keyed = Object.values(plans).filter((plan) => plan.name !== FREE_PLAN);
  const parts = [
    ...(free ? [`${free.label} (no API key, per IP address) ${planTerms(free)}`] : []),
    ...(keyed.length > 0
      ? [`with an API key: ${keyed.map((plan) => `${plan.label} ${conversions(plan)}`).join(', ')}`]
      : []),
  ];
  return `fileconv: limits: ${parts.join('; ')} (${WAYS_OUT})`;
}

/**
 * The warning for per-IP limits on a public address with no trust-proxy setting, else undefined:
 * behind a reverse proxy every client arrives from the proxy's address and shares its quota.
 */
export function sharedAddressWarning(options: {
  limits: boolean;
  host: string;
  trustProxy: unknown;
}): string | undefined {
  if (!options.limits || options.trustProxy !== undefined || isLoopback(options.host)) return undefined;
  return `fileconv: warning: limits are per IP address and no --trust-proxy is set: behind a reverse proxy every user shares one address (the proxy's) and one Free quota; set --trust-proxy (a hop count or the proxy's addresses) when a proxy sends X-Forwarded-For, or --trust-proxy false when there is none. A server-side caller acting for many users needs an API key (fileconv keys create)`;
}

/**
 * A watcher of answered requests that returns the operator's notice the first time a request is
 * refused by a quota (QUOTA_EXCEEDED) and the first time by a rate limit (RATE_LIMITED).
 */
export function firstLimitTrips(): (event: RequestEvent) => string | undefined {
  const said = new Set<string>();
  return (event) => {
    const { code } = event;
    if ((code !== 'QUOTA_EXCEEDED' && code !== 'RATE_LIMITED') || said.has(code)) return undefined;
    said.add(code);
    const what = code === 'QUOTA_EXCEEDED' ? 'a quota' : 'a rate limit';
    return `fileconv: a client reached ${what} (${code}, ${event.method} ${event.url}, ${event.owner}); limits: ${WAYS_OUT} (said once)`;
  };
}

/** "5 conversions per day, 20 uploads per minute, ..., files up to 25 MB" for one plan. */
function planTerms(plan: Readonly<Plan>): string {
  const terms = [
    conversions(plan),
    plan.uploadRequestsPerMinute === null ? undefined : `${plan.uploadRequestsPerMinute} uploads/min`,
    plan.requestsPerMinute === null ? undefined : `${plan.requestsPerMinute} other requests/min`,
    plan.filesPerHour === null ? undefined : `${plan.filesPerHour} files/hour`,
    plan.uploadBytesPerHour === null ? undefined : `${megabytes(plan.uploadBytesPerHour)} uploaded/hour`,
    `files up to ${megabytes(plan.maxFileBytes)}`,
  ];
  return terms.filter((term) => term !== undefined).join(', ');
}

function conversions(plan: Readonly<Plan>): string {
  return plan.conversionsPerDay === null
    ? 'unlimited conversions'
    : `${plan.conversionsPerDay} conversions/day`;
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / MB) * 10) / 10} MB`;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.') || host === '::ffff:127.0.0.1';
}
