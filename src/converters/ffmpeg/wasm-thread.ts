/**
 * Finding @ffmpeg/core and the worker script, and starting a worker thread on them: the
 * main-thread side's plumbing (wasm-runner.ts schedules the jobs). Nothing here loads the core.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Availability } from '../../core/ports/index.js';
import { errorLine, npmInstall } from '../../kit/engine-packages.js';
import { findScript, tsxModuleUrl } from '../../kit/script-path.js';
import type { CoreFiles } from './wasm-core.js';

export const INSTALL = npmInstall('@ffmpeg/core');

/** The core's files, resolved without loading them (the UMD build: see CoreFiles). */
export function resolveCore(): CoreFiles {
  const require = createRequire(import.meta.url);
  return { script: require.resolve('@ffmpeg/core'), wasm: require.resolve('@ffmpeg/core/wasm') };
}

/** Whether the core resolves, and its version, read from its package.json rather than by loading it. */
export function coreAvailability(): Availability {
  if (typeof (globalThis as { WebAssembly?: unknown }).WebAssembly !== 'object') {
    return { ok: false, reason: 'WebAssembly is disabled in this Node process (--jitless)' };
  }
  try {
    const files = resolveCore();
    // dist/umd/ffmpeg-core.js -> the package root; its exports map does not expose package.json.
    const pkg = JSON.parse(readFileSync(join(dirname(files.script), '..', '..', 'package.json'), 'utf8'));
    return { ok: true, version: `ffmpeg.wasm core ${(pkg as { version?: string }).version ?? 'unknown'}` };
  } catch (error) {
    const reason = `@ffmpeg/core is not installed (${errorLine(error)})`;
    return { ok: false, reason, install: INSTALL };
  }
}

/**
 * The worker script: wasm-worker.ts beside this file in the sources, its own entry once built
 * (kit/script-path.ts finds it).
 */
function workerScript(): URL {
  return findScript(import.meta.url, 'src/converters/ffmpeg/wasm-worker', 'The ffmpeg.wasm worker script');
}

/** A new worker thread running wasm-worker, told where the core is. */
export function startWasmWorker(files: CoreFiles): Worker {
  const script = workerScript();
  if (!script.pathname.endsWith('.ts')) return new Worker(script, { workerData: files });
  // Running from the TypeScript sources (vitest, tsx): Node 20 cannot load .ts in a worker by
  // itself, so the worker registers tsx (a dev dependency) before importing the script.
  const tsx = tsxModuleUrl('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: files });
}
