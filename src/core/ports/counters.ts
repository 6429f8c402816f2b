/**
 * The CounterStore port (rate limits and quotas). Windows are computed by the pure policy
 * (core/policy/): a counter key names its window ('rate:upload:ip:203.0.113.7:29360160'), so the
 * store only needs an atomic add with an expiry. That fits a per-minute rate limit, a UTC day and a
 * calendar month alike, and maps onto Redis INCRBY + PEXPIREAT.
 */
export interface CounterStore {
  /**
   * Adds `amount` (negative for a refund) to the counter `key`, creating it at 0 if absent or
   * expired, and returns the new value. The counter disappears at `expiresAt` (epoch ms).
   * Atomic: concurrent increments never lose an update (across processes for shared stores).
   */
  increment(key: string, amount: number, expiresAt: number): Promise<number>;
  /** The counter's current value; 0 when absent or expired. */
  get(key: string): Promise<number>;
  close?(): Promise<void>;
}
