/**
 * glibc's malloc and a long-running server that decodes images in-process (sharp/libvips).
 *
 * glibc serves a large allocation (an image's pixels, an encoder's buffers) with its own mmap
 * and gives it back on free, but each such free raises the mmap threshold to that size (up to
 * 32 MiB), so from then on buffers of a few MB come from the per-thread arenas instead, where
 * freed memory stays in the process. Every libuv thread that ran a conversion keeps an arena
 * of its own, and the resident size only climbs. Measured on this project's machine (Debian 12,
 * glibc 2.36; 150 JPEG 2400x1800 -> WebP through the engine, 2 at a time, RSS after):
 * default 294-335 MiB, MALLOC_ARENA_MAX=2 283, jemalloc (LD_PRELOAD) 230, a fixed
 * MALLOC_MMAP_THRESHOLD_ of 128 KiB 145. A fixed threshold turns the raising off.
 *
 * glibc reads these variables when the process starts, so a running process cannot set them
 * for itself: `npm start`, the soak's deployments and the container image set them, and
 * `fileconv doctor` says when the process it runs in lacks them. Other allocators (musl,
 * macOS, jemalloc) ignore the variable.
 */
export const MALLOC_SETTINGS: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** The glibc version this process runs on, or undefined (musl, macOS, Windows). */
export function glibcVersion(): string | undefined {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)
    ?.header;
  return header?.glibcVersionRuntime;
}

/** What to tell an operator about the allocator settings of this process; undefined when nothing. */
export function mallocAdvice(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (glibcVersion() === undefined) return undefined;
  if (/jemalloc|tcmalloc|mimalloc/.test(env.LD_PRELOAD ?? '')) return undefined;
  if (/mmap_threshold/.test(env.GLIBC_TUNABLES ?? '')) return undefined;
  const missing = Object.entries(MALLOC_SETTINGS).filter(([name]) => env[name] === undefined);
  if (missing.length === 0) return undefined;
  return `glibc malloc keeps freed image buffers: start fileconv serve/worker with ${missing
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')} (npm start and the container do; README, "Memory")`;
}
