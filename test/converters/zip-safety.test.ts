import { createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { assertSafeZip, DEFAULT_ZIP_LIMITS } from '../../src/kit/zip-safety.js';
import { expectCode, FIXTURES, fixture, workspace } from './converter-harness.js';

/** Writes a zip of `entries` (name -> content) to `path`. */
async function writeZip(path: string, entries: Record<string, Buffer>): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries)) zip.addBuffer(data, name);
  zip.end();
  await finished(zip.outputStream.pipe(createWriteStream(path)));
}

/** Rewrites the uncompressed size every central directory header declares, as a hostile writer would. */
function lieAboutSizes(zip: Buffer, declared: number): Buffer {
  const copy = Buffer.from(zip);
  const signature = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
  // The uncompressed size sits 24 bytes into a central directory header.
  for (let at = copy.indexOf(signature); at >= 0; at = copy.indexOf(signature, at + 4)) {
    copy.writeUInt32LE(declared, at + 24);
  }
  return copy;
}

describe('assertSafeZip', () => {
  it.each(['docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'epub'])(
    'accepts fixture.%s and lists its parts',
    async (ext) => {
      const parts = await assertSafeZip(join(FIXTURES, `fixture.${ext}`));
      expect(parts).toContain(ext.startsWith('o') || ext === 'epub' ? 'mimetype' : '[Content_Types].xml');
    },
  );

  it('refuses an entry that inflates far beyond its compressed size (a zip bomb named .docx)', async () => {
    const ws = await workspace();
    const path = join(ws.inputs, 'bomb.docx');
    await writeZip(path, {
      '[Content_Types].xml': Buffer.from('<Types/>'),
      'word/document.xml': Buffer.alloc(DEFAULT_ZIP_LIMITS.ratioFloorBytes + 4 * 1024 * 1024),
    });
    const error = await expectCode(assertSafeZip(path), 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ reason: 'zip-bomb', entry: 'word/document.xml' });
  });

  it('refuses more inflated bytes in all than the limit', async () => {
    const ws = await workspace();
    const path = join(ws.inputs, 'big.xlsx');
    await writeZip(path, { a: Buffer.alloc(600_000, 1), b: Buffer.alloc(600_000, 2) });
    await expectCode(assertSafeZip(path, { maxUncompressedBytes: 1_000_000 }), 'INPUT_LIMIT_EXCEEDED');
    await expect(assertSafeZip(path, { maxUncompressedBytes: 1_300_000 })).resolves.toEqual(['a', 'b']);
  });

  it('refuses too many entries', async () => {
    const ws = await workspace();
    const path = join(ws.inputs, 'many.odt');
    const entries = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`e${i}`, Buffer.from('x')]));
    await writeZip(path, entries);
    await expectCode(assertSafeZip(path, { maxEntries: 10 }), 'INPUT_LIMIT_EXCEEDED');
  });

  it('catches an entry whose header lies about its size while inflating it', async () => {
    const ws = await workspace();
    const honest = join(ws.inputs, 'honest.zip');
    await writeZip(honest, { 'word/document.xml': Buffer.alloc(4 * 1024 * 1024) });
    const path = join(ws.inputs, 'liar.docx');
    await writeFile(path, lieAboutSizes(await readFile(honest), 1000));
    const error = await expectCode(assertSafeZip(path), 'INPUT_LIMIT_EXCEEDED');
    expect(error.message).toMatch(/declared size/);
  });

  it('calls an entry that inflates to fewer bytes than its header declares corrupt', async () => {
    const ws = await workspace();
    const honest = join(ws.inputs, 'honest-small.zip');
    await writeZip(honest, { 'word/document.xml': Buffer.alloc(1000) });
    const path = join(ws.inputs, 'short.docx');
    await writeFile(path, lieAboutSizes(await readFile(honest), 2000));
    const error = await expectCode(assertSafeZip(path), 'CORRUPT_INPUT');
    expect(error.message).toMatch(/not enough bytes/);
  });

  it('calls a truncated package corrupt', async () => {
    const ws = await workspace();
    const path = join(ws.inputs, 'truncated.xlsx');
    const bytes = await readFile(fixture('fixture.xlsx'));
    await writeFile(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expectCode(assertSafeZip(path), 'CORRUPT_INPUT');
  });

  it('calls bytes that are no zip at all corrupt', async () => {
    await expectCode(assertSafeZip(fixture('fixture.txt')), 'CORRUPT_INPUT');
    await expectCode(assertSafeZip(fixture('fixture.doc')), 'CORRUPT_INPUT');
  });

  it('says an encrypted Office document is password-protected', async () => {
    await expectCode(assertSafeZip(join(FIXTURES, 'bad', 'encrypted.xlsx')), 'PASSWORD_PROTECTED');
    await expectCode(assertSafeZip(join(FIXTURES, 'bad', 'encrypted.docx')), 'PASSWORD_PROTECTED');
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expectCode(assertSafeZip(fixture('fixture.docx'), {}, controller.signal), 'CANCELED');
  });
});
