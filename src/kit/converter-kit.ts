/**
 * The parts every in-process converter shares: what available() says when its library cannot be
 * loaded, refusing a pair it has no edge for, building option schemas once, and running the work
 * with progress and CPU time around it (options themselves are parsed by core/options.ts, by the
 * engine, before a converter sees them). One place, so every converter answers these the same way.
 */
import { throwIfAborted } from '../core/abort.js';
import { FileconvError } from '../core/errors.js';
import type { FormatName } from '../core/formats/types.js';
import type { Availability, ConversionEdge, ConvertContext, ConvertResult } from '../core/ports/index.js';
import { errorLine } from './engine-packages.js';

/**
 * available()'s answer when loading the engine threw: the reason, and the install command the
 * loader put in the error's details (or `fallbackInstall`).
 */
export function unavailable(error: unknown, fallbackInstall?: string): Availability {
  const details = (error as FileconvError | undefined)?.details ?? {};
  const install = typeof details.install === 'string' ? details.install : fallbackInstall;
  return {
    ok: false,
    reason: errorLine(error),
    ...(install === undefined ? {} : { install }),
  };
}

/**
 * A check that throws UNSUPPORTED_CONVERSION for a pair `edges` does not hold: the engine only
 * plans declared edges, but a host calling convert() directly can ask anything.
 */
export function edgeGuard(
  converter: string,
  edges: readonly ConversionEdge[],
): (from: FormatName, to: FormatName) => void {
  const pairs = new Set(edges.map((edge) => `${edge.from}>${edge.to}`));
  return (from, to) => {
    if (!pairs.has(`${from}>${to}`)) {
      throw new FileconvError(
        'UNSUPPORTED_CONVERSION',
        `The ${converter} converter cannot convert '${from}' to '${to}'`,
      );
    }
  };
}

/**
 * `build` memoised by its key: an options schema is built once per target (and setting), not per
 * request. It matters for speed, not just allocation: zod compiles a fast path for a schema on
 * its first parse, so a schema built per request was parsed the slow way every time (~1 ms of
 * the service's main thread per small conversion).
 */
export function memoizeSchema<K, S>(build: (key: K) => S): (key: K) => S {
  const built = new Map<K, S>();
  return (key) => {
    let schema = built.get(key);
    if (schema === undefined) {
      schema = build(key);
      built.set(key, schema);
    }
    return schema;
  };
}

/**
 * Runs a conversion done inside this process: progress 0 before and 1 after, failures through
 * `mapError`, and CPU time from process.cpuUsage(). That counts the whole process (library
 * threads included, but also whatever else runs in-process at the time): the best measure an
 * in-process engine has.
 */
export async function runInProcess(
  ctx: Pick<ConvertContext, 'signal' | 'onProgress'>,
  work: () => Promise<void>,
  mapError: (error: unknown) => Error,
): Promise<ConvertResult> {
  throwIfAborted(ctx.signal);
  const cpuStart = process.cpuUsage();
  ctx.onProgress(0);
  try {
    await work();
  } catch (error) {
    throw mapError(error);
  }
  ctx.onProgress(1);
  const cpu = process.cpuUsage(cpuStart);
  return { cpuMs: (cpu.user + cpu.system) / 1000 };
}
