/** What the service and an isolated conversion's process tell each other (isolated.ts). */
import type { ConversionLimits } from '../../core/ports/index.js';

export type IsolatedConverterName = 'mammoth' | 'exceljs' | 'pdf' | 'text' | 'data' | 'pdf-operations';

export interface ConversionRequest {
  converter: IsolatedConverterName;
  /** The converter factory's options; serialisable. */
  factoryOptions: Record<string, unknown>;
  ctx: {
    inputPath: string;
    outputPath: string;
    from: string;
    to: string;
    options: Record<string, unknown>;
    tempDir: string;
    limits: ConversionLimits;
  };
}

export type ParentMessage = { type: 'convert'; request: ConversionRequest } | { type: 'abort' };

export type ChildMessage =
  | { type: 'progress'; fraction: number }
  | { type: 'done'; cpuMs: number }
  | {
      type: 'failed';
      error: { code: string; message: string; details?: Record<string, unknown> | undefined };
    };
