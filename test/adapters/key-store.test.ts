import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsKeyStore, KEY_FILE_NAME } from '../../src/adapters/keys/fs.js';
import { createMemoryKeyStore } from '../../src/adapters/keys/memory.js';
import { authenticate, createApiKey, revokeApiKey } from '../../src/core/policy/api-keys.js';
import { sampleApiKeyRecord, testKeyStore } from '../../src/testing/index.js';
import { makeTempDir } from './tmp-dirs.js';

testKeyStore('memory', () => createMemoryKeyStore());

testKeyStore('fs', async () => {
  const { dir, remove } = await makeTempDir('keys');
  return { adapter: createFsKeyStore({ dir, fsync: false }), cleanup: remove };
});

describe('createFsKeyStore', () => {
  let dir: string;
  let remove: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, remove } = await makeTempDir('keys-fs'));
  });
  afterEach(() => remove());

  it('validates options naming the option, expected and given', () => {
    expect(() => createFsKeyStore({ dir: '' })).toThrow(/option "dir" must be a non-empty string, got ""/);
    expect(() => createFsKeyStore({ dir, fsync: 'yes' as never })).toThrow(
      /option "fsync" must be a boolean/,
    );
    expect(() => createFsKeyStore(undefined as never)).toThrow(/option "dir"/);
  });

  it('keeps every key in one file readable by the owner only, and no temp files', async () => {
    const keysDir = path.join(dir, 'state');
    const store = createFsKeyStore({ dir: keysDir });
    await store.create(sampleApiKeyRecord());
    const record = sampleApiKeyRecord();
    await store.create(record);
    await store.revoke(record.id, '2026-02-01T00:00:00.000Z');
    expect(await readdir(keysDir)).toEqual([KEY_FILE_NAME]);
    const file = path.join(keysDir, KEY_FILE_NAME);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(keysDir)).mode & 0o777).toBe(0o700);
    const content = JSON.parse(await readFile(file, 'utf8'));
    expect(content.version).toBe(1);
    expect(content.keys).toHaveLength(2);
  });

  it('never writes the key itself, only its hash', async () => {
    const store = createFsKeyStore({ dir });
    const { key } = await createApiKey(store, { accountId: 'acc_1', plan: 'pro' });
    const text = await readFile(path.join(dir, KEY_FILE_NAME), 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(-32));
  });

  it('sees keys made and revoked by another instance on the same dir (the CLI beside a server)', async () => {
    const server = createFsKeyStore({ dir });
    const cli = createFsKeyStore({ dir });
    expect(await server.list()).toEqual([]);
    const { key, record } = await createApiKey(cli, { accountId: 'acc_1', plan: 'plus', label: 'laptop' });
    expect(await authenticate(server, `Bearer ${key}`)).toEqual({
      accountId: 'acc_1',
      plan: 'plus',
      keyId: record.id,
    });
    await revokeApiKey(cli, record.id);
    await expect(authenticate(server, `Bearer ${key}`)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      details: { reason: 'revoked_key' },
    });
    const restarted = createFsKeyStore({ dir });
    expect((await restarted.list()).map((found) => found.id)).toEqual([record.id]);
  });

  it('refuses to read a damaged key file instead of treating it as empty', async () => {
    const file = path.join(dir, KEY_FILE_NAME);
    await writeFile(file, '{"version": 1, "keys": [');
    const store = createFsKeyStore({ dir });
    await expect(store.findByHash('0'.repeat(64))).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(store.create(sampleApiKeyRecord())).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(await readFile(file, 'utf8')).toBe('{"version": 1, "keys": [');
    await writeFile(file, JSON.stringify({ version: 1, keys: [{ id: 'x' }] }));
    await expect(store.list()).rejects.toThrow(/damaged/);
    await writeFile(file, JSON.stringify({ version: 2, keys: [] }));
    await expect(store.list()).rejects.toThrow(/damaged/);
  });

  it('answers null and [] before anything was written', async () => {
    const store = createFsKeyStore({ dir: path.join(dir, 'not-yet') });
    expect(await store.findByHash('0'.repeat(64))).toBeNull();
    expect(await store.list()).toEqual([]);
    await expect(store.revoke('key_1', '2026-01-01T00:00:00.000Z')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
