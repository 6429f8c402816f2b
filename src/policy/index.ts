/**
 * Plans, API keys, rate limits and quotas: pure decisions (plans, windows, limits, headers,
 * api-keys) plus enforce.ts, which applies them through an injected CounterStore.
 */
export {
  API_KEY_ID_LENGTH,
  API_KEY_PREFIX,
  API_KEY_SECRET_LENGTH,
  type ApiKeyIdentity,
  type AuthFailure,
  authenticate,
  bearerChallenge,
  type CreateApiKeyInput,
  createApiKey,
  generateApiKey,
  hashApiKey,
  isApiKeyFormat,
  isApiKeyId,
  type ParsedAuthorization,
  parseAuthorization,
  revokeApiKey,
} from './api-keys.js';
export {
  consumeQuota,
  enforceRateLimit,
  type LimitOutcome,
  type QuotaOutcome,
  type QuotaStatus,
  type QuotaTicket,
  quotaStatus,
  refundQuota,
} from './enforce.js';
export { type RateLimitHeaderEntry, rateLimitHeaders, windowSeconds } from './headers.js';
export {
  type CounterSlot,
  clientKeyOf,
  type Decision,
  decide,
  QUOTAS,
  type QuotaKind,
  type QuotaRule,
  quotaExceededError,
  quotaLimit,
  quotaSlot,
  RATE_LIMITS,
  type RateLimitClass,
  type RateLimitRule,
  rateLimitClassOf,
  rateLimitedError,
  rateLimitSlot,
  secondsUntil,
} from './limits.js';
export {
  assertBatchAllowed,
  assertFileSize,
  DEFAULT_PLANS,
  type DefinePlansOptions,
  definePlans,
  FREE_PLAN,
  GB,
  getPlan,
  hasPlan,
  MB,
  type Plan,
  type PlanOverride,
  type PlanTable,
} from './plans.js';
export { refundFailedConversions, refundIfServiceFault, SERVICE_FAULT_CODES } from './refunds.js';
export {
  type CountingWindow,
  DAY_MS,
  fixedWindow,
  HOUR_MS,
  MINUTE_MS,
  minuteWindow,
  utcDayWindow,
  utcHourWindow,
  utcMonthWindow,
} from './windows.js';
