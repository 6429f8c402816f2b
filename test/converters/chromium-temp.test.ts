/**
 * What a Chromium of a SIGKILLed fileconv left in TMPDIR goes when the next pool launches
 * (browser/chromium-temp.ts): Playwright profiles no process uses, and pool dirs of dead pids;
 * never a profile a running process names in its --user-data-dir, one younger than a minute, or
 * a live process's pool dir. The pool keeps Playwright's artifacts dir in its own dir, and close()
 * leaves nothing in TMPDIR. A profile too young at the first sweep goes at a second one.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../src/converters/chromium/browser-pool.js';
import { locateChromium } from '../../src/converters/chromium/chromium-locate.js';
import { PROFILE_MIN_AGE_MS, sweepChromiumProfiles } from '../../src/converters/chromium/chromium-temp.js';
import { CHROMIUM_INSTALL } from '../../src/converters/chromium/index.js';
import { describeWithEngine } from '../helpers/engines.js';

const executable = await locateChromium(undefined);

describeWithEngine('chromium', typeof executable === 'string', CHROMIUM_INSTALL, 'chromium temp dirs', () => {
  let dir: string;
  let holder: ChildProcess | undefined;
  const savedTmp = process.env.TMPDIR;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fileconv-chromium-temp-'));
  });
  afterAll(async () => {
    holder?.kill('SIGKILL');
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    await rm(dir, { recursive: true, force: true });
  });

  it('removes what SIGKILLed processes left, keeps what is in use, and leaves nothing after close()', async () => {
    const old = new Date(Date.now() - 5 * 60_000);
    const profile = (name: string) => join(dir, `playwright_chromiumdev_profile-${name}`);
    const deadPid = spawnSync('true').pid;
    // Left by a dead Chromium: a profile with files, an old mtime; a pool dir of a dead pid.
    await mkdir(join(profile('dead01'), 'Default'), { recursive: true });
    await writeFile(join(profile('dead01'), 'Default', 'Preferences'), '{}');
    await utimes(profile('dead01'), old, old);
    await mkdir(join(dir, `fileconv-chromium-${deadPid}-dead02`, 'browser-0'), { recursive: true });
    // In use: named by a running process's --user-data-dir; too young to judge; a live pid's.
    await mkdir(profile('inuse1'));
    await utimes(profile('inuse1'), old, old);
    holder = spawn(
      process.execPath,
      ['-e', 'setTimeout(() => {}, 60000)', '--', `--user-data-dir=${profile('inuse1')}`],
      {
        stdio: 'ignore',
      },
    );
    await mkdir(profile('young1'));
    // Another live process's pool (not this process's own, which the sweep skips without asking).
    await mkdir(join(dir, `fileconv-chromium-${holder.pid}-live01`));
    const kept = [
      'playwright_chromiumdev_profile-inuse1',
      'playwright_chromiumdev_profile-young1',
      `fileconv-chromium-${holder.pid}-live01`,
    ].sort();

    process.env.TMPDIR = dir; // where Playwright makes the profile: os.tmpdir() at launch
    const pool = new BrowserPool({
      executablePath: executable as string,
      concurrency: 1,
      maxJobs: 100,
      launchTimeoutMs: 30_000,
      jsHeapMb: 256,
      args: [],
    });
    try {
      let during: string[] = [];
      await pool.run(new AbortController().signal, async (openTab) => {
        const tab = await openTab({});
        await tab.page.setContent('<p>hello</p>');
        during = await readdir(dir);
        await tab.context.close();
      });
      expect(during).not.toContain('playwright_chromiumdev_profile-dead01');
      expect(during).not.toContain(`fileconv-chromium-${deadPid}-dead02`);
      for (const name of kept) expect(during).toContain(name);
      // The pool's own dir and the running browser's profile (Playwright's), no playwright-artifacts-*;
      // and Chromium's own singleton-socket dir, which it removes when it exits.
      const fresh = during.filter((name) => !kept.includes(name) && !name.startsWith('org.chromium.')).sort();
      expect(fresh).toHaveLength(2);
      expect(fresh[0]).toMatch(new RegExp(`^fileconv-chromium-${process.pid}-\\w{6}$`));
      expect(fresh[1]).toMatch(/^playwright_chromiumdev_profile-/);
      expect((await readdir(join(dir, fresh[0]!))).sort()).toEqual(['browser-0']);
    } finally {
      await pool.close();
    }
    expect((await readdir(dir)).sort()).toEqual(kept);
  }, 60_000);
});

describe('sweepChromiumProfiles', () => {
  it.skipIf(!existsSync('/proc/self/cmdline'))(
    'counts a profile too young to judge, and removes it once a minute old when no process uses it',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'fileconv-chromium-sweep-'));
      try {
        // A predecessor killed moments before the restart: its profile is seconds old.
        await mkdir(join(dir, 'playwright_chromiumdev_profile-recent'));
        await mkdir(join(dir, 'playwright_chromiumdev_profile-file-not-dir-parent'));
        await writeFile(join(dir, 'playwright_chromiumdev_profile-afile'), 'not a dir');
        await mkdir(join(dir, 'other-dir'));
        expect(await sweepChromiumProfiles(dir)).toEqual({ removed: [], young: 2 });
        const later = Date.now() + PROFILE_MIN_AGE_MS + 1_000;
        const second = await sweepChromiumProfiles(dir, later);
        expect(second.removed.sort()).toEqual([
          'playwright_chromiumdev_profile-file-not-dir-parent',
          'playwright_chromiumdev_profile-recent',
        ]);
        expect((await readdir(dir)).sort()).toEqual(['other-dir', 'playwright_chromiumdev_profile-afile']);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
