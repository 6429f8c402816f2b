/**
 * A child process of isolated conversions (isolated.ts): it receives requests over IPC one at a
 * time, builds the named pure-JS converter once with the options it was given, runs each
 * conversion, and reports progress and the outcome. Its heap is its own (--max-old-space-size),
 * so a document that inflates past it ends this process, not the service. It lives while the
 * service keeps it (a warm process converts a small document in milliseconds, a new one spends
 * ~0.3 s loading its library) and ends when the service goes.
 */
import { isFileconvError } from '../../core/errors.js';
import type { Converter } from '../../core/ports/index.js';
import type { ChildMessage, ConversionRequest, ParentMessage } from './process-protocol.js';

/** Each isolatable converter, imported only in the process that runs it. */
const FACTORIES: Record<
  ConversionRequest['converter'],
  (options: Record<string, unknown>) => Promise<Converter>
> = {
  mammoth: async (options) =>
    (await import('../../converters/mammoth/index.js')).createMammothConverter(options),
  exceljs: async (options) =>
    (await import('../../converters/exceljs/index.js')).createSpreadsheetConverter(options),
  pdf: async (options) => (await import('../../converters/pdf/index.js')).createPdfConverter(options),
  text: async (options) => (await import('../../converters/text/index.js')).createTextConverter(options),
  data: async (options) => (await import('../../converters/data/index.js')).createDataConverter(options),
  // The PDF operations (fileconv/pdf) behind a stand-in converter (pdf/isolated-operations.ts).
  'pdf-operations': async () => {
    const [{ operationsConverter }, { pdfOperations }] = await Promise.all([
      import('../../operations/pdf/isolated-operations.js'),
      import('../../operations/pdf/pdf-operations.js'),
    ]);
    return operationsConverter(pdfOperations({ isolate: false }));
  },
};

const send = (message: ChildMessage) => process.send?.(message);
/** The conversion running now, to abort. */
let controller = new AbortController();
/** Converters built so far, by name and options. */
const built = new Map<string, Promise<Converter>>();

function converterFor(request: ConversionRequest): Promise<Converter> {
  const key = `${request.converter}:${JSON.stringify(request.factoryOptions)}`;
  let converter = built.get(key);
  if (!converter) {
    converter = FACTORIES[request.converter](request.factoryOptions);
    built.set(key, converter);
  }
  return converter;
}

async function run(request: ConversionRequest): Promise<void> {
  const cpuStart = process.cpuUsage();
  controller = new AbortController();
  try {
    const converter = await converterFor(request);
    await converter.convert({
      ...request.ctx,
      signal: controller.signal,
      onProgress: (fraction) => send({ type: 'progress', fraction }),
    });
    // The process did nothing else: its CPU time is the conversion's (library threads included).
    const cpu = process.cpuUsage(cpuStart);
    send({ type: 'done', cpuMs: (cpu.user + cpu.system) / 1000 });
  } catch (error) {
    send({
      type: 'failed',
      error: isFileconvError(error)
        ? { code: error.code, message: error.message, details: error.details }
        : { code: 'CONVERSION_FAILED', message: error instanceof Error ? error.message : String(error) },
    });
  }
}

process.on('message', (message: ParentMessage) => {
  if (message.type === 'abort') controller.abort(new Error('aborted'));
  else void run(message.request);
});
// The service went away (or let this process go): nothing is waiting for it any more.
process.on('disconnect', () => process.exit(0));
