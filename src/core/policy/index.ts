/**
 * Plans, API keys, rate limits and quotas, as the package entry `fileconv/policy`: pure decisions
 * (plans, windows, limits, headers, api-keys, settlement, overload) plus enforce.ts, which applies them
 * through an injected CounterStore. The HTTP service (`fileconv/http`) applies all of it; a host
 * that builds its own HTTP layer takes the pieces from here. The root entry re-exports what every
 * host manages: the plan table (DEFAULT_PLANS, definePlans, getPlan, FREE_PLAN) and API keys
 * (createApiKey, revokeApiKey).
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
  rateLimitSpent,
  refundQuota,
} from './enforce.js';
export { type RateLimitHeaderEntry, rateLimitHeaders, windowSeconds } from './headers.js';
export {
  AUTH_FAILURE_LIMIT,
  type CounterSlot,
  clientKeyOf,
  type Decision,
  decide,
  planRateLimit,
  QUOTAS,
  type QuotaKind,
  type QuotaRule,
  quotaExceededError,
  quotaLimit,
  quotaSlot,
  RATE_LIMITS,
  type RateLimitClass,
  type RateLimitRule,
  type RateLimitScope,
  rateLimitClassOf,
  rateLimitedError,
  rateLimitSlot,
  secondsUntil,
} from './limits.js';
export {
  assertQueueRoom,
  maxQueuedJobsOf,
  OVERLOADED_RETRY_AFTER_SECONDS,
  type QueueRoomInput,
} from './overload.js';
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
export { type Fault, faultOf, jobChargeOf, refundDue, SERVICE_FAULT_CODES } from './settlement.js';
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
