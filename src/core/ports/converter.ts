/**
 * The Converter port: one engine's conversions as edges of the graph (`from -> to` at a cost), a
 * check that its engine can run here, a schema for its options, and `convert` over local files.
 * An engine is given converters as registrations: what planning needs (name, edges, options
 * schema), declared without loading anything, and `load`, which makes the converter on first need.
 */
import type { ZodType } from 'zod';
import type { FormatName, OutputPackaging } from '../formats/types.js';
import type { ConversionLimits } from '../work-limits.js';

export interface ConversionEdge {
  from: FormatName;
  to: FormatName;
  /** Relative cost; the graph picks the cheapest path. Rough guide: 1 = a fast in-process re-encode. */
  cost: number;
  /** True when the conversion loses information (re-encoding to a lossy codec, flattening). */
  lossy?: boolean;
  /**
   * True when the step reads its input's sound (a video's soundtrack to mp3, audio to audio): the
   * graph then never routes content that has passed through a format without sound (a PNG, a
   * GIF) into it, since such a chain could only fail. Default false.
   */
  needsAudio?: boolean;
  /**
   * True when the step may only end a chain (OCR: text read out of pixels). The graph plans
   * png -> txt through it, never png -> txt -> pdf. Default false.
   */
  finalOnly?: boolean;
  /**
   * How the step reads its input's words, when it does: from its text ('text': pdf -> txt reads
   * the text layer) or from its pixels ('pixels': OCR). The graph plans it only on content that
   * still holds words that way: never pdf -> txt on a PDF made from a photo (its page is pixels,
   * the result would be empty), never OCR on a video's frame. Default: the step reads no words.
   */
  readsWords?: 'text' | 'pixels';
  /**
   * npm packages the step loads that its converter's availability does not cover (the data
   * converter's yaml for json -> yaml, none for vcf -> csv): the step is planned only where they
   * are installed, and a conversion only it could make names them and their install line.
   * Default none.
   */
  packages?: readonly string[];
  /**
   * True when the step writes a list of records whatever its input (a sheet's rows or a
   * calendar's events as JSON): the graph then never plans a `needsObject` step after it.
   * Default false.
   */
  writesRecords?: boolean;
  /**
   * True when the step needs data whose top level is an object (TOML's table on top): never
   * planned after a step that writes records, as xlsx -> json -> toml could only fail. Default false.
   */
  needsObject?: boolean;
}

/**
 * A conversion as a converter is asked to make it. `O` is the converter's options type, its
 * schema's output (`Converter<O>`): a converter reads `options` typed, never parses them again.
 */
export interface ConvertContext<O = Record<string, unknown>> {
  inputPath: string;
  outputPath: string;
  from: FormatName;
  to: FormatName;
  /**
   * The options, parsed by the converter's schema for `to` (its defaults filled in): the engine
   * parses them once, when it plans the conversion. A caller of convert() outside an engine
   * parses them first too (parseConversionOptions, core/options.ts).
   */
  options: O;
  /** A private directory the converter may write scratch files to; removed by the engine. */
  tempDir: string;
  /** Aborted on timeout or cancel: stop work, kill child processes. */
  signal: AbortSignal;
  /** Reports progress as a fraction in [0, 1]. */
  onProgress(fraction: number): void;
  limits: ConversionLimits;
  /**
   * Converts `inputPath` (of format `from`) to `to` with the engine's converters, into a folder of
   * `tempDir`, and resolves with the result's path: a step this converter needs first (the OCR
   * converter decoding a JPEG scan to PNG), so that converters never import each other. Undefined
   * when the converter runs outside an engine (called directly, or in an isolated child process).
   */
  convertTo?(inputPath: string, from: FormatName, to: FormatName): Promise<string>;
}

export interface ConvertResult {
  /** CPU time (user + system) the conversion used, in milliseconds, child processes included. */
  cpuMs?: number;
}

export interface Availability {
  ok: boolean;
  /** What is missing, when not ok. */
  reason?: string;
  /** The command that installs what is missing. */
  install?: string;
  /** Engine version, when known. */
  version?: string;
}

/**
 * What a converter that keeps engine processes (or threads) reports about them, for metrics:
 * the LibreOffice pool's warm workers, the ffmpeg runs in flight. A converter fills in what it
 * knows; a member it cannot tell is left out, never guessed.
 */
export interface ConverterStats {
  /** Engine processes (or worker threads) alive now, idle ones included. */
  processes?: number;
  /** Of those, the ones converting now. */
  busy?: number;
  /** Conversions waiting for a free process. */
  queued?: number;
  /** Processes replaced since the converter was created: recycled, killed (timeout, abort) or died. */
  restarts?: number;
}

/**
 * One engine's conversions. `O` is the type of its options, the output of its schemas (one type
 * for every target: the union of what each takes); a host's converter may leave it out.
 */
export interface Converter<O = Record<string, unknown>> {
  /** Unique, short: 'sharp', 'ffmpeg', ... */
  name: string;
  edges: readonly ConversionEdge[];
  /** Whether the engine behind it can run here (library importable, binary on PATH). */
  available(): Promise<Availability>;
  /** Schema for the options of a conversion to `to`. Unknown keys must be rejected. */
  optionsSchema?(to: FormatName): ZodType<O>;
  /**
   * 'zip' when a conversion to `to` with these (parsed) options writes a zip archive of
   * several `to` files instead of one (every page of a PDF as PNG). Only the last step of a
   * chain may package its output; the result is then named and served as a zip.
   */
  packaging?(to: FormatName, options: O): OutputPackaging | undefined;
  convert(ctx: ConvertContext<O>): Promise<ConvertResult | undefined>;
  /**
   * Releases what the converter keeps between conversions (worker processes, threads). The
   * engine calls it from its own close(), after running conversions have finished.
   */
  close?(): Promise<void>;
  /**
   * Its engine processes right now (Engine.stats, read on every metrics scrape): synchronous and
   * cheap, no I/O. Undefined when there is nothing to report yet (no engine chosen).
   */
  stats?(): ConverterStats | undefined;
}

/**
 * What planning needs of a converter, declared without importing the converter's module or its
 * engine library. The converter a registration loads has the same name, edges, options schema
 * and packaging: a converter folder writes them once, in its registration module, and the
 * converter it makes spreads them.
 */
export interface ConverterDeclaration<O = Record<string, unknown>> {
  /** Unique, short: 'sharp', 'ffmpeg', ... */
  readonly name: string;
  /** Declared without loading anything: planning needs no engine installed. */
  readonly edges: readonly ConversionEdge[];
  /**
   * The options schema per target (Converter.optionsSchema), dependency-free (zod only), so an API
   * node validates options without loading the converter. Absent: no options.
   */
  optionsSchema?(to: FormatName): ZodType<O>;
  /** Converter.packaging, declared the same way (an API node names a zip result without loading). */
  packaging?(to: FormatName, options: O): OutputPackaging | undefined;
}

/**
 * A converter as an engine is given it: its declaration and `load`. An engine plans with the
 * declared edges, validates options with the declared schema where no conversion runs (an API
 * node), and loads the converter only when a conversion needs it or its availability is asked.
 * Each converter folder exports its registration(s) from one small dependency-free module
 * (`src/converters/sharp/registration.ts`). An engine also takes a ready Converter object.
 */
export interface ConverterRegistration<O = Record<string, unknown>> extends ConverterDeclaration<O> {
  /** Makes the converter (imports its module and engine library); called on first need. */
  load(): Promise<Converter<O>>;
}
