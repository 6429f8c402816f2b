/**
 * The DocumentOperation port: work on whole documents that is not a change of format (merge N
 * PDFs, split out pages, rotate, compress, stamp a watermark, protect with a password). A job runs
 * one operation over its inputs, in order, instead of a conversion chain.
 */
import type { ZodType } from 'zod';
import type { FormatName, OutputPackaging } from '../formats/types.js';
import type { ConversionLimits } from '../work-limits.js';
import type { Availability, ConvertResult } from './converter.js';

/** An operation's run; `O` is its options type, its schema's output (`DocumentOperation<O>`). */
export interface OperationContext<O = Record<string, unknown>> {
  /** The job's inputs, in the order given, each already checked to be of the operation's input format. */
  inputPaths: readonly string[];
  outputPath: string;
  /** The options, parsed by optionsSchema (defaults filled in): the operation reads them as they are. */
  options: O;
  /** A private directory for scratch files; removed by the engine. */
  tempDir: string;
  /** Aborted on timeout or cancel: stop work, kill child processes. */
  signal: AbortSignal;
  limits: ConversionLimits;
  /** ConvertContext.convertTo: a conversion with the engine's converters; undefined outside an engine. */
  convertTo?(inputPath: string, from: FormatName, to: FormatName): Promise<string>;
}

/** What an operation writes for given options: one file of `format`, or a zip of several. */
export interface OperationOutput {
  format: FormatName;
  packaging?: OutputPackaging;
}

export interface DocumentOperation<O = Record<string, unknown>> {
  /** Unique, short, as clients name it: 'merge', 'split', 'rotate', ... */
  name: string;
  /** One line for API descriptions and `GET /api/operations`. */
  description: string;
  /** The format inputs must have ('pdf'); the first input's always. */
  input: FormatName;
  /** The formats input `index` may have, where they differ from `input` (a watermark's image). Default [input]. */
  accepts?(index: number): readonly FormatName[];
  /** How many inputs it takes. */
  minInputs: number;
  maxInputs: number;
  /** Whether the engine behind it can run here. */
  available(): Promise<Availability>;
  /** Schema of its options; unknown keys are rejected. */
  optionsSchema: ZodType<O>;
  /** The result's format for these (parsed) options. */
  output(options: O): OperationOutput;
  /**
   * Checks what the schema cannot see: the options against the number of inputs (a watermark
   * needs its text or an image file). Throws INVALID_OPTIONS; called when the job is created.
   */
  checkInputs?(options: O, inputCount: number): void;
  run(ctx: OperationContext<O>): Promise<ConvertResult | undefined>;
  /** Releases what it keeps between runs (worker processes); called by the engine's close(). */
  close?(): Promise<void>;
}
