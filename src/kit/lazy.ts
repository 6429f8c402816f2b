/**
 * A converter whose implementation is imported on first use. The edges are given up front (from
 * the converter's dependency-free `*-edges.ts` module), so the graph can plan with them; the
 * module behind the converter, and the engine behind that, load only when the engine first asks
 * whether it is available, which it does only for converters on a candidate path. A command-line
 * conversion of one JPEG then loads sharp's adapter, not pdf.js's, exceljs's or LibreOffice's.
 *
 * The engine checks availability before it plans with a converter, so by the time it calls the
 * synchronous members (optionsSchema, packaging) the implementation is there.
 */
import { FileconvError } from '../core/errors.js';
import type { ConversionEdge, Converter } from '../core/ports/index.js';
import { unavailable } from './converter-kit.js';

export interface LazyConverterOptions {
  /** The name the loaded converter has. */
  name: string;
  /** The edges the loaded converter declares (a test should hold the two equal). */
  edges: readonly ConversionEdge[];
  /** Imports the module and creates the converter. */
  load: () => Promise<Converter>;
}

export function lazyConverter(
  options: LazyConverterOptions,
): Converter & { loaded(): Converter | undefined } {
  let loading: Promise<Converter> | undefined;
  let loaded: Converter | undefined;
  const load = () => {
    loading ??= options.load().then(
      (converter) => {
        loaded = converter;
        return converter;
      },
      (error: unknown) => {
        loading = undefined; // a later call may find the package installed by then
        throw error;
      },
    );
    return loading;
  };
  const ready = (member: string): Converter => {
    if (loaded) return loaded;
    throw new FileconvError(
      'INTERNAL',
      `The ${options.name} converter was asked for ${member} before it was loaded: call available() first.`,
    );
  };
  return {
    name: options.name,
    edges: options.edges,
    loaded: () => loaded,
    async available() {
      try {
        return await (await load()).available();
      } catch (error) {
        return unavailable(error);
      }
    },
    // The cast: the port types the method as returning a schema; a loaded converter without
    // one yields undefined here, which the engine reads as "no options", as it would the absent method.
    optionsSchema: (to) =>
      ready('an options schema').optionsSchema?.(to) as ReturnType<NonNullable<Converter['optionsSchema']>>,
    packaging: (to, convertOptions) => ready('its packaging').packaging?.(to, convertOptions),
    async convert(ctx) {
      return (await load()).convert(ctx);
    },
    async close() {
      await loaded?.close?.();
    },
  };
}
