/** GET /api/usage: the caller's plan, its limits, what is used and when each window resets. */
import { quotaStatus } from '../core/policy/enforce.js';
import { clientKeyOf, planRateLimit, type QuotaKind, type RateLimitClass } from '../core/policy/limits.js';
import type { AccessSettings, Client } from './access.js';
import type { QuotaUsage, UsageResponse } from './wire/index.js';

const RATE_CLASSES: readonly RateLimitClass[] = ['upload', 'default'];

export async function usageView(settings: AccessSettings, client: Client): Promise<UsageResponse> {
  const { plan } = client;
  const now = settings.now();
  const clientKey = clientKeyOf(
    client.accountId === null ? null : { accountId: client.accountId },
    client.ip,
  );
  const scope = client.accountId === null ? 'ip' : 'account';
  const quotaOf = async (kind: QuotaKind): Promise<QuotaUsage> => {
    const status = settings.counters
      ? await quotaStatus(settings.counters, { plan, kind, clientKey, now })
      : null;
    return status
      ? {
          limit: status.limit,
          used: status.used,
          remaining: status.remaining,
          resetAt: new Date(status.resetAt).toISOString(),
        }
      : { limit: null, used: null, remaining: null, resetAt: null };
  };
  const quotas: UsageResponse['quotas'] = {
    conversions: await quotaOf('conversions'),
    files: await quotaOf('files'),
    uploadBytes: await quotaOf('uploadBytes'),
    // Anonymous clients make no API calls in the specification's sense (they have no key);
    // undefined leaves the key out of the JSON.
    apiCalls: client.accountId === null ? undefined : await quotaOf('apiCalls'),
  };
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
          const rule = planRateLimit(plan, rateClass, scope);
          return rule
            ? [{ name: rule.name, limit: rule.limit, windowSeconds: rule.windowMs / 1000, scope }]
            : [];
        })
      : [],
  };
}
