import { mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStorage, type FsStorage } from '../../src/adapters/storage/fs.js';
import { createMemoryStorage } from '../../src/adapters/storage/memory.js';
import { readAll, testStorage } from '../../src/testing/index.js';
import { listFiles, makeTempDir } from './tmp-dirs.js';

testStorage('memory', () => createMemoryStorage());

testStorage('fs', async () => {
  const { dir, remove } = await makeTempDir('storage');
  return { adapter: createFsStorage({ dir }), cleanup: remove };
});

describe('createFsStorage', () => {
  let root: string;
  let dir: string;
  let remove: () => Promise<void>;
  let storage: FsStorage;

  beforeEach(async () => {
    ({ dir: root, remove } = await makeTempDir('storage-fs'));
    // The storage lives one level down, so "outside its dir" is still inside this test's temp dir.
    dir = path.join(root, 'objects');
    storage = createFsStorage({ dir });
  });
  afterEach(() => remove());

  it('validates options naming the option, expected and given', () => {
    expect(() => createFsStorage({ dir: '' })).toThrow(/option "dir" must be a non-empty string, got ""/);
    expect(() => createFsStorage(undefined as never)).toThrow(/option "dir"/);
    expect(() => createFsStorage({ dir, fsync: 'yes' as never })).toThrow(/option "fsync" must be a boolean/);
    expect(() => createFsStorage({ dir, staleTempAfterMs: -1 })).toThrow(/staleTempAfterMs/);
  });

  it('stores objects as plain files at their key path', async () => {
    await storage.put('uploads/2026/abc/photo.png', Buffer.from('png'), { contentType: 'image/png' });
    expect(await storage.localPath('uploads/2026/abc/photo.png')).toBe(
      path.join(dir, 'uploads/2026/abc/photo.png'),
    );
    expect(await listFiles(dir)).toEqual([
      '.fileconv-meta/uploads/2026/abc/photo.png',
      'uploads/2026/abc/photo.png',
    ]);
  });

  it('leaves no file behind when a put fails mid-stream or overflows', async () => {
    let sent = 0;
    const failing = new Readable({
      read() {
        if (sent++ < 4) this.push(Buffer.alloc(64 * 1024, 1));
        else this.destroy(new Error('client went away'));
      },
    });
    await expect(storage.put('a/broken.bin', failing, { contentType: 'text/plain' })).rejects.toThrow();
    await expect(
      storage.put('a/big.bin', Readable.from([Buffer.alloc(5000)]), { maxBytes: 10 }),
    ).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
    });
    expect(await listFiles(dir)).toEqual([]);
  });

  it('never creates or reads files outside its dir', async () => {
    await writeFile(path.join(root, 'secret.txt'), 'secret');
    const attempts = [
      '../secret.txt',
      '../escaped.txt',
      'a/../../escaped.txt',
      '/tmp/escaped.txt',
      '..\\escaped.txt',
    ];
    for (const key of attempts) {
      await expect(storage.put(key, Buffer.from('x'))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      await expect(storage.get(key)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      await expect(storage.delete(key)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      await expect(storage.localPath(key)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    }
    expect(await listFiles(root)).toEqual(['secret.txt']);
    expect(await readFile(path.join(root, 'secret.txt'), 'utf8')).toBe('secret');
  });

  it('refuses keys that address its own bookkeeping', async () => {
    for (const key of ['.fileconv-tmp/x', '.fileconv-meta/a/b', '.fileconv-anything']) {
      await expect(storage.put(key, Buffer.from('x'))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      await expect(storage.head(key)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    }
  });

  it('does not show temp files of interrupted puts as objects and sweeps stale ones', async () => {
    await mkdir(path.join(dir, '.fileconv-tmp'), { recursive: true });
    const stale = path.join(dir, '.fileconv-tmp', 'left-by-a-crash.data');
    await writeFile(stale, 'partial');
    // Dated an hour back: a file written this millisecond can carry an mtime a fraction past Date.now().
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(stale, hourAgo, hourAgo);
    const sweeping = createFsStorage({ dir, staleTempAfterMs: 60_000 });
    await sweeping.put('a/new.bin', Buffer.from('x'));
    expect(await listFiles(dir)).toEqual(['a/new.bin']);
  });

  it('removes directories emptied by delete', async () => {
    await storage.put('uploads/2026/abc/photo.png', Buffer.from('png'), { contentType: 'image/png' });
    await storage.put('uploads/2026/def/photo.png', Buffer.from('png'));
    await storage.delete('uploads/2026/abc/photo.png');
    const entries = await readdir(path.join(dir, 'uploads/2026'));
    expect(entries).toEqual(['def']);
    expect(await readdir(path.join(dir, '.fileconv-meta'))).toEqual([]);
  });

  it('answers a key that collides with a directory of keys as missing, and refuses to store it', async () => {
    await storage.put('a/b', Buffer.from('x'));
    expect(await storage.head('a')).toBeNull();
    await expect(storage.get('a')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(storage.put('a', Buffer.from('y'))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(storage.put('a/b/c', Buffer.from('y'))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await listFiles(dir)).toEqual(['a/b']);
  });

  it('keeps serving an object being read while it is overwritten', async () => {
    await storage.put('k', Buffer.alloc(200_000, 1));
    const reading = await storage.get('k');
    await storage.put('k', Buffer.alloc(10, 2));
    const bytes = await readAll(reading);
    expect(bytes.length).toBe(200_000);
    expect(bytes.every((byte) => byte === 1)).toBe(true);
  });
});

describe('createMemoryStorage', () => {
  it('is independent per instance', async () => {
    const first = createMemoryStorage();
    await first.put('k', Buffer.from('x'));
    expect(await createMemoryStorage().head('k')).toBeNull();
  });
});
