/**
 * The resumable-upload part of the Storage conformance suite (Storage.resumable, what the tus
 * endpoint needs), run by testStorage and skipped for a storage without it. It pins down what
 * the engine relies on: appends at the committed offset, a body that ends early keeping what
 * arrived (as far as the storage can) and the upload continuing from there, checksums and the
 * size kept all-or-nothing, an append the engine never committed overwritten by the next one,
 * and abort leaving nothing.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ResumableState, ResumableUploads, Storage } from '../core/ports/index.js';
import { failingStream, patternStream, readAll, sha256 } from './streams.js';

/** The first `size` bytes of the suite's pattern. */
async function patternBytes(size: number): Promise<Buffer> {
  return readAll(patternStream(size));
}

/** What arrived before the body broke, then the break (a client whose connection dropped). */
function brokenBody(bytes: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (sent) return void this.destroy(new Error('connection reset'));
      sent = true;
      this.push(bytes);
    },
  });
}

interface Upload {
  resumable: ResumableUploads;
  key: string;
  state: ResumableState;
  offset: number;
  size: number;
}

async function begin(storage: Storage, key: string, size: number, contentType = 'application/octet-stream') {
  const resumable = storage.resumable!;
  const state = await resumable.begin(key, { size, contentType });
  return { resumable, key, state, offset: 0, size } satisfies Upload;
}

/** Appends `bytes` at the upload's offset and moves it on, as the engine commits it. */
async function append(
  upload: Upload,
  bytes: Buffer | Readable,
  checksum?: { algorithm: 'sha1' | 'sha256' | 'md5'; digest: Buffer },
) {
  const body = bytes instanceof Readable ? bytes : Readable.from([bytes]);
  const result = await upload.resumable.append(upload.key, upload.state, body, {
    offset: upload.offset,
    size: upload.size,
    ...(checksum ? { checksum } : {}),
  });
  upload.state = result.state;
  upload.offset = result.offset;
  return result;
}

