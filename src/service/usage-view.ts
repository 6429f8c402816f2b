/** GET /api/usage: the caller's plan, its limits, what is used and when each window resets. */
import { quotaStatus } from '../core/policy/enforce.js';
import { clientKeyOf, planRateLimit, type QuotaKind, type RateLimitClass } from '../core/policy/limits.js';
import type { AccessSettings, Client } from './access.js';

const QUOTA_KINDS: readonly QuotaKind[] = ['conversions', 'files', 'uploadBytes', 'apiCalls'];
const RATE_CLASSES: readonly RateLimitClass[] = ['upload', 'default'];

export async function usageView(settings: AccessSettings, client: Client) {
  const { plan } = client;
  const now = settings.now();
  const clientKey = clientKeyOf(
    client.accountId === null ? null : { accountId: client.accountId },
    client.ip,
  );
  const quotas: Record<string, unknown> = {};
  for (const kind of QUOTA_KINDS) {
    // Anonymous clients make no API calls in the specification's sense (they have no key).
    if (kind === 'apiCalls' && client.accountId === null) continue;
    const status = settings.counters
      ? await quotaStatus(settings.counters, { plan, kind, clientKey, now })
      : null;
    quotas[kind] = status
      ? {
          limit: status.limit,
          used: status.used,
          remaining: status.remaining,
          resetAt: new Date(status.resetAt).toISOString(),
        }
      : { limit: null, used: null, remaining: null, resetAt: null };
  }
  return {
    account: client.accountId,
    plan: {
      name: plan.name,
      label: plan.label,
      conversionsPerDay: plan.conversionsPerDay,
      maxFileBytes: plan.maxFileBytes,
      filesPerHour: plan.filesPerHour,
      uploadBytesPerHour: plan.uploadBytesPerHour,
      uploadRetentionSeconds: plan.uploadRetentionSeconds,
      maxWorkPixels: plan.maxWorkPixels,
      maxMediaSeconds: plan.maxMediaSeconds,
      maxDocumentPages: plan.maxDocumentPages,
      apiCallsPerMonth: plan.apiCallsPerMonth,
      priority: plan.priority,
      batch: plan.batch,
      maxBatchJobs: plan.maxBatchJobs,
      uploadRequestsPerMinute: plan.uploadRequestsPerMinute,
      requestsPerMinute: plan.requestsPerMinute,
    },
    quotas,
    // The rules this caller's requests count against: per IP for the anonymous Free tier, per
    // account at the plan's rates for a key. Without counters nothing is rate-limited (limits
    // off): no rule to announce; a plan without a rate (null) has none either.
    rateLimits: settings.counters
      ? RATE_CLASSES.flatMap((rateClass) => {
          const rule = planRateLimit(plan, rateClass, client.accountId === null ? 'ip' : 'account');
          return rule
            ? [{ name: rule.name, limit: rule.limit, windowSeconds: rule.windowMs / 1000, scope: rule.scope }]
            : [];
        })
      : [],
  };
}
