/**
 * The archive converter (bsdtar) repacking the fixtures into every format it writes, each result
 * unpacked by an independent reader (GNU tar, 7-Zip) and compared entry by entry, bytes by SHA-256,
 * with what the fixture holds; and its compressionLevel option, read back from 7-Zip's listing.
 */
import { execFile } from 'node:child_process';
import { open, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { ARCHIVE_READS, ARCHIVE_WRITES } from '../../src/converters/archive/archive-edges.js';
import { createArchiveConverter } from '../../src/converters/archive/index.js';
import { createEngine } from '../../src/index.js';
import { fixturePath, testConverter } from '../../src/testing/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tarBytes } from '../helpers/tar.js';
import {
  ARCHIVE_ENGINE,
  ARCHIVE_INSTALL,
  sevenZipListing,
  type Tree,
  unpackedTree,
} from './archive-helpers.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  expectProgressRun,
  fixture,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const run = promisify(execFile);
const converter = withOptionsParsed(createArchiveConverter());
/** A 7-Zip listing record of an entry with content (folders and empty files have no method). */
const holdsBytes = (entry: Record<string, string>) => Number(entry.Size) > 0;
const TAR_FAMILY = new Set(['tar', 'tgz', 'tbz2', 'txz']);
/** fixture.rar's entries (unrar-js's sample): a text file and a 560x350 JPEG. */
const RAR_TREE: Tree = {
  testContent: 'dir',
  'testContent/hello.txt': 'file 41f67b02c0a44ef221cad10de26a4d7dfd22730f8f7c9898971ba954ead7319a',
  'testContent/pug.jpg': 'file 13da723e802888cbb94b8cb16b5579be01f702a193842af0ed87d14720d86256',
};

describeWithEngine('bsdtar', ARCHIVE_ENGINE, ARCHIVE_INSTALL, 'archive converter', () => {
  /** What the fixtures hold, read by GNU tar from fixture.tar (zip and 7z hold the same but the symlink). */
  let tarTree: Tree;
  beforeAll(async () => {
    tarTree = await unpackedTree(fixture('fixture.tar'), 'tar');
    expect(tarTree['archive/docs/café notes.md']).toMatch(/^file /);
    expect(tarTree['archive/latest']).toBe('link docs/readme.txt');
    expect(tarTree['archive/empty']).toBe('dir');
  });

  const expectedTree = (from: string): Tree => {
    if (from === 'rar') return RAR_TREE;
    if (TAR_FAMILY.has(from)) return tarTree;
    const { 'archive/latest': _link, ...rest } = tarTree;
    return rest;
  };

  const pairs = ARCHIVE_READS.flatMap((from) =>
    ARCHIVE_WRITES.filter((to) => to !== from).map((to) => [from, to] as const),
  );

  it.each(pairs)('repacks %s into %s: same entries, same bytes', async (from, to) => {
    const ws = await workspace();
    const progress: number[] = [];
    const ctx = context(ws, from, to, { progress });
    await converter.convert(ctx);
    expect(await unpackedTree(ctx.outputPath, to)).toEqual(expectedTree(from));
    expectProgressRun(progress);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('turns a hard link into a copy where the format has none (zip, 7z), and keeps it in a tar', async () => {
    const ws = await workspace();
    const inputPath = join(ws.inputs, 'linked.tar');
    const data = Buffer.from('shared bytes\n');
    await writeFile(
      inputPath,
      tarBytes([
        { name: 'a.txt', data },
        { name: 'b.txt', type: '1', linkName: 'a.txt' },
      ]),
    );
    for (const to of ['zip', '7z', 'txz'] as const) {
      const ctx = context(ws, 'tar', to, { inputPath, outputPath: join(ws.outputs, `linked.${to}`) });
      await converter.convert(ctx);
      const tree = await unpackedTree(ctx.outputPath, to);
      expect(tree['b.txt']).toBe(tree['a.txt']);
      expect(tree['a.txt']).toMatch(/^file /);
    }
    const { stdout } = await run('tar', ['-tvJf', join(ws.outputs, 'linked.txz')]);
    expect(stdout).toMatch(/b\.txt link to a\.txt/);
  });

  it('keeps modes in a tar: the script stays executable', async () => {
    const ws = await workspace();
    const ctx = context(ws, '7z', 'txz');
    await converter.convert(ctx);
    const { stdout: listing } = await run('tar', ['-tvJf', ctx.outputPath]);
    expect(listing).toMatch(/-rwxr-xr-x .*archive\/bin\/run\.sh/);
    expect(listing).toMatch(/-rw-r--r-- .*archive\/docs\/readme\.txt/);
  });

  it('repacks sparse members of GNU and pax tars under their own names (bsdtar said "Cannot stat")', async () => {
    const ws = await workspace();
    const source = join(ws.inputs, 'sparse');
    await run('mkdir', ['-p', source]);
    // 4 MiB with 'hello' in the middle and holes around it, as a disk image or a database file is.
    await run('truncate', ['-s', '4M', join(source, 'disk.img')]);
    const handle = await open(join(source, 'disk.img'), 'r+');
    await handle.write(Buffer.from('hello'), 0, 5, 2_000_000);
    await handle.close();
    for (const format of ['gnu', 'pax']) {
      const inputPath = join(ws.inputs, `${format}.tar`);
      await run('tar', ['--sparse', `--format=${format}`, '-C', source, '-cf', inputPath, 'disk.img']);
      const ctx = context(ws, 'tar', 'zip', { inputPath, outputPath: join(ws.outputs, `${format}.zip`) });
      await converter.convert(ctx);
      const { stdout: names } = await run('7zz', ['l', '-ba', '-slt', ctx.outputPath]);
      expect(names.match(/^Path = (.*)$/gm)).toEqual(['Path = disk.img']);
      const { stdout: bytes } = await run('7zz', ['x', '-so', ctx.outputPath], {
        encoding: 'buffer',
        maxBuffer: 8 * 1024 * 1024,
      });
      expect(bytes.length).toBe(4 * 1024 * 1024);
      expect(bytes.subarray(2_000_000, 2_000_005).toString()).toBe('hello');
    }
  });

  it('stores entries uncompressed at compressionLevel 0, deflates them by default', async () => {
    const ws = await workspace();
    const stored = context(ws, 'tar', 'zip', { options: { compressionLevel: 0 } });
    await converter.convert(stored);
    const methods = (await sevenZipListing(stored.outputPath)).filter(holdsBytes).map((e) => e.Method);
    expect(new Set(methods)).toEqual(new Set(['Store']));
    const deflated = context(ws, 'tar', 'zip', { outputPath: join(ws.outputs, 'default.zip') });
    await converter.convert(deflated);
    const defaults = (await sevenZipListing(deflated.outputPath)).filter(holdsBytes);
    expect(defaults.map((e) => e.Method)).toContain('Deflate');
    const sevenZip = context(ws, 'zip', '7z', { options: { compressionLevel: 0 } });
    await converter.convert(sevenZip);
    const copied = (await sevenZipListing(sevenZip.outputPath)).filter(holdsBytes);
    expect(new Set(copied.map((e) => e.Method))).toEqual(new Set(['Copy']));
  });

  it('compresses harder at a higher level', async () => {
    const ws = await workspace();
    // 2 MB of varied text: levels 1 and 9 of gzip differ on it by more than their headers.
    const lines = Array.from(
      { length: 40_000 },
      (_, i) => `line ${i}: ${((i * 7919) % 10007).toString(36)} lorem ipsum\n`,
    );
    const input = join(ws.inputs, 'text.tar');
    await writeFile(input, tarBytes([{ name: 'text.txt', data: Buffer.from(lines.join('')) }]));
    const fast = context(ws, 'tar', 'tgz', { inputPath: input, options: { compressionLevel: 1 } });
    const best = context(ws, 'tar', 'tgz', {
      inputPath: input,
      options: { compressionLevel: 9 },
      outputPath: join(ws.outputs, 'best.tgz'),
    });
    await converter.convert(fast);
    await converter.convert(best);
    expect((await stat(best.outputPath)).size).toBeLessThan((await stat(fast.outputPath)).size);
    expect(await unpackedTree(best.outputPath, 'tgz')).toEqual(await unpackedTree(fast.outputPath, 'tgz'));
  });

  it('refuses options a format does not have, naming them', async () => {
    const ws = await workspace();
    await expectCode(
      converter.convert(context(ws, 'zip', 'tar', { options: { compressionLevel: 5 } })),
      'INVALID_OPTIONS',
    );
    await expectCode(
      converter.convert(context(ws, 'tar', 'tgz', { options: { compressionLevel: 0 } })),
      'INVALID_OPTIONS',
    );
    await expectCode(
      converter.convert(context(ws, 'tar', 'zip', { options: { level: 5 } })),
      'INVALID_OPTIONS',
    );
    await expectCode(converter.convert(context(ws, 'tar', 'rar')), 'UNSUPPORTED_CONVERSION');
    await expectNoLeftovers(ws);
  });

  it('plans .zip -> .tar.gz through the engine, named by the two-part extension', async () => {
    const ws = await workspace();
    const engine = createEngine({ converters: [createArchiveConverter()], tempDir: ws.temp });
    try {
      const output = join(ws.outputs, 'backup.tar.gz');
      const report = await engine.convertFile(fixture('fixture.zip'), output);
      expect(report).toMatchObject({ from: 'zip', to: 'tgz' });
      expect(await unpackedTree(output, 'tgz')).toEqual(expectedTree('zip'));
    } finally {
      await engine.close();
    }
  });

  testConverter('bsdtar', () => createArchiveConverter(), {
    otherConverters: ['sharp', 'ffmpeg', 'libreoffice', 'exceljs', 'mammoth', 'pdf', 'text', 'chromium'],
    samples: [
      {
        from: 'zip',
        to: 'txz',
        input: fixturePath('zip'),
        check: async (out) => expect(await unpackedTree(out, 'txz')).toEqual(expectedTree('zip')),
      },
      { from: 'rar', to: '7z', input: fixturePath('rar'), options: { compressionLevel: 9 } },
    ],
  });
});
