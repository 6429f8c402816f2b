/**
 * The office converter: documents (docx doc odt rtf txt html fodt sxw wpd and templates -> pdf
 * docx odt rtf txt html epub fodt), spreadsheets (xlsx xls ods csv fods xmlss slk dbf sxc -> most
 * of those and pdf html), presentations (pptx ppt odp key fodp ppsx sxi -> pdf pptx odp fodp ppsx)
 * and drawings (odg vsdx emf wmf -> pdf png svg odg emf wmf, in Draw), on LibreOffice; the exact
 * edges are in office/libreoffice-filters.ts.
 *
 * By default conversions run on a warm pool of soffice processes driven over UNO by a small
 * Python bridge (office/libreoffice-pool.ts): ~0.1 s a document instead of ~1-3 s for a cold
 * `soffice --convert-to`. Without a Python that has the uno module (python3-uno), or with
 * `mode: 'cold'`, each document gets its own cold soffice (office/libreoffice-cold.ts).
 * Zip-based inputs are checked for decompression bombs first; every soffice runs with a private
 * profile that blocks macros and all fetching of linked resources (office/libreoffice-profile.ts).
 * A conversion whose warm soffice crashes is retried once in a cold soffice of its own.
 * The output appears at `outputPath` only when complete. Call close() to stop the pool.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { abortError, throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { placeFile } from '../../kit/place-file.js';
import { type ZipLimits, zipLimitsSchema } from '../../kit/zip-safety.js';
import { finishCsv } from './csv-finish.js';
import { convertCold } from './libreoffice-cold.js';
import { closedError, isCrash } from './libreoffice-errors.js';
import { chooseFilters } from './libreoffice-filters.js';
import { LIBREOFFICE_INSTALL } from './libreoffice-locate.js';
import { type LibreOfficeEngine, resolveEngine } from './libreoffice-mode.js';
import type { LibreOfficeOptions } from './libreoffice-options.js';
import { blameEmptyRange, optionSettings, poolOnlyOptions } from './libreoffice-pdf-export.js';
import { LibreOfficePool, type PoolStats } from './libreoffice-pool.js';
import type { BridgeRequest, SpawnKind } from './libreoffice-process.js';
import { assertWritten, checkInput, stageInput } from './libreoffice-staging.js';
import { LIBREOFFICE } from './registration.js';

export { LIBREOFFICE_INSTALL } from './libreoffice-locate.js';
export type { PoolStats } from './libreoffice-pool.js';
export { LIBREOFFICE_REGISTRATION } from './registration.js';

export interface LibreOfficeConverterOptions {
  /**
   * 'auto' (default): the warm pool when a Python with the uno module is found, else one cold
   * soffice per document (available() says so). 'pool' requires the pool; 'cold' never uses it.
   */
  mode?: 'auto' | 'pool' | 'cold';
  /** soffice (or soffice.bin). Default: SOFFICE_PATH, else `soffice` on PATH. */
  sofficePath?: string;
  /** A Python that can `import uno`. Default: /usr/bin/python3, python3 on PATH, LibreOffice's own. */
  pythonPath?: string;
  /** Warm soffice processes at most. Default os.availableParallelism(). */
  poolSize?: number;
  /** Conversions after which a worker is replaced by a fresh one. Default 200. */
  maxConversionsPerWorker?: number;
  /** Resident memory of a worker's soffice above which it is replaced after its conversion. Default 1 GiB. */
  maxWorkerRssBytes?: number;
  /** Longest one conversion may run before its soffice is killed (CONVERSION_TIMEOUT). Default 120000. */
  timeoutMs?: number;
  /** Longest a worker may take to start. Default 60000. */
  startupTimeoutMs?: number;
  /** Where the pool keeps its profiles (a fresh dir inside it, removed by close()). Default os.tmpdir(). */
  tempDir?: string;
  /** Decompression limits for zip-based inputs. Default DEFAULT_ZIP_LIMITS (office/zip-safety.ts). */
  zipLimits?: Partial<ZipLimits>;
  /** Called with each soffice / bridge pid once it runs (tests check that none outlives close()). */
  onSpawn?: (pid: number, kind: SpawnKind) => void;
}

