/** What the service and an isolated conversion's process tell each other (isolated.ts). */
import type { Availability, ConversionLimits } from '../../core/ports/index.js';

/**
 * Where the child finds the function that makes the converter: the child imports the module and
 * calls the export with the factory options, so the kit itself imports no converter.
 */
export interface IsolatedFactory {
  /**
   * The module, by its path from fileconv's package root without extension
   * ('src/converters/pdf/index': .js once built, .ts in the sources), or a file: URL (a host's own).
   */
  module: string;
  /** Its export that makes the converter from the factory options ('createPdfConverter'). */
  factory: string;
}

/** Which converter the child builds: the module's file URL (resolved by isolated.ts), its export, its options. */
export interface ConverterRequest {
  moduleUrl: string;
  factory: string;
  /** The converter factory's options; serialisable. */
  factoryOptions: Record<string, unknown>;
}

export interface ConversionRequest extends ConverterRequest {
  ctx: {
    inputPath: string;
    outputPath: string;
    from: string;
    to: string;
    /** Parsed already (by the engine): handed to the child's converter as they are. */
    options: unknown;
    tempDir: string;
    limits: ConversionLimits;
  };
}

export type ParentMessage =
  | { type: 'convert'; request: ConversionRequest }
  | { type: 'abort' }
  /** Asks the converter's available() in the child, where its library is loaded (isolated.ts). */
  | { type: 'available'; id: number; request: ConverterRequest };

/** What a child tells about a conversion the pool gave it (isolated.ts). */
export type ConversionMessage =
  | { type: 'progress'; fraction: number }
  | { type: 'done'; cpuMs: number }
  | {
      type: 'failed';
      error: { code: string; message: string; details?: Record<string, unknown> | undefined };
    };

/** A probe child's answer to 'available' (availability-probe.ts): the pool's children get none. */
export type AvailabilityMessage = { type: 'availability'; id: number; availability: Availability };

export type ChildMessage = ConversionMessage | AvailabilityMessage;
