/**
 * Conformance suite for Storage adapters. Every storage fileconv ships runs it, and a host app
 * runs it against its own: `testStorage('my storage', () => createMyStorage())`. It pins down
 * what the engine relies on: byte-exact round trips, streaming with the size limit enforced
 * while streaming, atomic replacement, inclusive ranges, the key rules, and the errors.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Storage } from '../core/ports/index.js';
import { type AdapterFactory, useFreshInstance } from './fresh-instance.js';
import { testResumableStorage } from './storage-resumable.js';
import { endlessStream, failingStream, patternStream, readAll, sha256 } from './streams.js';

export interface StorageSuiteOptions {
  /** Size in bytes of the body streamed in the large round trip. Default 8 MiB. */
  largeBodyBytes?: number;
  /** Also PUT and GET through presigned URLs with fetch (needs the storage reachable from here). Default false. */
  fetchPresigned?: boolean;
}

const MiB = 1024 * 1024;
const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, index) => index);

const INVALID_KEYS = [
  '',
  '/absolute/key',
  '../escape',
  'a/../../b',
  'a/./b',
  'a\\b',
  'a\0b',
  'a//b',
  'trailing/',
];

export function testStorage(
  name: string,
  factory: AdapterFactory<Storage>,
  options: StorageSuiteOptions = {},
): void {
  const largeBodyBytes = options.largeBodyBytes ?? 8 * MiB;

  describe(`Storage conformance: ${name}`, () => {
    const storage = useFreshInstance(factory);

    describe('round trips', () => {
      it('stores all 256 byte values exactly and reports size and type', async () => {
        const info = await storage().put('t/bytes.bin', ALL_BYTES, {
          contentType: 'application/octet-stream',
        });
        expect(info).toMatchObject({ size: 256, contentType: 'application/octet-stream' });
        expect(await storage().head('t/bytes.bin')).toMatchObject({
          size: 256,
          contentType: 'application/octet-stream',
        });
        expect([...(await readAll(await storage().get('t/bytes.bin')))]).toEqual([...ALL_BYTES]);
      });

      it(`streams a ${(largeBodyBytes / MiB).toFixed(1)} MiB body in and out`, async () => {
        const info = await storage().put('t/large.bin', patternStream(largeBodyBytes));
        expect(info.size).toBe(largeBodyBytes);
        expect((await storage().head('t/large.bin'))?.size).toBe(largeBodyBytes);
        expect(await sha256(await storage().get('t/large.bin'))).toBe(
          await sha256(patternStream(largeBodyBytes)),
        );
      });

      it('stores an empty body', async () => {
        expect((await storage().put('t/empty', Readable.from([]))).size).toBe(0);
        expect((await storage().head('t/empty'))?.size).toBe(0);
        expect((await readAll(await storage().get('t/empty'))).length).toBe(0);
      });

      it('accepts nested keys with spaces and non-ASCII names, each independent', async () => {
        const keys = ['uploads/2026/abc123/photo.png', 'uploads/2026/abc123/my photo – ünïcødé ✓.png'];
        await Promise.all(keys.map((key, index) => storage().put(key, Buffer.from(`body ${index}`))));
        for (const [index, key] of keys.entries()) {
          expect((await readAll(await storage().get(key))).toString()).toBe(`body ${index}`);
        }
        await storage().delete(keys[0]!);
        expect(await storage().head(keys[0]!)).toBeNull();
        expect((await readAll(await storage().get(keys[1]!))).toString()).toBe('body 1');
      });

      it('keeps no reference to the caller’s buffer and hands out chunks that are copies', async () => {
        const body = Buffer.from('original');
        await storage().put('t/copy', body);
        body.fill(0);
        const first = await readAll(await storage().get('t/copy'));
        first.fill(0);
        expect((await readAll(await storage().get('t/copy'))).toString()).toBe('original');
      });

      it('replaces an object on overwrite', async () => {
        await storage().put('t/over', Buffer.from('first version, longer'), { contentType: 'text/plain' });
        await storage().put('t/over', Buffer.from('second'), { contentType: 'application/json' });
        expect(await storage().head('t/over')).toMatchObject({ size: 6, contentType: 'application/json' });
        expect((await readAll(await storage().get('t/over'))).toString()).toBe('second');
      });
    });

    describe('ranges', () => {
      it('returns inclusive byte ranges', async () => {
        await storage().put('t/range', ALL_BYTES);
        const read = async (start: number, end?: number) => [
          ...(await readAll(await storage().get('t/range', end === undefined ? { start } : { start, end }))),
        ];
        expect(await read(0, 0)).toEqual([0]);
        expect(await read(10, 19)).toEqual([...ALL_BYTES.slice(10, 20)]);
        expect(await read(250)).toEqual([250, 251, 252, 253, 254, 255]);
        expect(await read(255, 255)).toEqual([255]);
      });

      it('clamps an end past the last byte', async () => {
        await storage().put('t/range', ALL_BYTES);
        expect([...(await readAll(await storage().get('t/range', { start: 200, end: 10_000 })))]).toEqual([
          ...ALL_BYTES.slice(200),
        ]);
      });

      it('refuses malformed and unsatisfiable ranges with INVALID_REQUEST', async () => {
        await storage().put('t/range', ALL_BYTES);
        for (const range of [
          { start: -1 },
          { start: 5, end: 4 },
          { start: 1.5 },
          { start: 256 },
          { start: 300, end: 400 },
        ]) {
          await expect(storage().get('t/range', range), JSON.stringify(range)).rejects.toMatchObject({
            code: 'INVALID_REQUEST',
          });
        }
      });
    });

    describe('missing objects', () => {
      it('get rejects NOT_FOUND, head answers null, delete is a no-op', async () => {
        await expect(storage().get('t/missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
        await expect(storage().get('t/missing', { start: 0, end: 1 })).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
        expect(await storage().head('t/missing')).toBeNull();
        await expect(storage().delete('t/missing')).resolves.toBeUndefined();
      });

      it('deletes an object, twice without error', async () => {
        await storage().put('t/gone', Buffer.from('x'));
        await storage().delete('t/gone');
        await storage().delete('t/gone');
        expect(await storage().head('t/gone')).toBeNull();
        await expect(storage().get('t/gone')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      });
    });

    describe('size limit and failed uploads', () => {
      it('accepts a body of exactly maxBytes', async () => {
        expect((await storage().put('t/limit', patternStream(1000, 100), { maxBytes: 1000 })).size).toBe(
          1000,
        );
      });

      it('refuses a streamed body over maxBytes with FILE_TOO_LARGE, stores nothing, destroys the source', async () => {
        const source = patternStream(1001, 100);
        await expect(storage().put('t/limit', source, { maxBytes: 1000 })).rejects.toMatchObject({
          code: 'FILE_TOO_LARGE',
        });
        expect(source.destroyed).toBe(true);
        expect(await storage().head('t/limit')).toBeNull();
      });

      it('stops an endless body at maxBytes instead of buffering it', async () => {
        const source = endlessStream(16 * MiB);
        await expect(storage().put('t/endless', source, { maxBytes: MiB })).rejects.toMatchObject({
          code: 'FILE_TOO_LARGE',
        });
        expect(source.destroyed).toBe(true);
        expect(await storage().head('t/endless')).toBeNull();
      });

      it('refuses a buffer body over maxBytes', async () => {
        await expect(storage().put('t/limit', ALL_BYTES, { maxBytes: 255 })).rejects.toMatchObject({
          code: 'FILE_TOO_LARGE',
        });
        expect(await storage().head('t/limit')).toBeNull();
      });

      it('keeps the previous object when an overwrite is too large or its stream fails', async () => {
        await storage().put('t/keep', Buffer.from('previous'));
        await expect(
          storage().put('t/keep', patternStream(5000, 100), { maxBytes: 10 }),
        ).rejects.toMatchObject({
          code: 'FILE_TOO_LARGE',
        });
        await expect(storage().put('t/keep', failingStream())).rejects.toThrow();
        expect((await readAll(await storage().get('t/keep'))).toString()).toBe('previous');
      });

      it('stores nothing when the body stream fails midway', async () => {
        await expect(storage().put('t/broken', failingStream())).rejects.toThrow();
        expect(await storage().head('t/broken')).toBeNull();
      });
    });

    describe('keys', () => {
      it.each(INVALID_KEYS)('refuses the key %j with INVALID_REQUEST in every method', async (key) => {
        await expect(storage().put(key, Buffer.from('x'))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
        await expect(storage().get(key)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
        await expect(storage().head(key)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
        await expect(storage().delete(key)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      });
    });

    testResumableStorage(storage, largeBodyBytes);

    describe('optional capabilities', () => {
      it('localPath: the path of a plain file holding the bytes, null when missing', async ({ skip }) => {
        const adapter = storage();
        if (!adapter.localPath) return skip('the storage has no localPath');
        await adapter.put('t/local.bin', ALL_BYTES);
        const local = await adapter.localPath('t/local.bin');
        expect(local).toEqual(expect.any(String));
        expect([...(await readFile(local!))]).toEqual([...ALL_BYTES]);
        expect(await adapter.localPath('t/not-there.bin')).toBeNull();
      });

      it('putFile: moves a local file in; the object holds its bytes and the file is gone', async ({
        skip,
      }) => {
        const adapter = storage();
        if (!adapter.putFile) return skip('the storage has no putFile');
        const dir = await mkdtemp(join(tmpdir(), 'fileconv-putfile-'));
        try {
          const file = join(dir, 'result.bin');
          await writeFile(file, ALL_BYTES);
          const info = await adapter.putFile('t/moved.bin', file, { contentType: 'image/png' });
          expect(info).toEqual({ size: 256, contentType: 'image/png' });
          expect([...(await readAll(await adapter.get('t/moved.bin')))]).toEqual([...ALL_BYTES]);
          expect(await adapter.head('t/moved.bin')).toEqual({ size: 256, contentType: 'image/png' });
          await expect(readFile(file)).rejects.toMatchObject({ code: 'ENOENT' });
          await expect(adapter.putFile('t/missing.bin', join(dir, 'not-there'))).rejects.toThrow();
          expect(await adapter.head('t/missing.bin')).toBeNull();
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });

      it('presignPut: an absolute URL that accepts the bytes', async ({ skip }) => {
        const adapter = storage();
        if (!adapter.presignPut) return skip('the storage has no presignPut');
        const url = await adapter.presignPut('t/presigned.bin', {
          contentType: 'image/png',
          size: 256,
          expiresIn: 60,
        });
        expect(() => new URL(url)).not.toThrow();
        if (!options.fetchPresigned) return;
        const response = await fetch(url, {
          method: 'PUT',
          body: ALL_BYTES,
          headers: { 'content-type': 'image/png' },
        });
        expect(response.ok).toBe(true);
        expect([...(await readAll(await adapter.get('t/presigned.bin')))]).toEqual([...ALL_BYTES]);
      });

      it('presignGet: an absolute URL that serves the bytes', async ({ skip }) => {
        const adapter = storage();
        if (!adapter.presignGet) return skip('the storage has no presignGet');
        await adapter.put('t/presigned.bin', ALL_BYTES, { contentType: 'image/png' });
        const url = await adapter.presignGet('t/presigned.bin', { expiresIn: 60, fileName: 'photo.png' });
        expect(() => new URL(url)).not.toThrow();
        if (!options.fetchPresigned) return;
        const response = await fetch(url);
        expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([...ALL_BYTES]);
      });
    });
  });
}
