import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryKeyStore } from '../../src/adapters/keys/memory.js';
import {
  authenticate,
  bearerChallenge,
  createApiKey,
  generateApiKey,
  hashApiKey,
  isApiKeyFormat,
  parseAuthorization,
  revokeApiKey,
} from '../../src/core/policy/api-keys.js';
import { DEFAULT_PLANS } from '../../src/core/policy/plans.js';
import type { ApiKeyRecord, KeyStore } from '../../src/core/ports/index.js';

const KEY = `fc_${'A1b2C3d4E5f6'}_${'x'.repeat(16)}${'Y9'.repeat(8)}`;

describe('generateApiKey', () => {
  it('makes fc_<12 base62>_<32 base62> keys with their id and SHA-256 hash', () => {
    const { key, id, hash } = generateApiKey();
    expect(key).toMatch(/^fc_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    expect(key.slice(3, 15)).toBe(id);
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(isApiKeyFormat(key)).toBe(true);
  });

  it('never repeats and uses the whole alphabet', () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey().key);
    expect(new Set(keys).size).toBe(2000);
    const characters = new Set(keys.flatMap((key) => [...key.slice(16)]));
    expect(characters.size).toBe(62);
  });
});

describe('hashApiKey', () => {
  it('is lowercase hex SHA-256 of the whole key', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('parseAuthorization', () => {
  it('reads no header as no key (the Free plan)', () => {
    expect(parseAuthorization(undefined)).toEqual({ kind: 'none' });
    expect(parseAuthorization(null)).toEqual({ kind: 'none' });
    expect(parseAuthorization([])).toEqual({ kind: 'none' });
  });

  it.each([`Bearer ${KEY}`, `bearer ${KEY}`, `BEARER ${KEY}`, `Bearer  ${KEY}`, ` Bearer ${KEY}\t`])(
    'reads %j as the key (case-insensitive scheme, 1*SP, outer whitespace ignored)',
    (header) => {
      expect(parseAuthorization(header)).toEqual({ kind: 'key', key: KEY });
      expect(parseAuthorization([header])).toEqual({ kind: 'key', key: KEY });
    },
  );

  it.each([
    '',
    '   ',
    'Bearer',
    'Bearer ',
    `Token ${KEY}`,
    `Basic ${Buffer.from(`user:${KEY}`).toString('base64')}`,
    KEY,
    `Bearer\t${KEY}`,
    `Bearer ${KEY} extra`,
    `Bearer ${KEY},`,
    `Bearer "${KEY}"`,
    `Bearer: ${KEY}`,
    `Bearer ${KEY}\nX-Injected: 1`,
  ])('refuses the header form %j with UNAUTHORIZED malformed_header', (header) => {
    expect(() => parseAuthorization(header)).toThrow(
      expect.objectContaining({ code: 'UNAUTHORIZED', status: 401, details: { reason: 'malformed_header' } }),
    );
  });

  it.each([
    'fc_A1b2C3d4E5f6_short',
    `fc_A1b2C3d4E5f_${'x'.repeat(32)}`,
    `fc_A1b2C3d4E5f67_${'x'.repeat(31)}`,
    `FC_A1b2C3d4E5f6_${'x'.repeat(32)}`,
    `fc_A1b2C3d4E5f6_${'x'.repeat(33)}`,
    `fc_A1b2C3d4E5f6-${'x'.repeat(32)}`,
    `fc_A1b2C3d4E5f6_${'x'.repeat(31)}=`,
    `sk_A1b2C3d4E5f6_${'x'.repeat(32)}`,
    'undefined',
  ])('refuses the almost-right key %j with UNAUTHORIZED malformed_key', (key) => {
    expect(() => parseAuthorization(`Bearer ${key}`)).toThrow(
      expect.objectContaining({ code: 'UNAUTHORIZED', details: { reason: 'malformed_key' } }),
    );
  });

  it('refuses several Authorization headers', () => {
    expect(() => parseAuthorization([`Bearer ${KEY}`, `Bearer ${KEY}`])).toThrow(
      expect.objectContaining({ code: 'UNAUTHORIZED' }),
    );
  });
});

describe('authenticate', () => {
  async function withKey(plan = 'pro') {
    const store = createMemoryKeyStore();
    const { key, record } = await createApiKey(
      store,
      { accountId: 'acc_1', plan, label: 'ci' },
      Date.parse('2026-03-10T12:00:00Z'),
    );
    return { store, key, record };
  }

  it('answers null without a header', async () => {
    const { store } = await withKey();
    expect(await authenticate(store, undefined)).toBeNull();
  });

  it('answers the account, plan and key id for a live key', async () => {
    const { store, key, record } = await withKey('business');
    expect(await authenticate(store, `Bearer ${key}`)).toEqual({
      accountId: 'acc_1',
      plan: 'business',
      keyId: record.id,
    });
    expect(await authenticate(store, `bearer ${key}`)).toEqual({
      accountId: 'acc_1',
      plan: 'business',
      keyId: record.id,
    });
  });

  it('refuses a well-formed key nobody issued, and a key one character off', async () => {
    const { store, key } = await withKey();
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    for (const other of [generateApiKey().key, `${key.slice(0, -1)}${last}`]) {
      await expect(authenticate(store, `Bearer ${other}`)).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
        details: { reason: 'unknown_key' },
      });
    }
  });

  it('refuses a revoked key', async () => {
    const { store, key, record } = await withKey();
    const revoked = await revokeApiKey(store, record.id, Date.parse('2026-03-11T00:00:00Z'));
    expect(revoked.revokedAt).toBe('2026-03-11T00:00:00.000Z');
    await expect(authenticate(store, `Bearer ${key}`)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'The API key has been revoked.',
      details: { reason: 'revoked_key' },
    });
  });

  it('refuses a malformed header before touching the store', async () => {
    let lookups = 0;
    const store: KeyStore = {
      ...createMemoryKeyStore(),
      findByHash: async () => {
        lookups++;
        return null;
      },
    };
    await expect(authenticate(store, 'Token abc')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(authenticate(store, 'Bearer')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(lookups).toBe(0);
  });

  it('refuses a record stored under another id than the key carries', async () => {
    const { key, hash } = generateApiKey();
    const record: ApiKeyRecord = {
      id: 'ZZZZZZZZZZZZ',
      hash,
      accountId: 'acc_1',
      plan: 'pro',
      label: '',
      createdAt: '2026-01-01T00:00:00.000Z',
      revokedAt: null,
    };
    const store: KeyStore = { ...createMemoryKeyStore(), findByHash: async () => record };
    await expect(authenticate(store, `Bearer ${key}`)).rejects.toMatchObject({
      details: { reason: 'unknown_key' },
    });
  });
});

describe('createApiKey and revokeApiKey', () => {
  it('stores only the hash, with the given account, plan, label and time', async () => {
    const store = createMemoryKeyStore();
    const { key, record } = await createApiKey(
      store,
      { accountId: 'acc_1', plan: 'plus', label: 'laptop', plans: DEFAULT_PLANS },
      Date.parse('2026-03-10T12:00:00Z'),
    );
    expect(record).toEqual({
      id: key.slice(3, 15),
      hash: hashApiKey(key),
      accountId: 'acc_1',
      plan: 'plus',
      label: 'laptop',
      createdAt: '2026-03-10T12:00:00.000Z',
      revokedAt: null,
    });
    expect(await store.list()).toEqual([record]);
    expect(JSON.stringify(await store.list())).not.toContain(key.slice(16));
  });

  it('refuses an unknown plan, an empty account and control characters', async () => {
    const store = createMemoryKeyStore();
    await expect(
      createApiKey(store, { accountId: 'acc_1', plan: 'gold', plans: DEFAULT_PLANS }),
    ).rejects.toThrow(/Unknown plan "gold"; known plans: free, plus/);
    await expect(createApiKey(store, { accountId: ' ', plan: 'pro' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(
      createApiKey(store, { accountId: 'acc_1', plan: 'pro', label: 'a\nb' }),
    ).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    expect(await store.list()).toEqual([]);
  });

  it('answers NOT_FOUND when revoking an unknown key', async () => {
    await expect(revokeApiKey(createMemoryKeyStore(), 'A1b2C3d4E5f6')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('bearerChallenge', () => {
  it('names the RFC 6750 error for each failure', () => {
    const fail = (header: string) => {
      try {
        parseAuthorization(header);
      } catch (error) {
        return error as never;
      }
      throw new Error('expected a failure');
    };
    expect(bearerChallenge()).toBe('Bearer realm="fileconv"');
    expect(bearerChallenge(fail('Token x'))).toBe('Bearer realm="fileconv", error="invalid_request"');
    expect(bearerChallenge(fail('Bearer nope'))).toBe('Bearer realm="fileconv", error="invalid_token"');
  });
});
