/** The KeyStore port: API key records, stored hashed (a key's secret is never kept). */
export interface ApiKeyRecord {
  /** Public identifier of the key (safe to log and list); the secret part is never stored. */
  id: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
  accountId: string;
  /** Plan name from the plan table ('plus', 'pro', ...). */
  plan: string;
  /** Free-text label given at creation. */
  label: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface KeyStore {
  /** Stores a new key record; INVALID_REQUEST if its id or hash exists. */
  create(record: ApiKeyRecord): Promise<void>;
  /** The record whose hash this is, or null. Revoked records are returned too (the caller decides). */
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  /** All records, optionally of one account, oldest first. */
  list(filter?: { accountId?: string }): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked (idempotent); NOT_FOUND for an unknown id. Returns the record. */
  revoke(id: string, revokedAt: string): Promise<ApiKeyRecord>;
  close?(): Promise<void>;
}
