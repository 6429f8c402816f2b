/**
 * What a converter engine (createConverter) holds: its converters and operations, the resolved
 * conversion settings, and the conversion graph two ways: over the converters whose engines are
 * available here (what this machine can run), and over every converter's declared edges (what a
 * deployment's workers run, for an API node that runs none). Built once by createConverter; the
 * job engine reaches it through the converter it was given.
 */
import { tmpdir } from 'node:os';
import { FileconvError, isFileconvError } from '../core/errors.js';
import { type CustomFormat, createFormatRegistry, type FormatRegistry } from '../core/formats/index.js';
import type { FormatName } from '../core/formats/types.js';
import type { ConversionPlan, ConversionStep } from '../core/graph/index.js';
import { ConversionGraph } from '../core/graph/index.js';
import type {
  Availability,
  ConversionEdge,
  ConversionLimits,
  DocumentOperation,
} from '../core/ports/index.js';
import { absentPackages, stepPackagesMissing } from '../kit/engine-packages.js';
import { type ConverterEntry, type ConverterSet, createConverterSet } from './converter-set.js';

export interface ConversionOptions {
  /**
   * Formats of the host's own, for this engine only, beside the built-in ones: each with its
   * name, family, label, extensions, MIME types, and `magic` (its first bytes) or `detect(head)`,
   * so content detection recognises it. Give converters edges to or from them. Default none.
   */
  formats?: readonly CustomFormat[];
  /**
   * Converters, in order of preference when two offer the same step at the same cost: their
   * registrations (`defaultConverters()` of fileconv/preset, `SHARP_REGISTRATION` of
   * fileconv/converters/sharp...), each loaded on first need, or ready converters.
   */
  converters: readonly ConverterEntry[];
  /**
   * Document operations jobs may run instead of a conversion (merge, split, rotate...: see
   * `pdfOperations()` of fileconv/pdf). Default none.
   */
  operations?: readonly DocumentOperation[];
  /** Longest a conversion may run before it is stopped with CONVERSION_TIMEOUT, ms. Default 600000 (10 min). */
  timeoutMs?: number;
  /** Largest image, in pixels, a converter may decode. Default 100000000 (100 MP). */
  maxPixels?: number;
  /** Longest chain of conversion steps considered. Default 3. */
  maxSteps?: number;
  /** Parent of the private per-conversion temp dirs. Default: the OS temp dir. */
  tempDir?: string;
}

/** How a path is looked for. */
export interface FindPathOptions {
  /**
   * No path but through an unavailable engine is ENGINE_UNAVAILABLE naming it and its install
   * line, rather than UNSUPPORTED_CONVERSION (the direct API, a job, a worker).
   */
  explainMissing?: boolean;
  /**
   * Plan over every converter's declared edges, checking and loading no engine: an API node,
   * whose workers run the conversion elsewhere.
   */
  declared?: boolean;
}

export interface ConversionContext {
  /** The built-in formats and the host's own for this engine. */
  formats: FormatRegistry;
  converters: ConverterSet;
  operations: ReadonlyMap<string, DocumentOperation>;
  /** Availability of an operation's engine (computed once per operation). */
  operationAvailability(operation: DocumentOperation): Promise<Availability>;
  timeoutMs: number;
  maxSteps: number;
  limits: ConversionLimits;
  tempDir: string;
  /** The graph of the converters whose engines are available here (computed once). */
  graph(): Promise<ConversionGraph>;
  /** The graph of every converter's declared edges (no engine checked). */
  declaredGraph(): ConversionGraph;
  /**
   * The best chain from `from` to `to` over the available converters, the same as
   * `graph().findPath`, but checking only the engines on the candidate path: a JPEG -> WebP
   * conversion loads sharp, never pdf.js, exceljs or LibreOffice (the CLI's start-up time).
   * With `declared`, the best chain over the declared edges, nothing checked.
   */
  findPath(
    from: FormatName,
    to: FormatName,
    maxSteps?: number,
    options?: FindPathOptions,
  ): Promise<ConversionPlan>;
  /** Availability of every converter (each computed once). */
  availability(): Promise<Map<string, Availability>>;
  /** Closes the loaded converters and the operations (once). */
  close(): Promise<void>;
}

/** `value`, checked to be a positive integer (INVALID_OPTIONS naming `who` and `name`), or `fallback`. */
export function positiveInteger(
  who: string,
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `${who}: ${name} must be a positive integer, got ${String(value)}.`,
    );
  }
  return value;
}

/** Like positiveInteger, with 0 allowed too. */
export function nonNegativeInteger(
  who: string,
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  return value === 0 ? 0 : positiveInteger(who, name, value, fallback);
}

/** Asks each engine (by name) whether it can run here once; a throw is "not available", with its message. */
function memoizedAvailability<T extends { name: string; available(): Promise<Availability> }>(): (
  engine: T,
) => Promise<Availability> {
  const known = new Map<string, Promise<Availability>>();
  return (engine) => {
    let answer = known.get(engine.name);
    if (!answer) {
      answer = engine.available().catch(
        (error: unknown): Availability => ({
          ok: false,
          reason: error instanceof Error ? error.message : String(error),
        }),
      );
      known.set(engine.name, answer);
    }
    return answer;
  };
}

