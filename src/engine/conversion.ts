/**
 * Runs a planned chain of converter steps in a private working directory, with a timeout and
 * an AbortSignal, and turns whatever goes wrong into a FileconvError with a stable code.
 * Shared by the job worker and the direct (in-process) API.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { abortError, raceAbort } from '../core/abort.js';
import { FileconvError, isFileconvError, toFileconvError } from '../core/errors.js';
import type { FormatRegistry } from '../core/formats/index.js';
import type { FormatName } from '../core/formats/types.js';
import type { ConversionPlan } from '../core/graph/index.js';
import { parseConversionOptions } from '../core/options.js';
import type { ConversionLimits, ConverterDeclaration, OutputPackaging } from '../core/ports/index.js';
import type { ConversionContext } from './conversion-context.js';

/** What a step's converter declares (its options, its packaging), by converter name. */
export type DeclarationOf = (converter: string) => ConverterDeclaration | undefined;

export interface RunChainInput {
  plan: ConversionPlan;
  inputPath: string;
  /** Private directory for intermediate and final outputs; the caller removes it. */
  workDir: string;
  /** Options for the last step, parsed by validateOptions: the step is handed them as they are. */
  options: Record<string, unknown>;
  signal: AbortSignal;
  limits: ConversionLimits;
  onProgress?: (fraction: number) => void;
  /**
   * Told the CPU time of each step as it ends, ms, a failed one included: a job that fails on
   * its input (or runs out of time) records what it used, as a completed one does.
   */
  onCpuSpent?: (cpuMs: number) => void;
}

export interface RunChainResult {
  outputPath: string;
  /** Measured CPU time of all steps, ms. */
  cpuMs: number;
}

/**
 * `options` parsed by the schema the converter of the plan's last step (the step that produces
 * the target) declares for it: the one parse of a conversion's options, whose result the step is
 * handed. INVALID_OPTIONS names every problem.
 */
export function validateOptions(
  plan: ConversionPlan,
  declarationOf: DeclarationOf,
  options: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const last = plan.steps[plan.steps.length - 1];
  return parseConversionOptions(last ? declarationOf(last.converter) : undefined, plan.to, options);
}

/**
 * How the result of `plan` is wrapped with these (validated) options: 'zip' when the last step's
 * converter writes an archive of several target files (every page of a PDF as PNG).
 */
export function outputPackaging(
  plan: ConversionPlan,
  declarationOf: DeclarationOf,
  options: Record<string, unknown>,
): OutputPackaging | undefined {
  const last = plan.steps[plan.steps.length - 1];
  return last ? declarationOf(last.converter)?.packaging?.(plan.to, options) : undefined;
}

/** The media type a result is stored and served with (`formats`: the engine's). */
export function resultMimeType(
  formats: FormatRegistry,
  to: FormatName,
  packaging: OutputPackaging | undefined,
): string {
  return packaging === 'zip' ? 'application/zip' : formats.mimeTypeOf(to);
}

/** The file extension a result is named with (`formats`: the engine's). */
export function resultExtension(
  formats: FormatRegistry,
  to: FormatName,
  packaging: OutputPackaging | undefined,
): string {
  return packaging === 'zip' ? 'zip' : formats.extensionOf(to);
}

/** An AbortSignal that fires on the caller's signal or after `timeoutMs`, whichever comes first. */
export function conversionSignal(timeoutMs: number, external?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return external ? AbortSignal.any([timeout, external]) : timeout;
}

/** Runs `input.plan` with the converters (loaded as needed) and formats of `context`. */
export async function runChain(
  context: ConversionContext,
  input: RunChainInput,
  depth = 0,
): Promise<RunChainResult> {
  const { plan, signal } = input;
  const convertTo = subConversions(context, { workDir: input.workDir, signal, limits: input.limits }, depth);
  let currentPath = input.inputPath;
  let cpuMs = 0;
  const stepCount = plan.steps.length;
  for (const [index, step] of plan.steps.entries()) {
    if (signal.aborted) throw abortError(signal);
    const converter = await context.converters.load(step.converter);
    const outputPath = join(input.workDir, `step-${index + 1}.${context.formats.extensionOf(step.to)}`);
    const isLast = index === stepCount - 1;
    // A step before the last is asked for with no options: its converter gets its schema's
    // defaults for that target, parsed here, as the last step's options were when planned.
    const options = isLast ? input.options : parseConversionOptions(converter, step.to, {});
    const startedCpu = process.cpuUsage();
    const result = await raceAbort(
      converter.convert({
        inputPath: currentPath,
        outputPath,
        from: step.from,
        to: step.to,
        options,
        tempDir: input.workDir,
        signal,
        limits: input.limits,
        onProgress: (fraction) => input.onProgress?.((index + clamp(fraction)) / stepCount),
        convertTo,
      }),
      signal,
    ).catch((error: unknown) => {
      input.onCpuSpent?.(failedStepCpuMs(error, startedCpu));
      throw signal.aborted ? abortError(signal) : toFileconvError(error, 'CONVERSION_FAILED');
    });
    // Converters that run child processes report their own CPU time; for in-process ones the
    // process-wide delta is the best measure available (it includes concurrent in-process work).
    const stepCpuMs = result?.cpuMs ?? cpuDeltaMs(startedCpu);
    input.onCpuSpent?.(stepCpuMs);
    cpuMs += stepCpuMs;
    if (currentPath !== input.inputPath) await rm(currentPath, { force: true });
    if (!isLast) await assertCarriesOn(outputPath, step, plan.steps[stepCount - 1]!.to);
    currentPath = outputPath;
    input.onProgress?.((index + 1) / stepCount);
  }
  return { outputPath: currentPath, cpuMs: Math.round(cpuMs) };
}

