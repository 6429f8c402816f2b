/**
 * The SQLite binding, better-sqlite3, imported on first use only (so `import 'fileconv'` stays
 * light), and a missing or broken install reported as ENGINE_UNAVAILABLE naming the command.
 *
 * Why better-sqlite3 (measured on Node 20, 2 cores, WAL): it and libsql 0.5 write and read at
 * the same speed (FULL ~0.23 vs ~0.31 ms a write, NORMAL ~0.02-0.04 ms, a read by key ~5 vs
 * ~13 µs), but libsql silently ignores `readonly` and `fileMustExist`, has no working `pluck`,
 * and adds a `_metadata` field to every row; fileconv needs the read-only open to inspect a
 * database without touching it. The cost is installation: better-sqlite3 downloads a prebuilt
 * binary, or builds one (~60 s, python3, make and g++) where downloads are blocked; libsql
 * installs prebuilt from npm in ~2 s.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { FileconvError } from '../../core/errors.js';
import { npmInstall } from '../../kit/engine-packages.js';

export const SQLITE_INSTALL = npmInstall('better-sqlite3');

let loading: Promise<typeof BetterSqlite3> | undefined;

export function loadSqlite(): Promise<typeof BetterSqlite3> {
  loading ??= import('better-sqlite3').then(
    (module) => module.default,
    (error: unknown) => {
      loading = undefined; // a later call may succeed, e.g. after an install
      const code = (error as { code?: unknown } | null)?.code;
      const problem =
        code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND'
          ? 'is not installed'
          : 'failed to load';
      throw new FileconvError(
        'ENGINE_UNAVAILABLE',
        `The embedded database needs the npm package 'better-sqlite3', which ${problem}: run \`${SQLITE_INSTALL}\``,
        { cause: error, details: { package: 'better-sqlite3', install: SQLITE_INSTALL } },
      );
    },
  );
  return loading;
}
