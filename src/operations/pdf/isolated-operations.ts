/**
 * The PDF operations run in a child process, like the pure-JS converters (see
 * converters/isolation/isolated.ts): pdf-lib parses and writes whole documents on the thread that
 * calls it, so a merge of fifty large PDFs in the service would hold its event loop and grow its
 * heap. Each operation's run goes to the isolation pool as a conversion of a stand-in converter
 * ('pdf-operations') that runs the named operation in the child, under the same heap cap and
 * work budget; availability, schemas and outputs stay in-process.
 */
import { FileconvError } from '../../core/errors.js';
import type { Converter, DocumentOperation } from '../../core/ports/index.js';
import { type IsolationOptions, isolateConverter } from '../../kit/isolation/isolated.js';

/** How an operation travels in a conversion request's options. */
type OperationCall = {
  operation: string;
  inputPaths: string[];
  options: Record<string, unknown>;
};

/**
 * The stand-in converter the child builds: its "conversion" runs the operation named in its
 * options over the inputs listed there.
 */
export function operationsConverter(operations: readonly DocumentOperation[]): Converter<OperationCall> {
  const byName = new Map(operations.map((operation) => [operation.name, operation]));
  return {
    name: 'pdf-operations',
    edges: [],
    available: async () => ({ ok: true }),
    async convert(ctx) {
      const call = ctx.options;
      const operation = byName.get(call.operation);
      if (!operation)
        throw new FileconvError('INTERNAL', `No operation named ${call.operation} in the child.`);
      return operation.run({
        inputPaths: call.inputPaths,
        outputPath: ctx.outputPath,
        options: call.options,
        tempDir: ctx.tempDir,
        signal: ctx.signal,
        limits: ctx.limits,
      });
    },
  };
}

/** `operations` with each run in the isolation pool's child processes (one pool for all of them). */
export function isolateOperations(
  operations: readonly DocumentOperation[],
  options: IsolationOptions = {},
): DocumentOperation[] {
  const isolated = isolateConverter(
    operationsConverter(operations),
    { module: 'src/operations/pdf/operations-stand-in', factory: 'createPdfOperationsStandIn' },
    options,
  );
  return operations.map((operation) => ({
    ...operation,
    // One pool behind them all: closing it again is a no-op.
    close: async () => {
      await isolated.close?.();
    },
    run: (ctx) => {
      const output = operation.output(ctx.options);
      const call: OperationCall = {
        operation: operation.name,
        inputPaths: [...ctx.inputPaths],
        options: ctx.options,
      };
      return isolated.convert({
        inputPath: ctx.inputPaths[0] ?? '',
        outputPath: ctx.outputPath,
        from: operation.input,
        to: output.format,
        options: call,
        tempDir: ctx.tempDir,
        signal: ctx.signal,
        limits: ctx.limits,
        onProgress: () => {},
      });
    },
  }));
}