/**
 * A step before the last that wrote nothing (a PDF of scanned pages has no text for pdf -> txt
 * to find) leaves the next step an empty file, which it refused as "The file is empty": true of
 * no file the client sent. Said here as what it is, an input with nothing to carry on (4xx).
 */
async function assertCarriesOn(outputPath: string, step: { from: string; to: string }, target: string) {
  const size = await stat(outputPath).then(
    (info) => info.size,
    () => undefined,
  );
  if (size !== 0) return;
  const hint =
    step.from === 'pdf' ? ' A PDF of page images has no text: run the ocr operation on it first.' : '';
  throw new FileconvError(
    'CORRUPT_INPUT',
    `The input holds nothing to make a ${target} of: its ${step.from} -> ${step.to} step found no content.${hint}`,
    { details: { reason: 'nothing-to-convert', step: `${step.from}->${step.to}` } },
  );
}

/** How deep conversions asked for by converters may nest (a step of a step of a step). */
const MAX_SUB_CONVERSION_DEPTH = 2;

/** Where a converter's (or operation's) own conversions run, and under what limits. */
export interface SubConversionScope {
  /** The work dir of the conversion that asks; each sub-conversion gets a folder inside it. */
  workDir: string;
  signal: AbortSignal;
  limits: ConversionLimits;
}

/**
 * ConvertContext.convertTo (and OperationContext's) of a conversion in `scope`: a step a converter
 * needs first (the OCR converter's JPEG -> PNG) made by this engine's converters, with no options,
 * in a folder of the caller's work dir; resolves with the result's path. Converters thus never
 * import each other. A sub-conversion no converter here can make is ENGINE_UNAVAILABLE.
 */
export function subConversions(
  context: ConversionContext,
  scope: SubConversionScope,
  depth = 0,
): (inputPath: string, from: FormatName, to: FormatName) => Promise<string> {
  return async (inputPath, from, to) => {
    if (depth >= MAX_SUB_CONVERSION_DEPTH) {
      throw new FileconvError(
        'INTERNAL',
        `Converters asked for conversions ${depth + 1} deep (${from} -> ${to}).`,
      );
    }
    const plan = await context
      .findPath(from, to, undefined, { explainMissing: true })
      .catch((error: unknown) => {
        // The conversion asked of this engine was offered: a step it cannot make is the
        // engine's (its assembly's) fault, not the input's.
        if (!isFileconvError(error, 'UNSUPPORTED_CONVERSION')) throw error;
        throw new FileconvError(
          'ENGINE_UNAVAILABLE',
          `The conversion needs ${from} turned into ${to} first, which no converter here makes.`,
          { details: { sourceFormat: from, targetFormat: to }, cause: error },
        );
      });
    const options = validateOptions(plan, (name) => context.converters.declarationOf(name, false), {});
    const workDir = await mkdtemp(join(scope.workDir, 'sub-'));
    const { signal, limits } = scope;
    const result = await runChain(context, { plan, inputPath, workDir, options, signal, limits }, depth + 1);
    return result.outputPath;
  };
}

export function cpuDeltaMs(since: NodeJS.CpuUsage): number {
  const delta = process.cpuUsage(since);
  return (delta.user + delta.system) / 1000;
}

/**
 * The CPU time of a step that failed: the converter's own figure when its error carries one
 * (`details.cpuMs`, as ffmpeg's runner measures its killed child), else the process's delta, the
 * same fallback as for a step that succeeded. A step stopped by the run's deadline is answered
 * at once (raceAbort), before any figure of the converter's: the delta is what is known then.
 */
export function failedStepCpuMs(error: unknown, since: NodeJS.CpuUsage): number {
  const reported = error instanceof FileconvError ? error.details?.cpuMs : undefined;
  return typeof reported === 'number' && Number.isFinite(reported) && reported >= 0
    ? reported
    : cpuDeltaMs(since);
}

function clamp(fraction: number): number {
  return Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
}
