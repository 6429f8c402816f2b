/**
 * createConverter: the converter engine, for conversions in this process. It holds the
 * converters (registrations, each loaded on first need) and the document operations, plans
 * conversions over the converters whose engines are available here, and converts files, buffers
 * and streams now, without storage, jobs or a queue. createJobEngine runs jobs with one.
 *
 *   const converter = createConverter({ converters: defaultConverters() });
 *   await converter.convertFile('photo.heic', 'photo.jpg');
 */
import type { Readable } from 'node:stream';
import type { ZodType } from 'zod';
import { FileconvError } from '../core/errors.js';
import type { FormatDefinition, FormatName } from '../core/formats/types.js';
import type { ConversionPlan } from '../core/graph/index.js';
import type { Availability, DocumentOperation } from '../core/ports/index.js';
import {
  type ConversionContext,
  type ConversionOptions,
  createConversionContext,
} from './conversion-context.js';
import {
  type ConversionReport,
  convertBuffer,
  convertFile,
  convertStream,
  type DirectConvertOptions,
  type StreamConversion,
} from './direct.js';
import { planConversion } from './planning.js';

export type FileConverterOptions = ConversionOptions;

export interface FormatSupport extends FormatDefinition {
  /** Formats this one converts to with the converters available here. */
  targets: FormatName[];
}

export interface ConverterStatus extends Availability {
  name: string;
  /** Number of conversion edges the converter offers. */
  edges: number;
}

/** A document operation of the engine and whether it can run here. */
export interface OperationStatus extends Availability {
  name: string;
  description: string;
  /** The format its inputs must have. */
  input: FormatName;
  minInputs: number;
  maxInputs: number;
  /** Its options' schema (for API descriptions). */
  optionsSchema: DocumentOperation['optionsSchema'];
}

export interface FileConverter {
  /** Converts a local file into `outputPath` (target from its extension unless `to` is given). */
  convertFile(
    inputPath: string,
    outputPath: string,
    options?: DirectConvertOptions,
  ): Promise<ConversionReport>;
  /** Converts bytes in memory. */
  convertBuffer(input: Uint8Array, options: DirectConvertOptions & { to: string }): Promise<Buffer>;
  /** Converts a stream, spooling through a temp file; returns the result as a stream. */
  convertStream(input: Readable, options: DirectConvertOptions & { to: string }): Promise<StreamConversion>;
  /** The chain a conversion would take, with options validated; throws what a conversion would. */
  plan(from: string, to: string, options?: Record<string, unknown>): Promise<ConversionPlan>;
  /** Every registered format with the targets reachable from it here. */
  formats(): Promise<FormatSupport[]>;
  /** The schema of the options a conversion from `from` to `to` accepts; undefined when it takes none. */
  optionsSchema(from: string, to: string): Promise<ZodType<Record<string, unknown>> | undefined>;
  /** Each converter and whether its engine can run here (asking loads it). */
  converters(): Promise<ConverterStatus[]>;
  /** The document operations jobs may run (merge, split...), available or not. */
  operations(): Promise<OperationStatus[]>;
  /** Closes the converters it loaded (LibreOffice's workers, Chromium's browser...) and the operations. */
  close(): Promise<void>;
}

/** The context behind each converter engine, for the job engine given one. */
const contexts = new WeakMap<FileConverter, ConversionContext>();

/** The context of `converter`; INVALID_OPTIONS (naming `who`) when createConverter did not make it. */
export function conversionContextOf(converter: FileConverter, who: string): ConversionContext {
  const context = contexts.get(converter);
  if (!context) {
    throw new FileconvError('INVALID_OPTIONS', `${who}: converter must be made by createConverter.`);
  }
  return context;
}

/** The converter engine of `options`; a bad option throws INVALID_OPTIONS naming it. */
export function createConverter(options: FileConverterOptions): FileConverter {
  return converterOf(createConversionContext(options, 'createConverter'));
}

/** The converter engine over an existing context (createEngine builds its own, with its name in errors). */
export function converterOf(context: ConversionContext): FileConverter {
  const converter: FileConverter = {
    convertFile: (input, output, convertOptions) => convertFile(context, input, output, convertOptions),
    convertBuffer: (input, convertOptions) => convertBuffer(context, input, convertOptions),
    convertStream: (input, convertOptions) => convertStream(context, input, convertOptions),
    plan: (from, to, planOptions) => planOf(context, from, to, planOptions, false),
    formats: () => formatsOf(context, false),
    optionsSchema: (from, to) => optionsSchemaOf(context, from, to, false),
    converters: () => converterStatuses(context),
    operations: () => operationStatuses(context, false),
    close: () => context.close(),
  };
  contexts.set(converter, context);
  return converter;
}

/** The plan of a conversion; `declared`: over the declared edges, nothing checked (an API node). */
export async function planOf(
  context: ConversionContext,
  from: string,
  to: string,
  options: Record<string, unknown> | undefined,
  declared: boolean,
): Promise<ConversionPlan> {
  return (await planConversion(context, from, to, options, { declared })).plan;
}

/** Every format with its targets: reachable here, or (`declared`) over the declared edges. */
export async function formatsOf(context: ConversionContext, declared: boolean): Promise<FormatSupport[]> {
  const graph = declared ? context.declaredGraph() : await context.graph();
  return context.formats.formats.map((format) => ({
    ...format,
    targets: graph.targetsOf(format.name, { maxSteps: context.maxSteps }),
  }));
}

/** The options schema of a conversion's last step; `declared`: its registration's (nothing loaded). */
export async function optionsSchemaOf(
  context: ConversionContext,
  from: string,
  to: string,
  declared: boolean,
): Promise<ZodType<Record<string, unknown>> | undefined> {
  const target = context.formats.require(to).name;
  const plan = await context.findPath(context.formats.require(from).name, target, undefined, { declared });
  const last = plan.steps.at(-1);
  return last
    ? context.converters.declarationOf(last.converter, declared)?.optionsSchema?.(target)
    : undefined;
}

/** Each converter and whether its engine can run here. */
export async function converterStatuses(context: ConversionContext): Promise<ConverterStatus[]> {
  const availability = await context.availability();
  return context.converters.registrations.map((converter) => ({
    name: converter.name,
    edges: converter.edges.length,
    ...(availability.get(converter.name) ?? { ok: false }),
  }));
}

/**
 * Each operation and whether it can run here; `declared` (an API node, whose workers run them):
 * every operation configured, none checked.
 */
export async function operationStatuses(
  context: ConversionContext,
  declared: boolean,
): Promise<OperationStatus[]> {
  return Promise.all(
    [...context.operations.values()].map(async (operation) => ({
      name: operation.name,
      description: operation.description,
      input: operation.input,
      minInputs: operation.minInputs,
      maxInputs: operation.maxInputs,
      optionsSchema: operation.optionsSchema,
      ...(declared ? { ok: true } : await context.operationAvailability(operation)),
    })),
  );
}
