/**
 * Conformance suite for Converters: `testConverter('mine', () => createMine(), { samples })`.
 * It pins down what the engine relies on: a name and well-formed edges to build the graph from,
 * an availability report, options schemas that reject unknown keys, and for each sample
 * conversion: the output appears only when complete, the temp dir is left empty, progress stays
 * in [0, 1] and never goes back, an abort is CANCELED, damaged input and undeclared pairs
 * fail with stable codes rather than raw errors, close() may be called twice, and stats(), when
 * present, answers synchronously with counts.
 */
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, type TestFunction } from 'vitest';
import { type ErrorCode, FileconvError } from '../core/errors.js';
import { FORMATS, getFormat } from '../core/formats/index.js';
import type { FormatName } from '../core/formats/types.js';
import type { ConvertContext, Converter } from '../core/ports/index.js';
import { truncated } from './bad-inputs.js';
import { type AdapterFactory, useFreshInstance, waitUntil } from './fresh-instance.js';
import { withOptionsParsed } from './parsed-options.js';

export interface ConverterSample {
  from: FormatName;
  to: FormatName;
  /** Path of a real file of format `from` (fixturePath() gives the package's own). */
  input: string;
  /** Conversion options for this sample. Default {}. */
  options?: Record<string, unknown>;
  /** Extra checks on the finished output (decode it, compare it). */
  check?: (outputPath: string) => Promise<void>;
  /**
   * What an empty and a half-truncated copy of `input` must do. 'rejected' (default): fail with
   * an input-error code. 'tolerated', for formats where a cut file is still a valid one (plain
   * text, CSV): either convert completely or fail with an input-error code.
   */
  damagedInput?: 'rejected' | 'tolerated';
}

export interface ConverterSuiteOptions {
  /** Conversions to run, each on a real input file. At least one. */
  samples: readonly ConverterSample[];
  /** Names of the converters this one is registered beside; its name must differ from all. Default []. */
  otherConverters?: readonly string[];
  /** The maxPixels limit passed in every context. Default 100000000. */
  maxPixels?: number;
  /** How long a conversion aborted midway may take to clear its temp files, ms. Default 10000. */
  settleMs?: number;
  /**
   * Titles of checks this converter is known to fail ('png -> jpg: refuses a source ...' for a
   * sample's check). They run as `it.fails`, so the gap stays visible and a fix shows up as a
   * failure asking to remove the entry; a title that matches no check throws. Default [].
   */
  knownFailures?: readonly string[];
}

/** Codes that say "your input is broken": what damaged input must fail with, never CONVERSION_FAILED. */
export const INPUT_ERROR_CODES: readonly ErrorCode[] = [
  'CORRUPT_INPUT',
  'CONTENT_MISMATCH',
  'UNSUPPORTED_FORMAT',
  'INPUT_LIMIT_EXCEEDED',
  'URL_UNREACHABLE',
];

interface Workspace {
  temp: string;
  outputs: string;
  inputs: string;
}

interface Run {
  ctx: ConvertContext;
  progress: number[];
  /** Sizes seen at outputPath while the conversion ran. */
  seenSizes: number[];
  outcome: Promise<unknown>;
}

/** Settles to the error, or undefined when `promise` resolves. */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

