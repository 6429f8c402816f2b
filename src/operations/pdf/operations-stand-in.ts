/**
 * What the isolation pool's child process builds for the PDF operations: the stand-in converter
 * (isolated-operations.ts) over the operations run in place. The child imports this module by its
 * path (kit/isolation/converter-process.ts), so it is a build entry of its own (tsup.config.ts).
 */
import type { Converter } from '../../core/ports/index.js';
import { operationsConverter } from './isolated-operations.js';
import { pdfOperations } from './pdf-operations.js';

export function createPdfOperationsStandIn(): Converter {
  return operationsConverter(pdfOperations({ isolate: false }));
}
