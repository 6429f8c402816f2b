/**
 * Loading @ffmpeg/core (ffmpeg 5.1 compiled to WebAssembly, single-threaded) inside the worker
 * thread, and the thread's CPU clock. Worker-side only: wasm-worker.ts is the one importer.
 *
 * A fresh core instance per job, from a WebAssembly.Module compiled once per worker. Measured on
 * the 2-core dev machine (Node 20, core 0.12.10):
 * - Compiling the 32 MB module costs 300-800 ms; instantiating the compiled module again costs
 *   10-60 ms. The compiled code is shared by the instances, so V8's tier-up (the first run of a
 *   job is ~2x slower than later ones) also carries over from one job to the next.
 * - Reusing one instance with `core.reset()` is not safe: ffmpeg's global state survives it. A
 *   job passing `-loglevel error` silenced every later job's log (so failures lost their
 *   details and probing by log would break), and an ffprobe that fails exits through an
 *   ExitStatus exception that leaves the instance half torn down. Each `exec` also mallocs its
 *   argv without freeing it, and the linear memory never shrinks after a large job.
 * - Memory stays flat either way over 30 runs (the old instances are collected: RSS 165-180 MB),
 *   so the fresh instance costs nothing but the ~20 ms of instantiation.
 *
 * Each instance also gets a larger C stack (see relocateStack). The core is linked with
 * Emscripten 3.1.40's default stack of 64 KB, placed just above the static data: libopus on any
 * stereo or surround input (at its default complexity) and libvpx-vp9 on every input overflow it,
 * corrupt the data below and trap with "memory access out of bounds" (ffmpegwasm/ffmpeg.wasm#591,
 * #679; the upstream fix, a 5 MB stack in #824, is not in 0.12.10). Moving the stack pointer to an
 * 8 MB block taken from the instance's own heap before ffmpeg runs fixes both: measured, stereo
 * 48 kHz Opus and 10 s of 640x360 VP9 (realtime) then encode and decode cleanly.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The part of @ffmpeg/core 0.12's Emscripten module this engine uses. */
export interface FfmpegCore {
  /** The C allocator: a block of the instance's linear memory (0 when there is no room). */
  _malloc(size: number): number;
  FS: {
    writeFile(path: string, data: Uint8Array, options?: { canOwn?: boolean }): void;
    readFile(path: string): Uint8Array;
  };
  /** Runs ffmpeg synchronously (after the core's own `-nostdin -y`); returns the exit code. */
  exec(...args: string[]): number;
  /** Runs ffprobe synchronously; its return value is meaningless (always -1 in 0.12.10). */
  ffprobe(...args: string[]): number;
  setLogger(logger: (log: { type: 'stdout' | 'stderr'; message: string }) => void): void;
  /** `progress` is a fraction of the input's duration, `time` the output position in microseconds. */
  setProgress(handler: (event: { progress: number; time: number }) => void): void;
}

type CoreFactory = (module: Record<string, unknown>) => Promise<FfmpegCore>;

/**
 * The WebAssembly JS API, typed here: the project's lib (ES2023, no DOM) and @types/node do not
 * declare its values. Modules and instances are opaque to this code.
 */
type WasmModule = object & { readonly __wasmModule?: never };
type WasmInstance = object & { readonly exports: Record<string, unknown> };
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: object): Promise<WasmInstance>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Where the worker finds the core: resolved by the main thread, passed as workerData. */
export interface CoreFiles {
  /** The UMD build's script, loaded with require so that no Node 20.x needs ESM syntax detection. */
  script: string;
  wasm: string;
  /** C stack per instance, bytes (default CORE_STACK_BYTES); 0 keeps the core's own 64 KB. */
  stackBytes?: number;
}

/** The C stack each instance gets: libopus and libvpx-vp9 need more than the core's 64 KB. */
export const CORE_STACK_BYTES = 8 * 1024 * 1024;

/** The minified export names of Emscripten's stackSave / stackRestore, as the glue names them. */
interface StackExports {
  save: string;
  restore: string;
}

interface Compiled {
  factory: CoreFactory;
  module: WasmModule;
  stack: StackExports | undefined;
}

/**
 * Finds which wasm exports are stackSave and stackRestore: the glue binds them by minified name
 * (`var stackSave=function(){return(stackSave=Module["asm"]["Da"])...}`), read from its source.
 * Undefined for a build written differently: its stack is then left as it is.
 */
export function findStackExports(glue: string): StackExports | undefined {
  const save = /\bstackSave=Module\["asm"\]\["(\w+)"\]/.exec(glue)?.[1];
  const restore = /\bstackRestore=Module\["asm"\]\["(\w+)"\]/.exec(glue)?.[1];
  return save && restore ? { save, restore } : undefined;
}

let compiled: Promise<Compiled> | undefined;

