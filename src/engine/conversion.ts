/**
 * Runs a planned chain of converter steps in a private working directory, with a timeout and
 * an AbortSignal, and turns whatever goes wrong into a FileconvError with a stable code.
 * Shared by the job worker and the direct (in-process) API.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ZodType } from 'zod';
import { abortError, raceAbort } from '../core/abort.js';
import { FileconvError, toFileconvError } from '../core/errors.js';
import type { FormatRegistry } from '../core/formats/index.js';
import type { FormatName } from '../core/formats/types.js';
import type { ConversionPlan } from '../core/graph/index.js';
import type { ConversionLimits, ConverterDeclaration, OutputPackaging } from '../core/ports/index.js';
import type { ConversionContext } from './conversion-context.js';

/** What a step's converter declares (its options, its packaging), by converter name. */
export type DeclarationOf = (converter: string) => ConverterDeclaration | undefined;

export interface RunChainInput {
  plan: ConversionPlan;
  inputPath: string;
  /** Private directory for intermediate and final outputs; the caller removes it. */
  workDir: string;
  /** Options for the last step, already validated by validateOptions. */
  options: Record<string, unknown>;
  signal: AbortSignal;
  limits: ConversionLimits;
  onProgress?: (fraction: number) => void;
}

export interface RunChainResult {
  outputPath: string;
  /** Measured CPU time of all steps, ms. */
  cpuMs: number;
}

/**
 * Validates `options` against the schema of the converter of the plan's last step (the step
 * that produces the target). Returns the parsed options; INVALID_OPTIONS names every problem.
 */
export function validateOptions(
  plan: ConversionPlan,
  declarationOf: DeclarationOf,
  options: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const given = options ?? {};
  const last = plan.steps[plan.steps.length - 1];
  const converter = last ? declarationOf(last.converter) : undefined;
  const schema = converter?.optionsSchema?.(plan.to);
  if (!schema) {
    if (Object.keys(given).length === 0) return {};
    throw new FileconvError('INVALID_OPTIONS', `Conversions to ${plan.to} take no options.`, {
      details: { given: Object.keys(given) },
    });
  }
  return parseOptions(schema, given, plan.to);
}

/** `given` parsed by `schema`; INVALID_OPTIONS naming every problem ("Invalid options for <what>: ..."). */
export function parseOptions(
  schema: ZodType<Record<string, unknown>>,
  given: Record<string, unknown>,
  what: string,
): Record<string, unknown> {
  const parsed = schema.safeParse(given);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  const summary = issues
    .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
    .join('; ');
  throw new FileconvError('INVALID_OPTIONS', `Invalid options for ${what}: ${summary}.`, {
    details: { issues },
    cause: parsed.error,
  });
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
export async function runChain(context: ConversionContext, input: RunChainInput): Promise<RunChainResult> {
  const { plan, signal } = input;
  let currentPath = input.inputPath;
  let cpuMs = 0;
  const stepCount = plan.steps.length;
  for (const [index, step] of plan.steps.entries()) {
    if (signal.aborted) throw abortError(signal);
    const converter = await context.converters.load(step.converter);
    const outputPath = join(input.workDir, `step-${index + 1}.${context.formats.extensionOf(step.to)}`);
    const isLast = index === stepCount - 1;
    const startedCpu = process.cpuUsage();
    const result = await raceAbort(
      converter.convert({
        inputPath: currentPath,
        outputPath,
        from: step.from,
        to: step.to,
        options: isLast ? input.options : {},
        tempDir: input.workDir,
        signal,
        limits: input.limits,
        onProgress: (fraction) => input.onProgress?.((index + clamp(fraction)) / stepCount),
      }),
      signal,
    ).catch((error: unknown) => {
      throw signal.aborted ? abortError(signal) : toFileconvError(error, 'CONVERSION_FAILED');
    });
    // Converters that run child processes report their own CPU time; for in-process ones the
    // process-wide delta is the best measure available (it includes concurrent in-process work).
    cpuMs += result?.cpuMs ?? cpuDeltaMs(startedCpu);
    if (currentPath !== input.inputPath) await rm(currentPath, { force: true });
    currentPath = outputPath;
    input.onProgress?.((index + 1) / stepCount);
  }
  return { outputPath: currentPath, cpuMs: Math.round(cpuMs) };
}

function cpuDeltaMs(since: NodeJS.CpuUsage): number {
  const delta = process.cpuUsage(since);
  return (delta.user + delta.system) / 1000;
}

function clamp(fraction: number): number {
  return Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
}
