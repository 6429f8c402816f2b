/** Starting a process of isolated conversions (converter-process.ts), for conversions and probes alike. */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findScript, tsxModuleUrl } from '../script-path.js';

/** The child's script: beside this file in the sources, or where the build put it. */
function childScript(): URL {
  return findScript(import.meta.url, 'src/kit/isolation/converter-process', 'The isolated-conversion script');
}

/** A child with its heap capped at `maxHeapMb`, talking over IPC only. */
export function startChild(maxHeapMb: number): ChildProcess {
  const script = childScript();
  // From the TypeScript sources (vitest, tsx), the child loads tsx to read .ts.
  const loader = script.pathname.endsWith('.ts') ? ['--import', tsxModuleUrl('tsx/esm')] : [];
  return fork(fileURLToPath(script), [], {
    execArgv: [...loader, `--max-old-space-size=${maxHeapMb}`],
    // Its output is of no use to anyone (V8's out-of-memory report is recognised by exit code).
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    serialization: 'advanced',
  });
}
