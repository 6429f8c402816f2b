/**
 * The archive converter's refusals, each a stable 4xx code with nothing left in its temp dir:
 * truncated archives, files lying about their format (an mtree spec inside gzip above all, which
 * libarchive would answer by reading this machine's files), '../' and absolute entries, links out
 * of the archive, device files, too many entries, too many bytes, a high-ratio bomb, a zip whose
 * headers understate its data, and an encrypted zip.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { createArchiveConverter } from '../../src/converters/archive/index.js';
import type { ErrorCode } from '../../src/core/errors.js';
import { describeWithEngine } from '../helpers/engines.js';
import { type TarEntrySpec, tarBytes } from '../helpers/tar.js';
import { zipBytes } from '../helpers/zip.js';
import { ARCHIVE_ENGINE, ARCHIVE_INSTALL } from './archive-helpers.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const run = promisify(execFile);
const converter = withOptionsParsed(createArchiveConverter());

/** Converts `bytes` declared as `from` into `to` and expects `code`, with nothing left behind. */
async function expectRefused(
  bytes: Buffer,
  from: string,
  code: ErrorCode,
  to = from === 'zip' ? 'tar' : 'zip',
) {
  const ws = await workspace();
  const inputPath = join(ws.inputs, `input.${from}`);
  await writeFile(inputPath, bytes);
  const error = await expectCode(converter.convert(context(ws, from, to, { inputPath })), code);
  await expectNoLeftovers(ws);
  return error;
}

const file = (name: string, text = name): TarEntrySpec => ({ name, data: Buffer.from(text) });

/** A zip with `name`, written by yazl under a same-length stand-in and patched, as yazl refuses such names. */
async function zipWithName(name: string): Promise<Buffer> {
  // yazl turns backslashes into slashes, so the stand-in has slashes where the name has either.
  const standIn = `x${name.slice(1).replaceAll('.', 'x').replaceAll('\\', '/')}`;
  const bytes = await zipBytes(new Map([[standIn, Buffer.from('evil')]]));
  return Buffer.from(bytes.toString('latin1').replaceAll(standIn, name), 'latin1');
}

