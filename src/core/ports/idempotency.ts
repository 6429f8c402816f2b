/**
 * The IdempotencyStore port (the HTTP service's Idempotency-Key header). A key is claimed by the
 * one request that runs; the others see it pending (and wait) or done (and get its answer). A
 * pending claim holds a lease its runner renews while it works, so a claim whose process died is
 * taken over once the lease runs out. The store keeps fingerprints and answers as opaque strings:
 * what they mean is the HTTP service's business.
 */
/** What `claim` found. */
export type IdempotencyClaim =
  /** The key was free (or its lease had run out): the caller runs the request. */
  | { state: 'claimed' }
  /** Another request holds the key and is still running; `fingerprint` is the one it claimed with. */
  | { state: 'pending'; fingerprint: string }
  /** The key's request finished: its fingerprint and answer, as given to `complete`. */
  | { state: 'done'; fingerprint: string; answer: string };

export interface IdempotencyStore {
  /**
   * Atomically: when `key` is absent, or pending with an expired lease, records it pending for
   * `token` with `fingerprint` until `leaseMs` from now and answers `claimed`; otherwise answers
   * what the key holds. Across processes for shared stores: of any number of concurrent claims
   * exactly one is `claimed`.
   */
  claim(
    key: string,
    claim: { token: string; fingerprint: string; leaseMs: number },
  ): Promise<IdempotencyClaim>;
  /** Extends the lease of `token`'s pending claim to `leaseMs` from now; false when the claim is no longer its own. */
  renew(key: string, token: string, leaseMs: number): Promise<boolean>;
  /**
   * Turns `token`'s pending claim into a done record (fingerprint and answer) kept for `ttlMs`;
   * false (and nothing changed) when the claim is no longer its own.
   */
  complete(
    key: string,
    done: { token: string; fingerprint: string; answer: string; ttlMs: number },
  ): Promise<boolean>;
  /** Drops `token`'s pending claim (its request failed and may run again); anything else is left alone. */
  release(key: string, token: string): Promise<void>;
  close?(): Promise<void>;
}
