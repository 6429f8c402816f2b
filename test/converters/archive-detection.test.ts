/**
 * How archives are told from their bytes and names before any converter runs: a tar inside gzip
 * is seen (a plain .gz is not an archive), bzip2 and xz only as wrappers that a name or a
 * declaration makes tbz2 or txz, and a .zip upload holding a package is still that package.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DETECTION_BYTES, detectFormat } from '../../src/core/formats/index.js';
import { resolveSourceFormat } from '../../src/engine/planning.js';
import { tarBytes } from '../helpers/tar.js';
import { fixture } from './converter-harness.js';

const head = (bytes: Buffer) => bytes.subarray(0, DETECTION_BYTES);

describe('archive detection', () => {
  it('finds the tar in a gzip stream from a head of it, and nothing in a plain .gz', async () => {
    // 1 MB that does not compress: the head holds only the start of the stream.
    const large = gzipSync(tarBytes([{ name: 'noise.bin', data: randomBytes(1024 * 1024) }]));
    expect(large.length).toBeGreaterThan(DETECTION_BYTES);
    expect(await detectFormat(head(large))).toBe('tgz');
    const plain = gzipSync('just some text, gzipped\n');
    expect(await detectFormat(plain)).toBeUndefined();
    await expect(resolveSourceFormat(plain, undefined, 'notes.txt.gz')).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
    });
    await expect(resolveSourceFormat(plain, undefined, 'backup.tar.gz')).rejects.toMatchObject({
      code: 'CONTENT_MISMATCH',
    });
  });

  it('takes a bzip2 or xz stream as tbz2 or txz when the name or the caller says so', async () => {
    const bz2 = head(await readFile(fixture('fixture.tbz2')));
    const xz = head(await readFile(fixture('fixture.txz')));
    expect(await detectFormat(bz2)).toBe('bz2');
    expect(await detectFormat(xz)).toBe('xz');
    expect(await resolveSourceFormat(bz2, undefined, 'backup.tar.bz2')).toBe('tbz2');
    expect(await resolveSourceFormat(xz, undefined, 'backup.TXZ')).toBe('txz');
    expect(await resolveSourceFormat(xz, 'tar.xz')).toBe('txz');
    // Unnamed, the advice to declare the format is advice that works.
    await expect(resolveSourceFormat(xz, undefined, 'upload')).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      message: expect.stringMatching(/xz container.*declare it as txz\.$/),
    });
    // Bytes of no known format get no advice: declaring a format would only meet CONTENT_MISMATCH.
    const unknown = await resolveSourceFormat(
      Buffer.from([0x00, 0x01, 0x02, 0xfe, 0x90, 0x17]),
      undefined,
      'x',
    ).catch((error: unknown) => error as Error);
    expect(unknown).toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
    expect((unknown as Error).message).not.toMatch(/declare/);
    await expect(resolveSourceFormat(xz, undefined, 'backup.tar.bz2')).rejects.toMatchObject({
      code: 'CONTENT_MISMATCH',
    });
  });

  it('reads a .zip holding a package as the package, and as a zip when declared', async () => {
    const docx = await readFile(fixture('fixture.docx'));
    expect(await resolveSourceFormat(docx, undefined, 'report.zip')).toBe('docx');
    expect(await resolveSourceFormat(docx, 'zip', 'report.zip')).toBe('zip');
    expect(await resolveSourceFormat(await readFile(fixture('fixture.zip')), undefined, 'files.zip')).toBe(
      'zip',
    );
    await expect(resolveSourceFormat(await readFile(fixture('fixture.zip')), 'docx')).rejects.toMatchObject({
      code: 'CONTENT_MISMATCH',
    });
  });

  it.each([
    ['fixture.tar', 'tar'],
    ['fixture.7z', '7z'],
    ['fixture.rar', 'rar'],
  ])('detects %s as %s, and refuses it named as another archive', async (name, format) => {
    const bytes = head(await readFile(fixture(name)));
    expect(await detectFormat(bytes)).toBe(format);
    await expect(
      resolveSourceFormat(bytes, undefined, format === 'tar' ? 'x.zip' : 'x.tar'),
    ).rejects.toMatchObject({
      code: 'CONTENT_MISMATCH',
    });
  });
});