describeWithEngine('bsdtar', ARCHIVE_ENGINE, ARCHIVE_INSTALL, 'archive converter: bad input', () => {
  it.each([
    ['zip', 0.5],
    ['tar', 0.2],
    ['tgz', 0.5],
    ['tbz2', 0.5],
    ['txz', 0.5],
    ['7z', 0.5],
    ['rar', 0.5],
  ])('refuses a truncated %s as CORRUPT_INPUT', async (format, keep) => {
    const bytes = await readFile(fixture(`fixture.${format}`));
    await expectRefused(bytes.subarray(0, Math.floor(bytes.length * keep)), format, 'CORRUPT_INPUT');
  });

  it.each([
    ['fixture.png', 'zip'],
    ['fixture.tar', '7z'],
    ['fixture.zip', 'tgz'],
    ['fixture.7z', 'rar'],
    ['fixture.txt', 'tar'],
    ['fixture.tgz', 'txz'],
  ])('refuses %s said to be %s as CONTENT_MISMATCH', async (name, from) => {
    await expectRefused(await readFile(fixture(name)), from, 'CONTENT_MISMATCH');
  });

  it('never lets libarchive read an mtree spec, which would pull files off this disk', async () => {
    // libarchive reads the files an mtree spec names: this one, as a .tar.gz, would come back holding /etc/hostname.
    const spec = gzipSync('#mtree\n./leak type=file contents=/etc/hostname\n');
    const error = await expectRefused(spec, 'tgz', 'CONTENT_MISMATCH');
    expect(error.message).toMatch(/not a tar archive/);
  });

  it.each([
    ['../evil.txt', 'path-traversal'],
    ['docs/../../evil.txt', 'path-traversal'],
    ['/tmp/evil.txt', 'absolute-path'],
  ])('refuses a tar entry named %s as UNSAFE_INPUT', async (name, reason) => {
    const error = await expectRefused(tarBytes([file('ok.txt'), file(name)]), 'tar', 'UNSAFE_INPUT');
    expect(error.details).toMatchObject({ reason, entry: name });
  });

  it.each([
    ['../evil.txt', 'path-traversal'],
    ['/abs/evil.txt', 'absolute-path'],
    ['..\\..\\evil.txt', 'path-traversal'],
  ])('refuses a zip entry named %s as UNSAFE_INPUT', async (name, reason) => {
    const error = await expectRefused(await zipWithName(name), 'zip', 'UNSAFE_INPUT');
    // libarchive reads a Windows zip's backslashes as the separators they are.
    expect(error.details).toMatchObject({ reason, entry: name.replaceAll('\\', '/') });
  });

  it.each<[string, TarEntrySpec[], string]>([
    ['a symlink out with ..', [{ name: 'out', type: '2', linkName: '../../etc/passwd' }], 'link-out'],
    ['a symlink out, absolute', [{ name: 'out', type: '2', linkName: '/etc/passwd' }], 'link-out'],
    ['a hard link out', [{ name: 'hard', type: '1', linkName: '/etc/passwd' }], 'link-out'],
    [
      'an entry beneath a symlink',
      [{ name: 'd', type: '2', linkName: 'docs' }, file('d/x.txt')],
      'beneath-symlink',
    ],
    ['a character device', [{ name: 'null', type: '3' }], 'special-file'],
  ])('refuses %s as UNSAFE_INPUT', async (_what, entries, reason) => {
    const error = await expectRefused(tarBytes([file('docs/ok.txt'), ...entries]), 'tar', 'UNSAFE_INPUT');
    expect(error.details).toMatchObject({ reason });
  });

  it('keeps a name that is not UTF-8 byte for byte (an old Windows zip, CP437)', async () => {
    // 'Übersicht.txt' in CP437, with the zip's UTF-8 flag cleared, as DOS-era tools wrote it.
    const zip = Buffer.from(
      (await zipWithName('Xbersicht.txt')).toString('latin1').replaceAll('Xbersicht', '\x9abersicht'),
      'latin1',
    );
    for (const [signature, flagsAt] of [
      [0x04034b50, 6],
      [0x02014b50, 8],
    ] as const) {
      for (let at = 0; at + 4 <= zip.length; at++) {
        if (zip.readUInt32LE(at) === signature)
          zip.writeUInt16LE(zip.readUInt16LE(at + flagsAt) & ~0x0800, at + flagsAt);
      }
    }
    const ws = await workspace();
    const inputPath = join(ws.inputs, 'dos.zip');
    await writeFile(inputPath, zip);
    const ctx = context(ws, 'zip', 'tar', { inputPath });
    await converter.convert(ctx);
    const { stdout } = await run('tar', ['-tf', ctx.outputPath, '--quoting-style=escape']);
    expect(stdout.trim()).toBe('\\232bersicht.txt');
  });

  it('keeps a symlink that points inside the archive', async () => {
    const ws = await workspace();
    const inputPath = join(ws.inputs, 'links.tar');
    await writeFile(
      inputPath,
      tarBytes([file('docs/a.txt'), { name: 'docs/b', type: '2', linkName: 'a.txt' }]),
    );
    const ctx = context(ws, 'tar', 'tgz', { inputPath });
    await converter.convert(ctx);
    const { stdout } = await run('tar', ['-tvzf', ctx.outputPath]);
    expect(stdout).toMatch(/docs\/b -> a\.txt/);
  });

  const many = (count: number) => tarBytes(Array.from({ length: count }, (_, i) => ({ name: `f${i}` })));

  it('refuses 10,001 entries as INPUT_LIMIT_EXCEEDED before extracting any', async () => {
    const error = await expectRefused(many(10_001), 'tar', 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ reason: 'zip-bomb', maxEntries: 10_000 });
  });

  it('holds an archive at the entry limit, not one past it', async () => {
    // A small limit shows the boundary: extracting 10,000 files takes 20 s on a busy disk.
    const small = withOptionsParsed(createArchiveConverter({ limits: { maxEntries: 100 } }));
    const ws = await workspace();
    const over = join(ws.inputs, 'over.tar');
    await writeFile(over, many(101));
    await expectCode(small.convert(context(ws, 'tar', 'zip', { inputPath: over })), 'INPUT_LIMIT_EXCEEDED');
    await expectNoLeftovers(ws);
    const inputPath = join(ws.inputs, 'many.tar');
    await writeFile(inputPath, many(100));
    const ctx = context(ws, 'tar', 'tgz', { inputPath });
    await small.convert(ctx);
    const { stdout } = await run('tar', ['-tzf', ctx.outputPath]);
    expect(stdout.trim().split('\n')).toHaveLength(100);
  });

  it('refuses a high-ratio bomb: 64 MiB of zeros in a 64 KB tar.gz', async () => {
    const bomb = gzipSync(tarBytes([{ name: 'zeros', data: Buffer.alloc(64 * 1024 * 1024) }]), { level: 9 });
    expect(bomb.length).toBeLessThan(128 * 1024);
    const error = await expectRefused(bomb, 'tgz', 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ reason: 'zip-bomb', maxRatio: 200 });
  });

  it('refuses more extracted bytes than the limit, counting hard links again', async () => {
    const small = withOptionsParsed(createArchiveConverter({ limits: { maxUncompressedBytes: 3000 } }));
    const ws: Workspace = await workspace();
    const inputPath = join(ws.inputs, 'links.tar');
    // 2,000 bytes once, and again through a hard link: 4,000 in a zip, which has no hard links.
    await writeFile(
      inputPath,
      tarBytes([file('big', 'x'.repeat(2000)), { name: 'again', type: '1', linkName: 'big' }]),
    );
    await expectCode(small.convert(context(ws, 'tar', 'zip', { inputPath })), 'INPUT_LIMIT_EXCEEDED');
    await expectNoLeftovers(ws);
  });

  it('refuses a zip whose headers understate what an entry inflates to', async () => {
    const size = 4 * 1024 * 1024;
    const honest = await zipBytes(new Map([['big.bin', Buffer.alloc(size)]]));
    const declared = Buffer.alloc(4);
    declared.writeUInt32LE(size);
    const lying = Buffer.from(honest);
    for (let at = lying.indexOf(declared); at !== -1; at = lying.indexOf(declared, at + 4))
      lying.writeUInt32LE(100, at);
    await expectRefused(lying, 'zip', 'INPUT_LIMIT_EXCEEDED');
  });

  it("refuses an encrypted zip (ZipCrypto or AES) as PASSWORD_PROTECTED, in words without the tool's prompt", async () => {
    const ws = await workspace();
    for (const method of ['ZipCrypto', 'AES256']) {
      const encrypted = join(ws.inputs, `secret-${method}.zip`);
      await run('7zz', [
        'a',
        '-bso0',
        '-tzip',
        `-mem=${method}`,
        '-psecret',
        encrypted,
        fixture('fixture.txt'),
      ]);
      const error = await expectRefused(await readFile(encrypted), 'zip', 'PASSWORD_PROTECTED');
      expect(error.message).toMatch(/^The archive is encrypted: its entries need a password/);
      expect(error.message).not.toMatch(/passphrase:|\(null\)/);
    }
  });

  it('stops at once when canceled', async () => {
    const ws = await workspace();
    const controller = new AbortController();
    controller.abort();
    await expectCode(converter.convert(context(ws, 'zip', 'tar', { signal: controller.signal })), 'CANCELED');
    await expectNoLeftovers(ws);
  });
});