export interface LibreOfficeConverter extends Converter<LibreOfficeOptions> {
  /** Stops the pool: queued conversions fail (CANCELED), running ones are killed, workers end. */
  close(): Promise<void>;
  /**
   * The pool's workers and counters (also what Engine.stats and the metrics read); undefined
   * until the engine is chosen, or in cold mode.
   */
  stats(): PoolStats | undefined;
}

const factoryOptionsSchema = z.strictObject({
  mode: z.enum(['auto', 'pool', 'cold']).optional(),
  sofficePath: z.string().min(1).optional(),
  pythonPath: z.string().min(1).optional(),
  poolSize: z.int().min(1).max(64).optional(),
  maxConversionsPerWorker: z.int().min(1).optional(),
  maxWorkerRssBytes: z.int().min(1).optional(),
  timeoutMs: z.int().min(1).max(86_400_000).optional(),
  startupTimeoutMs: z.int().min(1).max(600_000).optional(),
  tempDir: z.string().min(1).optional(),
  zipLimits: zipLimitsSchema.optional(),
  onSpawn: z.custom<(pid: number, kind: SpawnKind) => void>((v) => typeof v === 'function').optional(),
});

export const LIBREOFFICE_DEFAULTS = {
  mode: 'auto',
  maxConversionsPerWorker: 200,
  maxWorkerRssBytes: 1024 * 1024 * 1024,
  timeoutMs: 120_000,
  startupTimeoutMs: 60_000,
} as const;