/** The context of `options`, checked (INVALID_OPTIONS naming `who`: createConverter or createEngine). */
export function createConversionContext(options: ConversionOptions, who: string): ConversionContext {
  const formats = createFormatRegistry(options.formats, who);
  const converters = createConverterSet(options.converters, who);
  // What a chain's content still holds (sound, words), for the graph to plan only steps that have it.
  const contentRules = {
    carriesAudio: (format: FormatName) => formats.carriesAudio(format),
    wordsIn: (format: FormatName) => formats.wordsIn(format),
  };
  const operations = new Map<string, DocumentOperation>();
  for (const operation of options.operations ?? []) {
    if (operations.has(operation.name)) {
      throw new FileconvError('INVALID_OPTIONS', `${who}: two operations are named ${operation.name}.`);
    }
    operations.set(operation.name, operation);
  }
  let availability: Promise<Map<string, Availability>> | undefined;
  let graph: Promise<ConversionGraph> | undefined;
  let closing: Promise<void> | undefined;
  // Graphs over every converter not yet found unavailable, by the names left out: planning
  // starts optimistic and only checks the engines a candidate path needs. With none left out,
  // it is the graph of the declared edges.
  const optimisticGraphs = new Map<string, ConversionGraph>();
  // `excluded` holds converter names and steps (stepKey) whose packages are missing.
  const optimisticGraph = (excluded: ReadonlySet<string>): ConversionGraph => {
    const key = [...excluded].sort().join(',');
    let built = optimisticGraphs.get(key);
    if (!built) {
      built = ConversionGraph.fromConverters(
        converters.registrations
          .filter((c) => !excluded.has(c.name))
          .map((c) => ({
            name: c.name,
            edges: c.edges.filter((edge) => !excluded.has(stepKey(c.name, edge))),
          })),
        contentRules,
      );
      optimisticGraphs.set(key, built);
    }
    return built;
  };
  // The declared edge a planned step takes (its packages are not part of the plan).
  const edgeOf = (step: ConversionStep): ConversionEdge | undefined =>
    converters.registrations
      .find((c) => c.name === step.converter)
      ?.edges.find((edge) => edge.from === step.from && edge.to === step.to);
  const context: ConversionContext = {
    formats,
    converters,
    operations,
    operationAvailability: memoizedAvailability<DocumentOperation>(),
    timeoutMs: positiveInteger(who, 'timeoutMs', options.timeoutMs, 600_000),
    maxSteps: positiveInteger(who, 'maxSteps', options.maxSteps, 3),
    limits: { maxPixels: positiveInteger(who, 'maxPixels', options.maxPixels, 100_000_000) },
    tempDir: options.tempDir ?? tmpdir(),
    availability() {
      availability ??= Promise.all(
        converters.registrations.map(
          async ({ name }) => [name, await converters.availability(name)] as const,
        ),
      ).then((entries) => new Map(entries));
      return availability;
    },
    declaredGraph: () => optimisticGraph(new Set()),
    async findPath(from, to, maxSteps = context.maxSteps, { explainMissing = false, declared = false } = {}) {
      if (declared) return optimisticGraph(new Set()).findPath(from, to, { maxSteps });
      // Each round either returns or leaves out at least one more converter, so it ends. A path
      // that is best over a superset of the available converters and uses only available ones is
      // also best over the available ones alone: the answer is the one graph() would give.
      const excluded = new Set<string>();
      // What the best path would have needed, had its engines been installed: when no path is
      // left, that (with its install line) is the answer, not "no converter".
      let wanted: (readonly [string, Availability])[] | undefined;
      for (;;) {
        let plan: ConversionPlan;
        try {
          plan = optimisticGraph(excluded).findPath(from, to, { maxSteps });
        } catch (error) {
          if (explainMissing && wanted && isFileconvError(error, 'UNSUPPORTED_CONVERSION'))
            throw engineMissing(from, to, wanted);
          throw error;
        }
        const names = [...new Set(plan.steps.map((step) => step.converter))];
        const checks = await Promise.all(
          names.map(async (name) => [name, await converters.availability(name)] as const),
        );
        const missing = checks.filter(([, result]) => !result.ok);
        const missingSteps = plan.steps.flatMap((step) => {
          const absent = absentPackages(edgeOf(step)?.packages);
          return absent.length > 0 ? [[step, stepPackagesMissing(absent)] as const] : [];
        });
        if (missing.length === 0 && missingSteps.length === 0) return plan;
        wanted ??= [...missing, ...missingSteps.map(([step, result]) => [step.converter, result] as const)];
        for (const [name] of missing) excluded.add(name);
        for (const [step] of missingSteps) excluded.add(stepKey(step.converter, step));
      }
    },
    graph() {
      graph ??= context.availability().then((available) =>
        ConversionGraph.fromConverters(
          converters.registrations
            .filter((c) => available.get(c.name)?.ok)
            .map((c) => ({
              name: c.name,
              edges: c.edges.filter((edge) => absentPackages(edge.packages).length === 0),
            })),
          contentRules,
        ),
      );
      return graph;
    },
    close() {
      closing ??= Promise.all([
        converters.close(),
        ...[...operations.values()].map((operation) => operation.close?.()),
      ]).then(() => undefined);
      return closing;
    },
  };
  return context;
}

/** A step's key among the excluded converter names: a converter name never holds '>'. */
function stepKey(converter: string, step: { from: FormatName; to: FormatName }): string {
  return `${converter}:${step.from}>${step.to}`;
}

/** ENGINE_UNAVAILABLE for a conversion only engines that are not available here could make. */
function engineMissing(
  from: string,
  to: string,
  wanted: readonly (readonly [string, Availability])[],
): FileconvError {
  const [name, availability] = wanted[0]!;
  const why = availability.reason ? ` (${availability.reason})` : '';
  const install = availability.install ? `: run \`${availability.install}\`` : '';
  return new FileconvError(
    'ENGINE_UNAVAILABLE',
    `Turning ${from} into ${to} needs the ${name} engine, which is not available here${why}${install}`,
    { details: { converter: name, ...(availability.install ? { install: availability.install } : {}) } },
  );
}
