/**
 * The direct API (`convertFile`, as `fileconv convert` runs it) on a full disk: a converter in an
 * isolated child that cannot write is NO_SPACE (507, with a Retry-After hint), as in a job, not
 * CONVERSION_FAILED with an ENOSPC message; once there is room the same call succeeds, and the
 * work folder is left empty either way.
 */

import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSpreadsheetConverter } from '../src/converters/exceljs/index.js';
import { EXCELJS_FACTORY } from '../src/converters/exceljs/registration.js';
import { createEngine, type Engine, type FileconvError } from '../src/index.js';
import { isolateConverter } from '../src/kit/isolation/isolated.js';
import { fixture } from './converters/converter-harness.js';
import { describeWithEngine } from './helpers/engines.js';
import { canMountTmpfs, MOUNT_INSTALL } from './helpers/tmpfs.js';

describeWithEngine('a tmpfs of its own', canMountTmpfs(), MOUNT_INSTALL, 'convertFile on a full disk', () => {
  let disk: string;
  let engine: Engine;
  let mounted = false;
  const ballast = () => join(disk, 'ballast');

  beforeAll(async () => {
    disk = await mkdtemp(join(tmpdir(), 'fileconv-direct-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', disk]);
    mounted = true;
    await mkdir(join(disk, 'work'));
    engine = createEngine({
      converters: [isolateConverter(createSpreadsheetConverter(), EXCELJS_FACTORY)],
      tempDir: join(disk, 'work'),
    });
  });
  afterAll(async () => {
    await engine?.close();
    if (mounted) execFileSync('umount', [disk]);
    await rm(disk, { recursive: true, force: true });
  });

  it('answers NO_SPACE while the disk is full, and converts once it is not', async () => {
    const { bavail, bsize } = await statfs(disk);
    execFileSync('fallocate', ['-l', String(bavail * bsize), ballast()]);
    const output = join(disk, 'out.csv');
    const error = (await engine.convertFile(fixture('fixture.xlsx'), output).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as FileconvError;
    expect([error?.code, error?.status]).toEqual(['NO_SPACE', 507]);
    expect(error.details?.retryAfterSeconds).toBeGreaterThan(0);
    expect(await readdir(join(disk, 'work')).catch(() => [])).toEqual([]);
    await rm(ballast());
    await engine.convertFile(fixture('fixture.xlsx'), output);
    expect(await readdir(join(disk, 'work'))).toEqual([]);
  });
});
