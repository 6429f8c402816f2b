/**
 * A child process of isolated conversions (isolated.ts): it receives requests over IPC one at a
 * time, builds the pure-JS converter once with the options it was given (importing the module the
 * request names and calling its factory: the kit knows no converter by name), runs each
 * conversion, and reports progress and the outcome. Its heap is its own (--max-old-space-size),
 * so a document that inflates past it ends this process, not the service. It lives while the
 * service keeps it (a warm process converts a small document in milliseconds, a new one spends
 * ~0.3 s loading its library) and ends when the service goes.
 */
import { FileconvError, isFileconvError } from '../../core/errors.js';
import type { Converter } from '../../core/ports/index.js';
import type { ChildMessage, ConversionRequest, ConverterRequest, ParentMessage } from './process-protocol.js';

const send = (message: ChildMessage) => process.send?.(message);
/** The conversion running now, to abort. */
let controller = new AbortController();
/** Converters built so far, by module, factory and options. */
const built = new Map<string, Promise<Converter<unknown>>>();

function converterFor(request: ConverterRequest): Promise<Converter<unknown>> {
  const key = `${request.moduleUrl}#${request.factory}:${JSON.stringify(request.factoryOptions)}`;
  let converter = built.get(key);
  if (!converter) {
    converter = build(request);
    built.set(key, converter);
  }
  return converter;
}

/** The child's copy of the converter: its options type is the parent's business (they come parsed). */
async function build(request: ConverterRequest): Promise<Converter<unknown>> {
  const module = (await import(request.moduleUrl)) as Record<string, unknown>;
  const make = module[request.factory];
  if (typeof make !== 'function') {
    throw new FileconvError('INTERNAL', `${request.moduleUrl} has no function ${request.factory}.`);
  }
  return (await (
    make as (options: Record<string, unknown>) => Converter<unknown> | Promise<Converter<unknown>>
  )(request.factoryOptions)) as Converter<unknown>;
}

/** The converter's own answer, from here: its library is loaded in this process, never the service's. */
async function probe(id: number, request: ConverterRequest): Promise<void> {
  try {
    const converter = await converterFor(request);
    send({ type: 'availability', id, availability: await converter.available() });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    send({ type: 'availability', id, availability: { ok: false, reason } });
  }
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
  else if (message.type === 'available') void probe(message.id, message.request);
  else void run(message.request);
});
// The service went away (or let this process go): nothing is waiting for it any more.
process.on('disconnect', () => process.exit(0));
