import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];

/** A fresh temp dir, removed after the test. */
export async function tempDir(prefix = 'fileconv-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Entries left in a directory (the engine's temp parent must be empty after every conversion). */
export async function leftovers(dir: string): Promise<string[]> {
  return readdir(dir);
}

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

export const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');

export function fixture(name: string): string {
  return join(FIXTURES, name);
}
