/**
 * `fileconv convert` as the field's CLI tools behave (issue 29): -o is the output, -h is help,
 * usage errors exit 2, the input is never written over, an existing output only with --force
 * (or left with --skip-existing), an output named for another format than --to is refused, `-`
 * is stdin and stdout, and every status line goes to stderr. Results are decoded with sharp.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, link, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from './helpers/cli-process.js';
import { fixture, tempDir } from './helpers/temp.js';

/** A folder with a.jpg and b.jpg (copies of the JPEG fixture). */
async function twoJpegs(): Promise<{ work: string; a: string; b: string }> {
  const work = await tempDir();
  const a = join(work, 'a.jpg');
  const b = join(work, 'b.jpg');
  await copyFile(fixture('fixture.jpg'), a);
  await copyFile(fixture('fixture.jpg'), b);
  return { work, a, b };
}

async function formatOf(path: string): Promise<string | undefined> {
  return (await sharp(path).metadata()).format;
}

describe('fileconv convert: nothing is lost', () => {
  it('refuses `a.jpg b.jpg --to webp` (exit 2) and leaves b.jpg as it was', async () => {
    const { a, b } = await twoJpegs();
    const before = await readFile(b);
    const run = await runCli(['convert', a, b, '--to', 'webp']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/"b\.jpg" names a jpg file but --to is webp.*\[INVALID_REQUEST\]/);
    expect(await readFile(b)).toEqual(before);
    expect(await formatOf(b)).toBe('jpeg');
  });

  it('never writes over the input: the same path, a symlink to it, a hard link to it (even with --force)', async () => {
    const { work, a } = await twoJpegs();
    const before = await readFile(a);
    const viaSymlink = join(work, 'symlink.jpg');
    const viaHardLink = join(work, 'hardlink.jpg');
    await symlink(a, viaSymlink);
    await link(a, viaHardLink);
    for (const output of [a, viaSymlink, viaHardLink]) {
      const run = await runCli(['convert', a, output, '--width', '10', '--force']);
      expect(run.code, output).toBe(1);
      expect(run.stderr).toContain(`${output} is an input: fileconv never writes over its input.`);
      expect(run.stderr).toContain('[OUTPUT_EXISTS]');
    }
    expect(await readFile(a)).toEqual(before);
    expect((await sharp(a).metadata()).width).toBe(64);
  });

  it('refuses an existing output; --force (-y) replaces it, --skip-existing (-n) leaves it and says so', async () => {
    const work = await tempDir();
    const output = join(work, 'out.webp');
    await writeFile(output, 'keep me');

    const refused = await runCli(['convert', fixture('fixture.png'), output]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `fileconv: ${output} exists: pass --force (-y) to replace it, or --skip-existing (-n) to leave it. [OUTPUT_EXISTS]\n`,
    );
    expect(await readFile(output, 'utf8')).toBe('keep me');

    const skipped = await runCli(['convert', fixture('fixture.png'), output, '-n']);
    expect(skipped).toMatchObject({ code: 0, stdout: '' });
    expect(skipped.stderr).toContain(`skipped, ${output} exists`);
    expect(await readFile(output, 'utf8')).toBe('keep me');

    const forced = await runCli(['convert', fixture('fixture.png'), output, '-y', '--quiet']);
    expect(forced).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await sharp(output).metadata()).toMatchObject({ format: 'webp', width: 64, height: 48 });
  });
});

describe('fileconv convert: flags', () => {
  it('-o names the output; the status line goes to stderr, stdout stays empty', async () => {
    const work = await tempDir();
    const output = join(work, 'small.webp');
    const run = await runCli(['convert', fixture('fixture.png'), '-o', output, '--height', '24']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/png -> webp, wrote .*small\.webp/);
    expect(await sharp(output).metadata()).toMatchObject({ format: 'webp', width: 32, height: 24 });
  });

  it('-o <folder>/ (made when missing) takes the result under the input name', async () => {
    const work = await tempDir();
    const run = await runCli([
      'convert',
      fixture('fixture.png'),
      '--to',
      'webp',
      '-o',
      `${join(work, 'new')}/`,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(await formatOf(join(work, 'new', 'fixture.webp'))).toBe('webp');
  });

  it('-O/--set passes a converter option, and the old --option still does', async () => {
    const work = await tempDir();
    const set = join(work, 'set.png');
    const old = join(work, 'old.png');
    expect((await runCli(['convert', fixture('fixture.jpg'), '-o', set, '-O', 'width=10'])).code).toBe(0);
    expect((await runCli(['convert', fixture('fixture.jpg'), '-o', old, '--option', 'width=12'])).code).toBe(
      0,
    );
    expect((await sharp(set).metadata()).width).toBe(10);
    expect((await sharp(old).metadata()).width).toBe(12);
  });

  it('without an output, the result goes beside its input', async () => {
    const work = await tempDir();
    const elsewhere = await tempDir();
    await copyFile(fixture('fixture.png'), join(work, 'photo.png'));
    const run = await runCli(['convert', join(work, 'photo.png'), '--to', 'webp'], { cwd: elsewhere });
    expect(run.code, run.stderr).toBe(0);
    expect(await formatOf(join(work, 'photo.webp'))).toBe('webp');
  });

  it('-h prints the help (exit 0); an unknown flag and a missing target exit 2', async () => {
    const help = await runCli(['convert', '-h']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('-o, --output <path>');
    expect(help.stdout).toContain('--height <px>');

    const unknown = await runCli(['convert', fixture('fixture.png'), '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--bogus'");

    const noTarget = await runCli(['convert', fixture('fixture.png')]);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('[INVALID_REQUEST]');
  });

  it('pdf split without --pages is a usage error too (exit 2)', async () => {
    const work = await tempDir();
    const run = await runCli(['pdf', 'split', fixture('fixture.pdf'), '-o', join(work, 'x.pdf')]);
    expect(run.code).toBe(2);
  });
});

describe('fileconv convert: - is stdin and stdout', () => {
  /** `cat <input> | fileconv convert - <args>`: the file through a pipe, stdout as bytes. */
  function piped(input: string, args: readonly string[]): Buffer {
    const run = spawnSync(process.execPath, [...CLI, 'convert', '-', ...args], {
      input: readFileSync(input),
    });
    expect(run.status, run.stderr.toString()).toBe(0);
    return run.stdout;
  }

  it('converts a pipe to a pipe, the format told by --from or found from the content', async () => {
    for (const from of [['--from', 'png'], []]) {
      const bytes = piped(fixture('fixture.png'), [...from, '--to', 'webp', '-o', '-']);
      expect(await sharp(bytes).metadata(), from.join(' ')).toMatchObject({
        format: 'webp',
        width: 64,
        height: 48,
      });
    }
  });

  it('stdin goes to stdout without -o', async () => {
    const bytes = piped(fixture('fixture.jpg'), ['--to', 'png', '--width', '16']);
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 16 });
  });
});
