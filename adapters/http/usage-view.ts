/** GET /api/usage: the caller's plan, its limits, what is used and when each window resets. */
import { quotaStatus } from '../../src/policy/enforce.js';
import { clientKeyOf, type QuotaKind, RATE_LIMITS } from '../../src/policy/limits.js';
import type { AccessSettings, Client } from './access.js';

const QUOTA_KINDS: readonly QuotaKind[] = ['conversions', 'files', 'uploadBytes', 'apiCalls'];

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
    },
    quotas,
    // Without counters nothing is rate-limited (limits off): no rule to announce.
    rateLimits: settings.counters
      ? Object.values(RATE_LIMITS).map((rule) => ({
          name: rule.name,
          limit: rule.limit,
          windowSeconds: rule.windowMs / 1000,
        }))
      : [],
  };
}