/** Creates the LibreOffice converter. Options are checked here; a bad one throws INVALID_OPTIONS. */
export function createLibreOfficeConverter(options: LibreOfficeConverterOptions = {}): LibreOfficeConverter {
  const given = parseOptions(factoryOptionsSchema, options, 'createLibreOfficeConverter');
  const settings = {
    timeoutMs: given.timeoutMs ?? LIBREOFFICE_DEFAULTS.timeoutMs,
    zipLimits: given.zipLimits ?? {},
    onSpawn: given.onSpawn,
  };
  let engine: Promise<LibreOfficeEngine> | undefined;
  let pool: LibreOfficePool | undefined;
  let closed = false;
  // Chosen once, on the first available() or convert(): construction starts nothing.
  const select = () => {
    engine ??= resolveEngine(given.mode ?? LIBREOFFICE_DEFAULTS.mode, given).then((chosen) => {
      if (chosen.kind === 'pool' && !closed) {
        pool = new LibreOfficePool({
          size: given.poolSize ?? availableParallelism(),
          maxConversions: given.maxConversionsPerWorker ?? LIBREOFFICE_DEFAULTS.maxConversionsPerWorker,
          maxRssBytes: given.maxWorkerRssBytes ?? LIBREOFFICE_DEFAULTS.maxWorkerRssBytes,
          timeoutMs: settings.timeoutMs,
          startupTimeoutMs: given.startupTimeoutMs ?? LIBREOFFICE_DEFAULTS.startupTimeoutMs,
          tempDir: given.tempDir ?? tmpdir(),
          python: chosen.python,
          bridge: chosen.bridge,
          soffice: chosen.soffice,
          onSpawn: settings.onSpawn,
        });
      }
      return chosen;
    });
    return engine;
  };

  /** Runs `request` on the pool (a crash retried once cold) or cold; resolves when the result is written. */
  async function produce(
    chosen: Exclude<LibreOfficeEngine, { kind: 'unavailable' }>,
    request: BridgeRequest,
    ctx: ConvertContext<LibreOfficeOptions>,
    scratch: string,
  ): Promise<{ cpuMs?: number | undefined; produced: string }> {
    let produced = request.output;
    let cpuMs: number | undefined;
    const cold = {
      soffice: chosen.soffice,
      request,
      scratch,
      signal: ctx.signal,
      timeoutMs: settings.timeoutMs,
      onSpawn: settings.onSpawn,
    };
    if (chosen.kind === 'pool') {
      if (!pool) throw closedError();
      try {
        ({ cpuMs } = await pool.run(request, ctx.signal, () => ctx.onProgress(0.1)));
      } catch (error) {
        // A warm soffice that dies on a document often converts it cold: LibreOffice 7.4 crashes
        // on some HTML pages in a long-running instance that a fresh `soffice --convert-to`
        // converts (issue 17). Once, with a fresh profile; a second crash is the answer.
        // Not when the request needs the pool (a password, landscape): cold would refuse it.
        if (!isCrash(error) || ctx.signal.aborted || closed || poolOnlyOptions(request).length > 0)
          throw error;
        ({ cpuMs, produced } = await convertCold(cold));
      }
    } else {
      ctx.onProgress(0.1);
      ({ cpuMs, produced } = await convertCold(cold));
    }
    throwIfAborted(ctx.signal);
    await assertWritten(produced, ctx.to);
    return { cpuMs, produced };
  }

  async function run(ctx: ConvertContext<LibreOfficeOptions>, scratch: string): Promise<ConvertResult> {
    const { options } = ctx;
    const choice = chooseFilters(ctx.from, ctx.to, options);
    if (!choice) {
      throw new FileconvError(
        'UNSUPPORTED_CONVERSION',
        `LibreOffice cannot convert ${ctx.from} to ${ctx.to}`,
      );
    }
    const parts = await checkInput(ctx, settings.zipLimits);
    ctx.onProgress(0.05);
    const chosen = await select();
    if (chosen.kind === 'unavailable') {
      throw new FileconvError('ENGINE_UNAVAILABLE', chosen.reason, {
        details: { install: LIBREOFFICE_INSTALL },
      });
    }
    throwIfAborted(ctx.signal);
    const input = await stageInput(ctx.inputPath, scratch, ctx.from, parts);
    const request = {
      ...choice,
      ...optionSettings(ctx.to, options),
      input,
      output: join(scratch, `result.${ctx.to}`),
    };
    const written = await produce(chosen, request, ctx, scratch).catch((error: unknown) => {
      throw blameEmptyRange(error, ctx.to, options);
    });
    let { produced } = written;
    ctx.onProgress(0.95);
    if (ctx.to === 'csv') {
      const finished = join(scratch, 'finished.csv');
      await finishCsv(produced, finished, { bom: options.bom ?? false });
      produced = finished;
    }
    await placeFile(produced, ctx.outputPath);
    return written.cpuMs === undefined ? {} : { cpuMs: written.cpuMs };
  }

  return {
    ...LIBREOFFICE,

    async available(): Promise<Availability> {
      const chosen = await select();
      if (chosen.kind === 'unavailable')
        return { ok: false, reason: chosen.reason, install: LIBREOFFICE_INSTALL };
      return {
        ok: true,
        version: chosen.description,
        ...(chosen.fallback ? { reason: chosen.fallback, install: LIBREOFFICE_INSTALL } : {}),
      };
    },

    async convert(ctx): Promise<ConvertResult> {
      throwIfAborted(ctx.signal);
      if (closed) throw closedError();
      ctx.onProgress(0);
      const scratch = await mkdtemp(join(ctx.tempDir, 'libreoffice-'));
      try {
        const result = await run(ctx, scratch);
        ctx.onProgress(1);
        return result;
      } catch (error) {
        if (ctx.signal.aborted) throw abortError(ctx.signal);
        throw error;
      } finally {
        await rm(scratch, { recursive: true, force: true, maxRetries: 3 });
      }
    },

    async close(): Promise<void> {
      closed = true;
      await engine?.catch(() => undefined);
      await pool?.close();
    },

    stats: () => pool?.stats(),
  };
}
