/**
 * `fileconv convert` over many files in one process (issue 29, scope 2): folders (--recursive),
 * globs the shell did not expand, several inputs, --jobs; a line per file on stderr, --json lines
 * on stdout, exit 1 when a file failed while the others are still converted. Results are read
 * back with sharp and pdfinfo.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { LO_AVAILABLE, LO_INSTALL } from './converters/libreoffice-helpers.js';
import { runCli } from './helpers/cli-process.js';
import { describeWithEngine } from './helpers/engines.js';
import { fixture, tempDir } from './helpers/temp.js';

interface JsonLine {
  input: string;
  output: string;
  status: 'converted' | 'skipped' | 'failed';
  ms: number;
  error?: { code: string; message: string };
}

function jsonLines(stdout: string): JsonLine[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as JsonLine);
}

/** in/a.png, in/sub/b.jpg, in/sub/deeper/c.gif and in/broken.png (a PNG cut short). */
async function photoTree(): Promise<string> {
  const work = await tempDir();
  await mkdir(join(work, 'in/sub/deeper'), { recursive: true });
  await copyFile(fixture('fixture.png'), join(work, 'in/a.png'));
  await copyFile(fixture('fixture.jpg'), join(work, 'in/sub/b.jpg'));
  await copyFile(fixture('fixture.gif'), join(work, 'in/sub/deeper/c.gif'));
  await writeFile(join(work, 'in/broken.png'), (await readFile(fixture('fixture.png'))).subarray(0, 300));
  return work;
}

async function expectWebp(path: string): Promise<void> {
  expect((await sharp(path).metadata()).format, path).toBe('webp');
}

describe('fileconv convert: many files', () => {
  it('a folder with --recursive and --jobs 2: the good files converted, the bad one reported, exit 1', async () => {
    const work = await photoTree();
    const out = join(work, 'out');
    const run = await runCli([
      'convert',
      join(work, 'in'),
      '--recursive',
      '--jobs',
      '2',
      '--to',
      'webp',
      '-o',
      `${out}/`,
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(1);
    const lines = jsonLines(run.stdout);
    expect(lines).toHaveLength(4);
    const byInput = new Map(lines.map((line) => [line.input.slice(work.length + 1), line]));
    expect(byInput.get('in/broken.png')).toMatchObject({
      status: 'failed',
      error: { code: 'CORRUPT_INPUT' },
    });
    for (const [input, output] of [
      ['in/a.png', 'out/a.webp'],
      ['in/sub/b.jpg', 'out/sub/b.webp'],
      ['in/sub/deeper/c.gif', 'out/sub/deeper/c.webp'],
    ] as const) {
      expect(byInput.get(input)).toMatchObject({ status: 'converted', output: join(work, output) });
      expect(byInput.get(input)?.ms).toBeGreaterThanOrEqual(0);
      await expectWebp(join(work, output));
    }
    expect(run.stderr).toContain('4 file(s): 3 converted, 0 skipped, 1 failed');
  });

  it('a folder without --recursive gives only its own files', async () => {
    const work = await photoTree();
    const run = await runCli(['convert', join(work, 'in'), '--to', 'webp', '-o', join(work, 'out/')]);
    expect(run.code).toBe(1);
    await expectWebp(join(work, 'out/a.webp'));
    expect(run.stderr).toMatch(/broken\.png: .*\[CORRUPT_INPUT\]/);
    expect(run.stderr).not.toContain('b.jpg');
  });

  it('quoted globs (*, **), the results beside their inputs, one line per file on stderr', async () => {
    const work = await photoTree();
    const run = await runCli(['convert', 'in/**/*.jpg', 'in/sub/**/*.gif', 'in/?.png', '--to', 'webp'], {
      cwd: work,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    for (const output of ['in/a.webp', 'in/sub/b.webp', 'in/sub/deeper/c.webp'])
      await expectWebp(join(work, output));
    expect(run.stderr.trim().split('\n')).toHaveLength(4);
    expect(run.stderr).toContain('3 file(s): 3 converted, 0 skipped, 0 failed');
  });

  it('a rerun: existing outputs fail each file without --skip-existing, are skipped with it (exit 0)', async () => {
    const work = await photoTree();
    const args = ['convert', 'in/a.png', 'in/sub/b.jpg', '--to', 'webp', '-o', 'out/{name}.{ext}'];
    expect((await runCli(args, { cwd: work })).code).toBe(0);
    const before = await readFile(join(work, 'out/a.webp'));

    const refused = await runCli(args, { cwd: work });
    expect(refused.code).toBe(1);
    expect(refused.stderr.match(/\[OUTPUT_EXISTS\]/g)).toHaveLength(2);

    const skipped = await runCli([...args, '--skip-existing', '--json'], { cwd: work });
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(jsonLines(skipped.stdout).map((line) => line.status)).toEqual(['skipped', 'skipped']);
    expect(await readFile(join(work, 'out/a.webp'))).toEqual(before);
  });

  it('several inputs need an output folder or a {name} template, and may not meet in one output (exit 2)', async () => {
    const work = await photoTree();
    await copyFile(fixture('fixture.jpg'), join(work, 'in/a.jpg'));
    const oneFile = await runCli(['convert', 'in/a.png', 'in/sub/b.jpg', 'in/a.jpg', '-o', 'x.webp'], {
      cwd: work,
    });
    expect(oneFile.code).toBe(2);
    expect(oneFile.stderr).toContain('names one file, for 3 inputs');

    const meeting = await runCli(['convert', 'in/a.png', 'in/a.jpg', '--to', 'webp', '-o', 'out/'], {
      cwd: work,
    });
    expect(meeting.code).toBe(2);
    expect(meeting.stderr).toContain('would both be written to');
  });
});

describeWithEngine('LibreOffice', LO_AVAILABLE, LO_INSTALL, 'fileconv convert: documents in one run', () => {
  it('converts three docx to PDF with one warm engine', async () => {
    const work = await tempDir();
    for (const name of ['one', 'two', 'three'])
      await copyFile(fixture('fixture.docx'), join(work, `${name}.docx`));
    const run = await runCli(['convert', '*.docx', '--to', 'pdf', '--quiet'], { cwd: work });
    expect(run, run.stderr).toMatchObject({ code: 0, stdout: '', stderr: '' });
    for (const name of ['one', 'two', 'three']) {
      const info = execFileSync('pdfinfo', [join(work, `${name}.pdf`)], { encoding: 'utf8' });
      expect(Number(/^Pages:\s+(\d+)/m.exec(info)?.[1])).toBeGreaterThanOrEqual(1);
    }
  }, 180_000); // LibreOffice's first start, on a busy machine: a bound, not a measure
});
