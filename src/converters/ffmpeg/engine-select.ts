/**
 * Picks the engine that runs ffmpeg: the native binary, or @ffmpeg/core (WebAssembly) when no
 * binary is found ('auto'), or the one configured. The WebAssembly runner is imported only when
 * chosen, so a missing @ffmpeg/core (an optional dependency) never breaks native use, and its
 * absence is ENGINE_UNAVAILABLE naming the package to install. Importing wasm-runner.ts succeeds
 * without @ffmpeg/core (it resolves the core only when a job starts), so the runner's own
 * `available()` is what decides: a runner that is not ok is never chosen.
 */
import { FileconvError, isFileconvError } from '../../core/errors.js';
import { isModuleNotFound, npmInstall } from '../../kit/engine-packages.js';
import { locateBinaries } from './binaries.js';
import { createNativeFfmpegRunner, NATIVE_INSTALL_HINT, type NativeRunnerOptions } from './native-runner.js';
import type { FfmpegRunner } from './runner.js';

export type FfmpegEngine = 'auto' | 'native' | 'wasm';

export const WASM_INSTALL_HINT = npmInstall('@ffmpeg/core');

interface WasmRunnerModule {
  createWasmFfmpegRunner(options?: Record<string, unknown>): FfmpegRunner;
}

function wasmUnavailable(cause: unknown, reason?: string): FileconvError {
  const why = reason ? ` (${reason})` : '';
  return new FileconvError(
    'ENGINE_UNAVAILABLE',
    `The ffmpeg converter cannot load its WebAssembly engine${why}: run \`${WASM_INSTALL_HINT}\``,
    {
      cause,
      details: { package: '@ffmpeg/core', install: WASM_INSTALL_HINT, ...(reason ? { reason } : {}) },
    },
  );
}

/**
 * The WebAssembly runner; ENGINE_UNAVAILABLE when it cannot be loaded or its `available()` is not
 * ok (@ffmpeg/core missing, WebAssembly disabled). A literal specifier, so the bundler splits the
 * runner into its own chunk, loaded only here.
 */
export async function loadWasmRunner(
  importModule: () => Promise<unknown> = () => import('./wasm-runner.js'),
): Promise<FfmpegRunner> {
  let module: WasmRunnerModule;
  try {
    module = (await importModule()) as WasmRunnerModule;
  } catch (error) {
    if (isFileconvError(error)) throw error;
    if (isModuleNotFound(error)) throw wasmUnavailable(error);
    throw new FileconvError('ENGINE_UNAVAILABLE', 'The ffmpeg WebAssembly engine failed to load', {
      cause: error,
      details: { install: WASM_INSTALL_HINT },
    });
  }
  if (typeof module.createWasmFfmpegRunner !== 'function') throw wasmUnavailable(undefined);
  const runner = module.createWasmFfmpegRunner();
  const availability = await runner.available();
  if (!availability.ok) throw wasmUnavailable(undefined, availability.reason);
  return runner;
}

export interface RunnerSelection {
  engine: FfmpegEngine;
  native: NativeRunnerOptions;
  /** Loads the WebAssembly runner (replaceable in tests). */
  loadWasm?: () => Promise<FfmpegRunner>;
}

/**
 * A function returning the runner to use, decided once on first call and then cached. A failed
 * decision (the WebAssembly engine missing) is not cached, so installing it later helps.
 */
export function runnerSelector(selection: RunnerSelection): () => Promise<FfmpegRunner> {
  let chosen: Promise<FfmpegRunner> | undefined;
  const loadWasm = selection.loadWasm ?? (() => loadWasmRunner());
  const choose = async (): Promise<FfmpegRunner> => {
    if (selection.engine === 'native') return createNativeFfmpegRunner(selection.native);
    if (selection.engine === 'wasm') return loadWasm();
    const found = await locateBinaries(selection.native);
    if (!('missing' in found)) return createNativeFfmpegRunner(selection.native);
    return loadWasm().catch((error: unknown) => {
      if (!isFileconvError(error) || error.code !== 'ENGINE_UNAVAILABLE') throw error;
      // Neither engine: the system package first (native, every codec, fast), the WebAssembly
      // build (GPL too, slower, fewer encoders) as the fallback where no package can be installed.
      throw new FileconvError(
        'ENGINE_UNAVAILABLE',
        `The ffmpeg converter found no ffmpeg binary (${found.missing}): install it: ${NATIVE_INSTALL_HINT}. Where no system package can be installed, \`${WASM_INSTALL_HINT}\` adds its WebAssembly build (also GPL; slower, fewer encoders)`,
        { cause: error, details: { ...error.details, install: NATIVE_INSTALL_HINT } },
      );
    });
  };
  return () => {
    chosen ??= choose().catch((error: unknown) => {
      chosen = undefined;
      throw error;
    });
    return chosen;
  };
}