export function testConverter(
  name: string,
  factory: AdapterFactory<Converter>,
  options: ConverterSuiteOptions,
): void {
  const maxPixels = options.maxPixels ?? 100_000_000;
  const settleMs = options.settleMs ?? 10_000;

  const known = new Set(options.knownFailures ?? []);
  /** `it`, or `it.fails` for a known failure; `prefix` names the sample. */
  const check = (title: string, body: TestFunction, prefix = '') => {
    const registered = known.delete(prefix + title) ? it.fails : it;
    registered(title, body);
  };

  describe(`Converter conformance: ${name}`, () => {
    const converter = useFreshInstance(factory);
    const roots: string[] = [];
    afterEach(async () => {
      await Promise.all(roots.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    });

    async function workspace(): Promise<Workspace> {
      const root = await mkdtemp(join(tmpdir(), 'fileconv-conformance-'));
      roots.push(root);
      const ws = { temp: join(root, 'tmp'), outputs: join(root, 'out'), inputs: join(root, 'in') };
      await Promise.all(Object.values(ws).map((dir) => mkdir(dir)));
      return ws;
    }

    /** Starts a conversion while watching outputPath, so a file that grows in place is caught. */
    function start(ws: Workspace, sample: ConverterSample, overrides: Partial<ConvertContext> = {}): Run {
      const progress: number[] = [];
      const seenSizes: number[] = [];
      const ctx: ConvertContext = {
        inputPath: sample.input,
        outputPath: join(ws.outputs, `out.${sample.to}`),
        from: sample.from,
        to: sample.to,
        options: sample.options ?? {},
        tempDir: ws.temp,
        signal: new AbortController().signal,
        onProgress: (fraction) => progress.push(fraction),
        limits: { maxPixels },
        ...overrides,
      };
      const look = () =>
        stat(ctx.outputPath).then(
          (info) => void seenSizes.push(info.size),
          () => undefined,
        );
      // Both: inotify events catch quick writes, polling catches writes the events coalesce.
      const watcher = watch(ws.outputs, () => void look());
      const poll = setInterval(() => void look(), 1);
      // Options as a sample gives them, parsed first by the converter's schema as an engine does.
      const outcome = Promise.resolve()
        .then(() => withOptionsParsed(converter()).convert(ctx))
        .finally(() => {
          watcher.close();
          clearInterval(poll);
        });
      return { ctx, progress, seenSizes, outcome };
    }

    async function skipUnavailable(skip: (note: string) => void): Promise<void> {
      const availability = await converter().available();
      if (!availability.ok)
        skip(`${name} is not available here: ${availability.reason ?? 'no reason given'}`);
    }

    /** After a failure: nothing at outputPath and, once background work settles, nothing in tempDir. */
    async function expectNothingLeft(ws: Workspace): Promise<void> {
      expect(await readdir(ws.outputs), 'a failed conversion left an output').toEqual([]);
      await waitUntil(async () => (await readdir(ws.temp)).length === 0, settleMs, 'an empty tempDir').catch(
        () => undefined,
      );
      expect(await readdir(ws.temp), 'files left in tempDir').toEqual([]);
    }

    function expectCodeIn(error: unknown, codes: readonly ErrorCode[], what: string): void {
      expect(error, `${what}: expected a FileconvError, got ${String(error)}`).toBeInstanceOf(FileconvError);
      expect(codes, `${what}: ${(error as Error).message}`).toContain((error as FileconvError).code);
    }

    /** A finished output: non-empty, and never seen at another size while the conversion ran. */
    async function expectCompleteOutput(run: Run): Promise<void> {
      const { size } = await stat(run.ctx.outputPath);
      expect(size).toBeGreaterThan(0);
      expect(
        run.seenSizes.filter((seen) => seen !== size),
        'outputPath held a partial file',
      ).toEqual([]);
    }

    check('has a non-empty name of its own', () => {
      const own = converter().name;
      expect(typeof own).toBe('string');
      expect(own.trim()).not.toBe('');
      expect(own, 'no surrounding whitespace').toBe(own.trim());
      expect(options.otherConverters ?? []).not.toContain(own);
    });

    check('declares well-formed edges between registered formats, each pair once', () => {
      const { edges } = converter();
      expect(edges.length).toBeGreaterThan(0);
      const pairs = new Set<string>();
      for (const edge of edges) {
        const label = `${edge.from} -> ${edge.to}`;
        expect(getFormat(edge.from)?.name, `${label}: canonical registered source`).toBe(edge.from);
        expect(getFormat(edge.to)?.name, `${label}: canonical registered target`).toBe(edge.to);
        expect(Number.isFinite(edge.cost) && edge.cost > 0, `${label}: cost ${edge.cost} > 0`).toBe(true);
        expect(['boolean', 'undefined'], `${label}: lossy`).toContain(typeof edge.lossy);
        expect(pairs.has(`${edge.from}>${edge.to}`), `${label} declared twice`).toBe(false);
        pairs.add(`${edge.from}>${edge.to}`);
      }
      for (const sample of options.samples) {
        expect(
          pairs.has(`${sample.from}>${sample.to}`),
          `sample ${sample.from} -> ${sample.to} is an edge`,
        ).toBe(true);
      }
    });

    check('reports availability as { ok, reason?, install?, version? }', async () => {
      const availability = await converter().available();
      expect(typeof availability.ok).toBe('boolean');
      if (!availability.ok) expect(availability.reason).toEqual(expect.any(String));
      for (const key of ['reason', 'install', 'version'] as const) {
        expect(['string', 'undefined'], key).toContain(typeof availability[key]);
      }
    });

    check('has options schemas that accept the samples’ options and reject unknown keys', ({ skip }) => {
      const adapter = converter();
      if (!adapter.optionsSchema) return skip('the converter takes no options');
      for (const to of new Set(adapter.edges.map((edge) => edge.to))) {
        expect(adapter.optionsSchema(to).safeParse({ notAnOption: 1 }).success, `${to}: unknown key`).toBe(
          false,
        );
      }
      for (const sample of options.samples) {
        const parsed = adapter.optionsSchema(sample.to).safeParse(sample.options ?? {});
        expect(parsed.success, `${sample.to}: ${JSON.stringify(sample.options ?? {})}`).toBe(true);
      }
    });

    check('reports stats(), when it has them, synchronously as non-negative counts', async ({ skip }) => {
      const adapter = converter();
      if (!adapter.stats) return skip('the converter has no stats()');
      // Metrics read stats() on every scrape: it must answer at once, before and after the engine is chosen.
      for (const when of ['before available()', 'after available()']) {
        if (when === 'after available()') await adapter.available();
        const stats = adapter.stats();
        if (stats === undefined) continue;
        expect(typeof (stats as { then?: unknown }).then, `${when}: not a promise`).toBe('undefined');
        for (const key of ['processes', 'busy', 'queued', 'restarts'] as const) {
          const value = stats[key];
          if (value !== undefined)
            expect(Number.isInteger(value) && value >= 0, `${when}: ${key} ${value}`).toBe(true);
        }
        if (stats.busy !== undefined && stats.processes !== undefined) {
          expect(stats.busy, `${when}: busy <= processes`).toBeLessThanOrEqual(stats.processes);
        }
      }
    });

    check('can be closed twice', async ({ skip }) => {
      const adapter = converter();
      if (!adapter.close) return skip('the converter has no close()');
      await adapter.close();
      await adapter.close();
    });

    for (const sample of options.samples) {
      const pair = `${sample.from} -> ${sample.to}`;
      const sampleCheck = (title: string, body: TestFunction) => check(title, body, `${pair}: `);
      describe(pair, () => {
        sampleCheck(
          'writes the output only when complete, reports progress in [0, 1] upwards, leaves tempDir empty',
          async ({ skip }) => {
            await skipUnavailable(skip);
            const ws = await workspace();
            const run = start(ws, sample);
            const result = await run.outcome;
            await expectCompleteOutput(run);
            expect(await readdir(ws.temp), 'files left in tempDir').toEqual([]);
            expect(await readdir(ws.outputs)).toEqual([`out.${sample.to}`]);
            for (const [index, fraction] of run.progress.entries()) {
              expect(fraction >= 0 && fraction <= 1, `progress ${fraction} in [0, 1]`).toBe(true);
              if (index > 0)
                expect(fraction, 'progress never goes back').toBeGreaterThanOrEqual(run.progress[index - 1]!);
            }
            if (result !== undefined) {
              const { cpuMs } = result as { cpuMs?: unknown };
              if (cpuMs !== undefined) expect(Number.isFinite(cpuMs) && (cpuMs as number) >= 0).toBe(true);
            }
            await sample.check?.(run.ctx.outputPath);
          },
        );

        sampleCheck('answers an already aborted signal with CANCELED and no output', async ({ skip }) => {
          await skipUnavailable(skip);
          const ws = await workspace();
          const error = await failure(start(ws, sample, { signal: AbortSignal.abort() }).outcome);
          expectCodeIn(error, ['CANCELED'], 'pre-aborted');
          await expectNothingLeft(ws);
        });

        sampleCheck(
          'stops when aborted at its first progress report: CANCELED or complete, nothing half-done',
          async ({ skip }) => {
            await skipUnavailable(skip);
            const ws = await workspace();
            const controller = new AbortController();
            const run = start(ws, sample, {
              signal: controller.signal,
              onProgress: () => controller.abort(),
            });
            const error = await failure(run.outcome);
            if (error === undefined) return expectCompleteOutput(run);
            expectCodeIn(error, ['CANCELED'], 'aborted midway');
            await expectNothingLeft(ws);
          },
        );

        for (const damage of ['empty', 'truncated'] as const) {
          sampleCheck(`refuses ${damage} input with an input-error code`, async ({ skip }) => {
            await skipUnavailable(skip);
            const ws = await workspace();
            const bytes = damage === 'empty' ? new Uint8Array(0) : truncated(await readFile(sample.input));
            const inputPath = join(ws.inputs, `${damage}.${sample.from}`);
            await writeFile(inputPath, bytes);
            const run = start(ws, sample, { inputPath });
            const error = await failure(run.outcome);
            if (error === undefined && sample.damagedInput === 'tolerated') return expectCompleteOutput(run);
            expectCodeIn(error, INPUT_ERROR_CODES, `${damage} ${sample.from}`);
            await expectNothingLeft(ws);
          });
        }

        // The engine only calls declared edges, but a converter called directly must not guess:
        // a pair it does not declare is refused whichever side is foreign, the sample's bytes unchanged.
        for (const side of ['target', 'source'] as const) {
          const title = `refuses a ${side} it has no edge ${side === 'target' ? 'to' : 'from'} with UNSUPPORTED_CONVERSION`;
          sampleCheck(title, async ({ skip }) => {
            await skipUnavailable(skip);
            const declared = new Set(converter().edges.map((edge) => `${edge.from}>${edge.to}`));
            const foreign = FORMATS.find((format) =>
              side === 'target'
                ? !declared.has(`${sample.from}>${format.name}`)
                : !declared.has(`${format.name}>${sample.to}`),
            )?.name;
            if (!foreign) return skip(`every ${side} is declared`);
            const ws = await workspace();
            const foreignPair = side === 'target' ? { to: foreign } : { from: foreign };
            const error = await failure(start(ws, { ...sample, ...foreignPair, options: {} }).outcome);
            expectCodeIn(error, ['UNSUPPORTED_CONVERSION'], JSON.stringify(foreignPair));
            await expectNothingLeft(ws);
          });
        }
      });
    }

    // Runs after collection, when every check has claimed its entry: a typo would otherwise pass unseen.
    if (known.size > 0) {
      it('names only existing checks in knownFailures', () => {
        expect([...known], 'entries that match no check').toEqual([]);
      });
    }
  });
}