async function compile(files: CoreFiles): Promise<Compiled> {
  const factory = createRequire(files.script)(files.script) as CoreFactory;
  const module = await wasmApi.compile(readFileSync(files.wasm));
  return { factory, module, stack: findStackExports(readFileSync(files.script, 'utf8')) };
}

/**
 * Points the instance's stack pointer at the top of a fresh `bytes`-long heap block, before any
 * ffmpeg code runs (the stack grows down into it). The block is never freed: it goes with the
 * instance. Returns whether the stack was moved; it is not when the exports are unknown, the
 * block cannot be allocated or the pointer does not read back (the core then runs as shipped).
 */
function relocateStack(
  core: FfmpegCore,
  instance: WasmInstance,
  names: StackExports,
  bytes: number,
): boolean {
  const save = instance.exports[names.save];
  const restore = instance.exports[names.restore];
  if (typeof save !== 'function' || typeof restore !== 'function' || bytes <= 0) return false;
  const base = core._malloc(bytes);
  if (!base) return false;
  const top = (base + bytes) & ~15; // the wasm ABI keeps the stack 16-byte aligned
  restore(top);
  return save() === top;
}

/** A new, independent ffmpeg instance. The first call of a worker compiles the module. */
export async function freshCore(files: CoreFiles): Promise<FfmpegCore> {
  compiled ??= compile(files).catch((error: unknown) => {
    compiled = undefined; // let a later job try again
    throw error;
  });
  const { factory, module, stack } = await compiled;
  // The Emscripten glue believes it runs in a browser worker and reads self.location.href to find
  // its files; with instantiateWasm it fetches nothing, but the property must exist.
  const scope = globalThis as { self?: unknown };
  const shimmed = scope.self === undefined;
  if (shimmed) scope.self = { location: { href: `file://${files.script}` } };
  let failInstantiate: (error: unknown) => void = () => {};
  const instantiateFailed = new Promise<never>((_, reject) => {
    failInstantiate = reject;
  });
  let instance: WasmInstance | undefined;
  let core: FfmpegCore;
  try {
    core = await Promise.race([
      factory({
        // Emscripten's hook for supplying the instance ourselves: from the compiled module, so
        // the 32 MB are not compiled again. It must return {} synchronously and call back later.
        instantiateWasm(imports: object, receive: (instance: WasmInstance, module: WasmModule) => void) {
          wasmApi.instantiate(module, imports).then((created) => {
            instance = created;
            receive(created, module);
          }, failInstantiate);
          return {};
        },
      }),
      instantiateFailed,
    ]);
  } finally {
    if (shimmed) delete scope.self;
  }
  if (stack && instance) relocateStack(core, instance, stack, files.stackBytes ?? CORE_STACK_BYTES);
  return core;
}

/**
 * Runs one synchronous core call and returns ffmpeg's exit code. ffmpeg's own exit paths end in
 * an abort the glue swallows (the code is then in `ret`); ffprobe's, and ffmpeg's on a few option
 * errors, throw Emscripten's ExitStatus instead, which carries the code.
 */
export function callCore(call: () => number): number {
  try {
    return call();
  } catch (error) {
    const status = (error as { name?: unknown; status?: unknown } | null)?.status;
    if ((error as { name?: unknown } | null)?.name === 'ExitStatus' && typeof status === 'number') {
      return status;
    }
    throw error;
  }
}

/**
 * How the worker's CPU time is measured. Node 20 has no per-thread CPU clock
 * (process.threadCpuUsage arrived in Node 23.9) and process.cpuUsage() in a worker reports the
 * whole process. Linux accounts each thread in /proc/thread-self, which names the calling thread,
 * and readFileSync reads it on this thread: `schedstat` gives its run time in nanoseconds
 * (user + system), `stat` its utime + stime in 10 ms ticks. Elsewhere only the job's wall time is
 * left, which overstates CPU when the machine is contended.
 */
export type CpuClock = 'schedstat' | 'stat' | 'wall';

function readSchedstat(): number {
  const ns = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  if (!Number.isFinite(ns)) throw new Error('unreadable schedstat');
  return ns / 1e6;
}

function readStat(): number {
  const text = readFileSync('/proc/thread-self/stat', 'utf8');
  // Fields after the command name, which is in parentheses and may itself hold spaces.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  if (!Number.isFinite(ticks)) throw new Error('unreadable stat');
  return ticks * 10; // USER_HZ is 100 on Linux whatever the kernel's own tick rate
}

function pickClock(): CpuClock {
  for (const [clock, read] of [
    ['schedstat', readSchedstat],
    ['stat', readStat],
  ] as const) {
    try {
      read();
      return clock;
    } catch {
      // not Linux, or procfs not mounted: try the next
    }
  }
  return 'wall';
}

export const cpuClock: CpuClock = pickClock();

/** This thread's CPU time in ms on `cpuClock` (a wall clock when nothing better exists). */
export function threadCpuMs(): number {
  if (cpuClock === 'schedstat') return readSchedstat();
  if (cpuClock === 'stat') return readStat();
  return performance.now();
}
