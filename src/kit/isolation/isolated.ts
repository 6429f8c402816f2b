/**
 * Pure-JS converters (mammoth, exceljs, pdf.js, the text converter) run on the thread that calls
 * them: in a service, that is the event loop every request waits on, and the heap every job
 * shares. A 1.6 MB docx whose XML inflates to hundreds of MB grew a server by 3.4 GB; a 187 KB
 * PDF held its event loop for 16 s. `isolateConverter` runs each conversion of such a converter
 * in a child process of its own instead:
 *
 * - its heap is capped (`maxHeapMb`, V8's --max-old-space-size): a file that needs more ends
 *   that process with INPUT_LIMIT_EXCEEDED, and the service's own memory is untouched;
 * - its work is capped (`budgetMs`): past it the process is killed, INPUT_LIMIT_EXCEEDED;
 * - the event loop only passes messages, so health checks and other requests go on.
 *
 * A process, not a worker thread: a worker's heap limit is best effort, and one large allocation
 * past it aborts the whole process (nodejs/node#47224, measured here with this very docx).
 * Processes are kept warm after use (up to two idle per converter): a small document costs a
 * message, not a process start and a library load (~0.3 s, paid by an engine's first document
 * only). None is started ahead of use: a health check that asks every converter whether it is
 * available must not leave four idle processes behind. A process is given back only after a conversion that ended
 * with an answer; one that was killed (memory, budget, cancel) is replaced, and each is
 * replaced after 100 conversions.
 * Options schemas stay in-process (cheap, no library involved); availability is asked of a child
 * too (availability-probe.ts), so the service never loads the library at all.
 */
