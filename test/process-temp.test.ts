/**
 * A process started again after a SIGKILL clears what its predecessor's engines left in the OS
 * temp dir at start (the preset's processTempDir), not when it first uses those engines: the soak
 * saw a restarted worker that had done no document and no web page keep its predecessor's
 * LibreOffice and Chromium dirs. Only dirs of pids that no longer run, only fileconv's names.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { processTempDir } from '../src/preset/backends.js';

const created: string[] = [];
const savedTmp = process.env.TMPDIR;
afterEach(async () => {
  process.env.TMPDIR = savedTmp;
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

it("removes dead processes' engine dirs from the OS temp dir at start, and nothing else", async () => {
  const osTemp = await mkdtemp(join(tmpdir(), 'fileconv-test-ostmp-'));
  const dataDir = await mkdtemp(join(tmpdir(), 'fileconv-test-data-'));
  created.push(osTemp, dataDir);
  const deadPid = spawnSync('true').pid; // exited: its pid runs nothing now (until reused)
  const names = {
    deadOffice: `fileconv-office-${deadPid}-abc123`,
    deadChromium: `fileconv-chromium-${deadPid}-xyz789`,
    liveOffice: `fileconv-office-${process.pid}-keep00`,
    notOurs: `libreoffice-${deadPid}-abc123`,
    noPid: 'fileconv-office-cache',
  };
  for (const name of Object.values(names)) await mkdir(join(osTemp, name, 'worker-0'), { recursive: true });
  process.env.TMPDIR = osTemp;

  await processTempDir(dataDir);

  expect((await readdir(osTemp)).sort()).toEqual([names.liveOffice, names.noPid, names.notOurs].sort());
});