export function testResumableStorage(storage: () => Storage, largeBodyBytes: number): void {
  describe('resumable uploads (Storage.resumable)', () => {
    it('appends in pieces at the committed offset; complete makes the object with its type', async ({
      skip,
    }) => {
      if (!storage().resumable) return skip('the storage has no resumable');
      const bytes = await patternBytes(300_000);
      const upload = await begin(storage(), 'r/pieces.bin', bytes.length, 'image/png');
      for (const [start, end] of [
        [0, 1],
        [1, 100_000],
        [100_000, 300_000],
      ] as const) {
        expect((await append(upload, bytes.subarray(start, end))).offset).toBe(end);
      }
      expect(await storage().head('r/pieces.bin')).toBeNull();
      expect(await upload.resumable.complete(upload.key, upload.state)).toMatchObject({ size: bytes.length });
      expect(await storage().head('r/pieces.bin')).toMatchObject({
        size: bytes.length,
        contentType: 'image/png',
      });
      expect((await readAll(await storage().get('r/pieces.bin'))).equals(bytes)).toBe(true);
    });

    it(`streams ${(largeBodyBytes / 1024 / 1024).toFixed(1)} MiB in two appends, byte-exact`, async ({
      skip,
    }) => {
      if (!storage().resumable) return skip('the storage has no resumable');
      const half = Math.floor(largeBodyBytes / 2);
      const upload = await begin(storage(), 'r/large.bin', largeBodyBytes);
      const bytes = await patternBytes(largeBodyBytes);
      await append(upload, Readable.from(chunks(bytes.subarray(0, half))));
      expect(upload.offset).toBe(half);
      await append(upload, Readable.from(chunks(bytes.subarray(half))));
      expect(upload.offset).toBe(largeBodyBytes);
      await upload.resumable.complete(upload.key, upload.state);
      expect(await sha256(await storage().get('r/large.bin'))).toBe(
        await sha256(patternStream(largeBodyBytes)),
      );
    });

    it('a body that breaks keeps at most what arrived; the upload continues from the offset returned', async ({
      skip,
    }) => {
      if (!storage().resumable) return skip('the storage has no resumable');
      const bytes = await patternBytes(200_000);
      const upload = await begin(storage(), 'r/broken.bin', bytes.length);
      await append(upload, bytes.subarray(0, 10_000));
      const result = await append(upload, brokenBody(bytes.subarray(10_000, 150_000)));
      expect(result.offset).toBeGreaterThanOrEqual(10_000);
      expect(result.offset).toBeLessThanOrEqual(150_000);
      await append(upload, bytes.subarray(upload.offset));
      await upload.resumable.complete(upload.key, upload.state);
      expect((await readAll(await storage().get('r/broken.bin'))).equals(bytes)).toBe(true);
    });

    it('keeps an append only when its checksum matches (CHECKSUM_MISMATCH keeps nothing)', async ({
      skip,
    }) => {
      if (!storage().resumable) return skip('the storage has no resumable');
      const bytes = await patternBytes(50_000);
      const upload = await begin(storage(), 'r/checksum.bin', bytes.length);
      const first = bytes.subarray(0, 20_000);
      await append(upload, first, {
        algorithm: 'sha256',
        digest: createHash('sha256').update(first).digest(),
      });
      expect(upload.offset).toBe(20_000);
      const rest = bytes.subarray(20_000);
      const wrong = {
        algorithm: 'sha1' as const,
        digest: createHash('sha1').update('something else').digest(),
      };
      await expect(append(upload, rest, wrong)).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
      expect(upload.offset).toBe(20_000);
      await append(upload, rest, { algorithm: 'md5', digest: createHash('md5').update(rest).digest() });
      await upload.resumable.complete(upload.key, upload.state);
      expect((await readAll(await storage().get('r/checksum.bin'))).equals(bytes)).toBe(true);
    });

    it('refuses bytes past the size (FILE_TOO_LARGE), keeping none of that append', async ({ skip }) => {
      if (!storage().resumable) return skip('the storage has no resumable');
      const bytes = await patternBytes(30_000);
      const upload = await begin(storage(), 'r/too-large.bin', bytes.length);
      await append(upload, bytes.subarray(0, 10_000));
      const overflowing = Buffer.concat([bytes.subarray(10_000), Buffer.alloc(5, 9)]);
      await expect(append(upload, overflowing)).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
      expect(upload.offset).toBe(10_000);
      await append(upload, bytes.subarray(10_000));
      await upload.resumable.complete(upload.key, upload.state);
      expect((await readAll(await storage().get('r/too-large.bin'))).equals(bytes)).toBe(true);
    });

    it('overwrites an append the engine never committed with the next one at the committed offset', async ({
      skip,
    }) => {
      if (!storage().resumable) return skip('the storage has no resumable');
      const bytes = await patternBytes(40_000);
      const upload = await begin(storage(), 'r/uncommitted.bin', bytes.length);
      await append(upload, bytes.subarray(0, 10_000));
      const committed = { state: upload.state, offset: upload.offset };
      await append(upload, Buffer.alloc(20_000, 0xee)); // stored, but its commit was lost
      Object.assign(upload, committed);
      await append(upload, bytes.subarray(10_000));
      await upload.resumable.complete(upload.key, upload.state);
      expect((await readAll(await storage().get('r/uncommitted.bin'))).equals(bytes)).toBe(true);
    });

    it('abort drops the bytes and stores nothing; aborting twice is not an error', async ({ skip }) => {
      if (!storage().resumable) return skip('the storage has no resumable');
      const upload = await begin(storage(), 'r/aborted.bin', 100_000);
      await append(upload, await patternBytes(50_000));
      await upload.resumable.abort(upload.key, upload.state);
      await upload.resumable.abort(upload.key, upload.state);
      expect(await storage().head('r/aborted.bin')).toBeNull();
      await expect(append(upload, failingStream())).rejects.toThrow();
    });
  });
}

function* chunks(bytes: Buffer, size = 64 * 1024): Generator<Buffer> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}
