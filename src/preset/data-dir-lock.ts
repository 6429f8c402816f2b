/**
 * One `fileconv serve` per data dir. Two would each run an in-process queue over the same jobs,
 * and each would take the other's running jobs, at its start, for jobs a crash interrupted. The
 * lock is an exclusive SQLite lock on `<dataDir>/serve.lock`, held for the process's life: the
 * kernel drops it when the process dies, however it dies, so a SIGKILL never leaves a stale lock
 * to clean up by hand. `serve.pid` beside it only names the holder in the message.
 */
import { rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadSqlite } from '../adapters/sqlite/sqlite-package.js';
import { FileconvError } from '../core/errors.js';

export interface DataDirLock {
  release(): void;
}

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const Database = await loadSqlite();
  const lockFile = join(dataDir, 'serve.lock');
  const pidFile = join(dataDir, 'serve.pid');
  const lock = new Database(lockFile, { timeout: 0 });
  try {
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
    const holder = (await readFile(pidFile, 'utf8').catch(() => '')).trim();
    throw new FileconvError(
      'INVALID_STATE',
      `Another fileconv serve${holder ? ` (pid ${holder})` : ''} is using the data dir ${dataDir}: stop it first, or give this one another --data dir.`,
      { cause: error, details: { dataDir, ...(holder ? { pid: Number(holder) } : {}) } },
    );
  }
  await writeFile(pidFile, `${process.pid}\n`);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      rmSync(pidFile, { force: true });
      lock.exec('ROLLBACK');
      lock.close();
    },
  };
}
