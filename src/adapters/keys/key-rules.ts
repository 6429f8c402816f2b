/**
 * Rules every KeyStore adapter applies the same way: what a storable key record is, ordering of
 * listings, and the errors for duplicates and unknown ids.
 */
import { FileconvError } from '../../core/errors.js';
import type { ApiKeyRecord } from '../../core/ports/index.js';

const HASH = /^[0-9a-f]{64}$/;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

function isIsoInstant(value: unknown): boolean {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value));
}

/** INVALID_REQUEST unless `record` is a complete key record a store can hold. */
export function assertStorableKeyRecord(record: ApiKeyRecord): void {
  const problem =
    record === null || typeof record !== 'object'
      ? 'must be an object'
      : typeof record.id !== 'string' || !ID.test(record.id)
        ? 'id must be 1-64 of A-Z, a-z, 0-9, "_" or "-"'
        : typeof record.hash !== 'string' || !HASH.test(record.hash)
          ? 'hash must be 64 lowercase hex digits (SHA-256)'
          : typeof record.accountId !== 'string' || record.accountId === ''
            ? 'accountId must be a non-empty string'
            : typeof record.plan !== 'string' || record.plan === ''
              ? 'plan must be a non-empty string'
              : typeof record.label !== 'string'
                ? 'label must be a string'
                : !isIsoInstant(record.createdAt)
                  ? 'createdAt must be an ISO 8601 instant'
                  : record.revokedAt !== null && !isIsoInstant(record.revokedAt)
                    ? 'revokedAt must be null or an ISO 8601 instant'
                    : null;
  if (problem) throw new FileconvError('INVALID_REQUEST', `API key record: ${problem}.`);
}

/** Whether `id` could be a stored key id (anything else is simply not found). */
export function isKeyId(id: unknown): id is string {
  return typeof id === 'string' && ID.test(id);
}

export function duplicateKeyError(record: ApiKeyRecord, field: 'id' | 'hash'): FileconvError {
  return new FileconvError('INVALID_REQUEST', `An API key with this ${field} already exists.`, {
    details: { id: record.id, field },
  });
}

export function unknownKeyError(id: string): FileconvError {
  return new FileconvError('NOT_FOUND', `No API key has the id "${String(id).slice(0, 64)}".`, {
    details: { id: String(id).slice(0, 64) },
  });
}

/** The records of `filter.accountId` (all without one), oldest first, ties by id. */
export function selectKeys(records: Iterable<ApiKeyRecord>, filter?: { accountId?: string }): ApiKeyRecord[] {
  const accountId = filter?.accountId;
  return [...records]
    .filter((record) => accountId === undefined || record.accountId === accountId)
    .sort(
      (a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
}
