/**
 * Conformance suite for KeyStore adapters: `testKeyStore('my store', () => createMyStore())`.
 * It pins down what authentication rests on: a record is found by its hash (revoked ones too, so
 * the caller can tell "revoked" from "unknown"), ids and hashes are unique, revocation is
 * idempotent and keeps its first instant, listings are per account and oldest first, and
 * records handed out are copies.
 */
import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord, KeyStore } from '../core/ports/index.js';
import { type AdapterFactory, useFreshInstance } from './fresh-instance.js';

let serial = 0;

/** A complete, valid key record with a unique id and hash; `overrides` win. */
export function sampleApiKeyRecord(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  serial += 1;
  const id = `k${String(serial).padStart(4, '0')}${randomUUID().replaceAll('-', '').slice(0, 7)}`;
  return {
    id,
    hash: createHash('sha256').update(`fc_${id}_secret`).digest('hex'),
    accountId: 'account_1',
    plan: 'plus',
    label: 'CI – ünïcode label',
    createdAt: '2026-01-01T00:00:00.000Z',
    revokedAt: null,
    ...overrides,
  };
}

export function testKeyStore(name: string, factory: AdapterFactory<KeyStore>): void {
  describe(`KeyStore conformance: ${name}`, () => {
    const store = useFreshInstance(factory);

    it('stores a record and finds it by hash, field for field', async () => {
      const record = sampleApiKeyRecord();
      await store().create(record);
      expect(await store().findByHash(record.hash)).toEqual(record);
    });

    it('answers null for an unknown or odd hash', async () => {
      await store().create(sampleApiKeyRecord());
      expect(await store().findByHash('0'.repeat(64))).toBeNull();
      for (const hash of ['', 'not-a-hash', '../../etc/passwd', '__proto__', 'constructor']) {
        expect(await store().findByHash(hash)).toBeNull();
      }
    });

    it('refuses a second record with the same id or the same hash', async () => {
      const record = sampleApiKeyRecord();
      await store().create(record);
      const other = sampleApiKeyRecord();
      await expect(store().create({ ...other, id: record.id })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
      await expect(store().create({ ...other, hash: record.hash })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
      expect(await store().list()).toEqual([record]);
    });

    it('refuses an incomplete record', async () => {
      await expect(store().create({ ...sampleApiKeyRecord(), hash: 'plain-secret' })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
      await expect(store().create({ ...sampleApiKeyRecord(), accountId: '' })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
      expect(await store().list()).toEqual([]);
    });

    it('lists all records or one account, oldest first, ties by id', async () => {
      const late = sampleApiKeyRecord({ id: 'key_c', createdAt: '2026-03-01T00:00:00.000Z' });
      const tieB = sampleApiKeyRecord({ id: 'key_b', createdAt: '2026-02-01T00:00:00.000Z' });
      const tieA = sampleApiKeyRecord({ id: 'key_a', createdAt: '2026-02-01T00:00:00.000Z' });
      const early = sampleApiKeyRecord({
        id: 'key_d',
        accountId: 'account_2',
        createdAt: '2026-01-01T00:00:00Z',
      });
      for (const record of [late, tieB, tieA, early]) await store().create(record);
      expect((await store().list()).map((record) => record.id)).toEqual(['key_d', 'key_a', 'key_b', 'key_c']);
      expect(await store().list({ accountId: 'account_2' })).toEqual([early]);
      expect(await store().list({ accountId: 'nobody' })).toEqual([]);
      expect(await store().list({})).toHaveLength(4);
    });

    it('revokes a key, still finds it by hash, and keeps the first revocation instant', async () => {
      const record = sampleApiKeyRecord();
      await store().create(record);
      const revoked = await store().revoke(record.id, '2026-02-01T00:00:00.000Z');
      expect(revoked).toEqual({ ...record, revokedAt: '2026-02-01T00:00:00.000Z' });
      expect(await store().findByHash(record.hash)).toEqual(revoked);
      expect(await store().revoke(record.id, '2026-03-01T00:00:00.000Z')).toEqual(revoked);
      expect(await store().list()).toEqual([revoked]);
    });

    it('answers NOT_FOUND when revoking an unknown or odd id', async () => {
      for (const id of ['key_missing', '', '../x', '__proto__']) {
        await expect(store().revoke(id, '2026-02-01T00:00:00.000Z')).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
      }
    });

    it('keeps every one of 50 concurrent creates', async () => {
      const records = Array.from({ length: 50 }, () => sampleApiKeyRecord());
      await Promise.all(records.map((record) => store().create(record)));
      expect(await store().list()).toHaveLength(50);
      for (const record of records) expect(await store().findByHash(record.hash)).toEqual(record);
    });

    it('is not changed through records passed in or handed out', async () => {
      const record = sampleApiKeyRecord();
      const expected = structuredClone(record);
      await store().create(record);
      record.plan = 'enterprise';
      const found = (await store().findByHash(record.hash))!;
      found.revokedAt = '2026-02-01T00:00:00.000Z';
      const [listed] = await store().list();
      listed!.accountId = 'someone else';
      const revoked = await store().revoke(record.id, '2026-02-01T00:00:00.000Z');
      revoked.label = 'changed';
      expect(await store().findByHash(record.hash)).toEqual({
        ...expected,
        revokedAt: '2026-02-01T00:00:00.000Z',
      });
    });
  });
}
