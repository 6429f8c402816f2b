/**
 * `fileconv convert` and the file-system errors a user can cause (issue 15, item 3): each is the
 * FileconvError the direct API throws, printed as one line `fileconv: <message> [CODE]` with exit
 * code 1 (every FileconvError's), never "unexpected error" and exit 70.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli-process.js';
import { fixture, tempDir } from './helpers/temp.js';

describe('fileconv convert: file-system errors', () => {
  it('a missing input: NOT_FOUND, exit 1', async () => {
    const work = await tempDir();
    const input = join(work, 'missing.png');
    const run = await runCli(['convert', input, join(work, 'out.webp'), '--quiet']);
    expect(run).toEqual({ code: 1, stdout: '', stderr: `fileconv: No such file: ${input}. [NOT_FOUND]\n` });
  });

  it('an output folder that does not exist: OUTPUT_NOT_WRITABLE, exit 1', async () => {
    const work = await tempDir();
    const output = join(work, 'no-such-folder', 'out.webp');
    const run = await runCli(['convert', fixture('fixture.png'), output, '--quiet']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `fileconv: Cannot write ${output}: the folder ${join(work, 'no-such-folder')} does not exist. [OUTPUT_NOT_WRITABLE]\n`,
    });
  });

  it('an output that is a folder: OUTPUT_NOT_WRITABLE, exit 1', async () => {
    const work = await tempDir();
    const output = join(work, 'out.webp');
    await mkdir(output);
    const run = await runCli(['convert', fixture('fixture.png'), output, '--quiet']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `fileconv: Cannot write ${output}: it is a folder; name a file. [OUTPUT_NOT_WRITABLE]\n`,
    });
  });

  // Root writes anywhere whatever the mode says: this case can only fail for another user.
  it.skipIf(process.getuid?.() === 0)(
    'an output folder without write permission: OUTPUT_NOT_WRITABLE, exit 1',
    async () => {
      const work = await tempDir();
      const locked = join(work, 'locked');
      await mkdir(locked, { mode: 0o555 });
      const output = join(locked, 'out.webp');
      const run = await runCli(['convert', fixture('fixture.png'), output, '--quiet']);
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: `fileconv: Cannot write ${output}: permission denied (the folder ${locked} is not writable). [OUTPUT_NOT_WRITABLE]\n`,
      });
    },
  );

  it('still converts when the paths are fine', async () => {
    const work = await tempDir();
    const output = join(work, 'out.webp');
    const run = await runCli(['convert', fixture('fixture.png'), output, '--quiet']);
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