import type { ChildProcess } from 'node:child_process';
import { abortError, throwIfAborted } from '../../core/abort.js';
import { type ErrorCode, FileconvError } from '../../core/errors.js';
import type { ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { findScript } from '../script-path.js';
import { askAvailability } from './availability-probe.js';
import { startChild } from './child-process.js';
import type {
  ConversionMessage,
  ConversionRequest,
  IsolatedFactory,
  ParentMessage,
} from './process-protocol.js';

export type { IsolatedFactory } from './process-protocol.js';

export interface IsolationOptions {
  /** The process's heap cap, MB (V8's old generation). Default 512. */
  maxHeapMb?: number;
  /** How long one conversion may work, ms. Default 120000. */
  budgetMs?: number;
  /** The options the converter was made with (serialisable), for the child's copy. */
  factoryOptions?: Record<string, unknown>;
}

export const DEFAULT_ISOLATION = { maxHeapMb: 512, budgetMs: 120_000 } as const;

function limitError(what: string, converter: string): FileconvError {
  return new FileconvError('INPUT_LIMIT_EXCEEDED', `The file needs ${what} to convert (${converter}).`);
}

/** How V8 ends a process that ran out of heap: abort(), so SIGABRT (or exit code 134). */
function outOfMemory(code: number | null, signal: NodeJS.Signals | null): boolean {
  return signal === 'SIGABRT' || code === 134;
}

type Settings = Required<Omit<IsolationOptions, 'factoryOptions'>> & {
  factoryOptions: Record<string, unknown>;
  /** The converter's name, for messages. */
  name: string;
  /** The factory module's file URL and export, as the child is told them. */
  moduleUrl: string;
  factory: string;
};

/** Conversions a process runs before it is replaced (bounds whatever a library keeps). */
const MAX_USES = 100;
/** Warm processes kept idle per converter. */
const MAX_IDLE = 2;

/** Warm processes of one isolated converter: taken for a conversion, given back when it ends well. */
class ProcessPool {
  private readonly idle: ChildProcess[] = [];
  private readonly uses = new WeakMap<ChildProcess, number>();

  constructor(private readonly settings: Settings) {}

  private start(): ChildProcess {
    const child = startChild(this.settings.maxHeapMb);
    this.uses.set(child, 0);
    child.on('exit', () => {
      const at = this.idle.indexOf(child);
      if (at !== -1) this.idle.splice(at, 1);
    });
    // An unexpected IPC error ends up as an exit; the conversion waiting on it reports it.
    child.on('error', () => {});
    return child;
  }

  /** An idle process keeps neither the service alive nor its exit waiting. */
  private park(child: ChildProcess): void {
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
    this.idle.push(child);
  }

  take(): ChildProcess {
    const child = this.idle.pop() ?? this.start();
    child.ref();
    (child.channel as { ref?: () => void } | undefined)?.ref?.();
    this.uses.set(child, (this.uses.get(child) ?? 0) + 1);
    return child;
  }

  give(child: ChildProcess): void {
    if (!child.connected || (this.uses.get(child) ?? 0) >= MAX_USES || this.idle.length >= MAX_IDLE) {
      child.disconnect?.();
      return;
    }
    this.park(child);
  }

  close(): void {
    for (const child of this.idle.splice(0)) child.kill('SIGKILL');
  }
}

/** Runs one conversion in a process of the pool. */
function runIsolated(
  ctx: ConvertContext<unknown>,
  settings: Settings,
  pool: ProcessPool,
): Promise<ConvertResult> {
  throwIfAborted(ctx.signal);
  const { name } = settings;
  const request: ConversionRequest = {
    moduleUrl: settings.moduleUrl,
    factory: settings.factory,
    factoryOptions: settings.factoryOptions,
    ctx: {
      inputPath: ctx.inputPath,
      outputPath: ctx.outputPath,
      from: ctx.from,
      to: ctx.to,
      options: ctx.options,
      tempDir: ctx.tempDir,
      limits: ctx.limits,
    },
  };
  return new Promise<ConvertResult>((resolve, reject) => {
    const child = pool.take();
    let killLater: NodeJS.Timeout | undefined;
    let stopped: Error | undefined;
    const cleanup = () => {
      clearTimeout(budget);
      clearTimeout(killLater);
      ctx.signal.removeEventListener('abort', onAbort);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    /** Ends the conversion by killing its process (budget passed, or canceled and not stopping). */
    const stop = (error: Error) => {
      stopped ??= error;
      child.kill('SIGKILL');
    };
    const budget = setTimeout(
      () => stop(limitError(`more than ${Math.round(settings.budgetMs / 1000)} s of work`, name)),
      settings.budgetMs,
    );
    const onAbort = () => {
      if (child.connected) child.send({ type: 'abort' } satisfies ParentMessage);
      // A library that does not look at the signal is stopped anyway, a moment later.
      killLater = setTimeout(() => stop(abortError(ctx.signal)), 1000);
    };
    const onMessage = (message: ConversionMessage) => {
      if (message.type === 'progress') {
        ctx.onProgress(message.fraction);
        return;
      }
      cleanup();
      if (ctx.signal.aborted) {
        // Its library may have stopped halfway: this process is not reused.
        child.kill('SIGKILL');
        reject(abortError(ctx.signal));
        return;
      }
      pool.give(child);
      if (message.type === 'done') resolve({ cpuMs: message.cpuMs });
      else {
        const { code, message: text, details } = message.error;
        reject(new FileconvError(code as ErrorCode, text, details ? { details } : {}));
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      if (stopped) reject(stopped);
      else if (ctx.signal.aborted) reject(abortError(ctx.signal));
      else if (outOfMemory(code, signal))
        reject(limitError(`more than ${settings.maxHeapMb} MB of memory`, name));
      else {
        reject(
          new FileconvError(
            'CONVERSION_FAILED',
            `The ${name} conversion process stopped without an answer (${signal ?? `exit code ${code}`}).`,
          ),
        );
      }
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    child.on('message', onMessage);
    child.on('exit', onExit);
    child.send({ type: 'convert', request } satisfies ParentMessage);
  });
}

/** The file URL of `factory.module`; INTERNAL when it is not in the installation. */
function moduleUrlOf(factory: IsolatedFactory): string {
  if (factory.module.startsWith('file:')) return factory.module;
  return findScript(import.meta.url, factory.module, `The converter module ${factory.module}`).href;
}

/**
 * `converter` (a pure-JS one, built with `options.factoryOptions`) with each conversion run in a
 * child process of its own, under a heap cap and a work budget. The child makes its own copy by
 * importing `factory.module` and calling `factory.factory` with the factory options; the module
 * is looked up here, so a wrong path fails at once rather than at the first conversion.
 */
export function isolateConverter<O>(
  converter: Converter<O>,
  factory: IsolatedFactory,
  options: IsolationOptions = {},
): Converter<O> {
  const settings: Settings = {
    maxHeapMb: options.maxHeapMb ?? DEFAULT_ISOLATION.maxHeapMb,
    budgetMs: options.budgetMs ?? DEFAULT_ISOLATION.budgetMs,
    factoryOptions: options.factoryOptions ?? {},
    name: converter.name,
    moduleUrl: moduleUrlOf(factory),
    factory: factory.factory,
  };
  const pool = new ProcessPool(settings);
  return {
    ...converter,
    available: () =>
      askAvailability({
        moduleUrl: settings.moduleUrl,
        factory: settings.factory,
        factoryOptions: settings.factoryOptions,
      }),
    convert: (ctx) => runIsolated(ctx, settings, pool),
    async close() {
      pool.close();
      await converter.close?.();
    },
  };
}
