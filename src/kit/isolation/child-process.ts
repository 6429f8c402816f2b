/** Starting a process of isolated conversions (converter-process.ts), for conversions and probes alike. */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeDeadOwners } from '../process-temp.js';
import { findScript, tsxModuleUrl } from '../script-path.js';

/** The child's script: beside this file in the sources, or where the build put it. */
function childScript(): URL {
  return findScript(import.meta.url, 'src/kit/isolation/converter-process', 'The isolated-conversion script');
}

const CHILDREN_PREFIX = 'fileconv-isolated';
let childrenRoot: string | undefined;
let childCount = 0;

/**
 * A TMPDIR of the child's own. Libraries in the child write temporary files there (exceljs
 * copies worksheets through the `tmp` package) and clean up only when the child exits normally;
 * a child killed for its memory or its budget would leave them in the shared TMPDIR for good.
 * So each child gets a dir under one dir of this process (`fileconv-isolated-<pid>-*`, swept
 * by pid after a SIGKILL like the engines' dirs, process-temp.ts), removed when the child ends.
 */
function childTempDir(): string | undefined {
  try {
    if (childrenRoot === undefined) {
      void removeDeadOwners(tmpdir(), CHILDREN_PREFIX);
      const root = mkdtempSync(join(tmpdir(), `${CHILDREN_PREFIX}-${process.pid}-`));
      childrenRoot = root;
      process.once('exit', () => rmSync(root, { recursive: true, force: true }));
    }
    const dir = join(childrenRoot, `child-${++childCount}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  } catch {
    // A full disk or a TMPDIR not ours to write: the child shares this process's TMPDIR, as
    // before; a conversion that needs room then fails on the disk with its own NO_SPACE.
    return undefined;
  }
}

/** A child with its heap capped at `maxHeapMb`, talking over IPC only. */
export function startChild(maxHeapMb: number): ChildProcess {
  const script = childScript();
  const temp = childTempDir();
  // From the TypeScript sources (vitest, tsx), the child loads tsx to read .ts.
  const loader = script.pathname.endsWith('.ts') ? ['--import', tsxModuleUrl('tsx/esm')] : [];
  const child = fork(fileURLToPath(script), [], {
    execArgv: [...loader, `--max-old-space-size=${maxHeapMb}`],
    env: temp === undefined ? process.env : { ...process.env, TMPDIR: temp },
    // Its output is of no use to anyone (V8's out-of-memory report is recognised by exit code).
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    serialization: 'advanced',
  });
  if (temp !== undefined) {
    const removeTemp = () => void rm(temp, { recursive: true, force: true }).catch(() => {});
    child.once('exit', removeTemp);
    child.once('error', removeTemp); // a fork that failed has no exit
  }

  return child;
}
