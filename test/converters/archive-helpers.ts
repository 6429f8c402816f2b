/**
 * What the archive tests share: whether bsdtar (the engine) and the independent readers (GNU tar,
 * 7-Zip's 7zz) are here, and a tree of what an archive holds once an independent reader has
 * unpacked it (each path -> folder, file with its SHA-256, or symlink with its target).
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const present = (command: string, args: string[]) => spawnSync(command, args).status === 0;
export const ARCHIVE_ENGINE =
  present('bsdtar', ['--version']) &&
  present('bsdcat', ['--version']) &&
  present('7zz', ['i']) &&
  present('tar', ['--version']);
export const ARCHIVE_INSTALL = 'apt-get install libarchive-tools 7zip';

export type Tree = Record<string, string>;

/** path -> 'dir' | 'file <sha256>' | 'link <target>', for everything under `root`. */
export async function treeOf(root: string): Promise<Tree> {
  const tree: Tree = {};
  const walk = async (dir: string): Promise<void> => {
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const key = relative(root, path);
      const info = await lstat(path);
      if (info.isSymbolicLink()) tree[key] = `link ${await readlink(path)}`;
      else if (info.isDirectory()) {
        tree[key] = 'dir';
        await walk(path);
      } else
        tree[key] = `file ${createHash('sha256')
          .update(await readFile(path))
          .digest('hex')}`;
    }
  };
  await walk(root);
  return tree;
}

/**
 * What the archive at `path` holds, unpacked by a reader other than libarchive: GNU tar for the
 * tar family (it undoes gzip, bzip2 and xz itself), 7zz for zip and 7z.
 */
export async function unpackedTree(path: string, format: string): Promise<Tree> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-unpacked-'));
  try {
    if (format === 'zip' || format === '7z')
      await run('7zz', ['x', '-y', '-bso0', '-bsp0', `-o${dir}`, path]);
    else await run('tar', ['-x', '--no-same-owner', '-f', path, '-C', dir]);
    return await treeOf(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `7zz l -slt`: one record of properties per entry ('Path', 'Method', 'Attributes', ...). */
export async function sevenZipListing(path: string): Promise<Record<string, string>[]> {
  const { stdout } = await run('7zz', ['l', '-slt', path]);
  const body = stdout.split(/\n----------\n/)[1] ?? '';
  return body
    .split(/\n\s*\n/)
    .filter((block) => block.includes('Path = '))
    .map((block) =>
      Object.fromEntries(
        block
          .split('\n')
          .map((line) => line.match(/^([^=]+?) = (.*)$/))
          .filter((match): match is RegExpMatchArray => match !== null)
          .map((match) => [match[1] ?? '', match[2] ?? '']),
      ),
    );
}
