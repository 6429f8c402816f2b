/**
 * A converter called directly, outside an engine, with options as a caller writes them: the
 * conformance suite does it, and so do a host's own converter tests. A converter reads its options
 * parsed (ConvertContext: the engine parses them once, when it plans), so a direct call parses
 * them first, the way the engine does (parseConversionOptions): an unknown key or a bad value is
 * INVALID_OPTIONS before the converter starts, and the converter is handed the schema's output
 * with its defaults filled in.
 */
import { parseConversionOptions } from '../core/options.js';
import type { ConvertContext, Converter, ConvertResult } from '../core/ports/index.js';

/** `C` with a convert() that takes options as given (unparsed). */
export type WithOptionsParsed<C> = Omit<C, 'convert'> & {
  convert(ctx: ConvertContext): Promise<ConvertResult | undefined>;
};

/**
 * `converter`, each conversion's options parsed by its schema for the target before its own
 * convert() runs. A pair it declares no edge for is passed on as it is: the engine never asks
 * for one, and the converter refuses it (UNSUPPORTED_CONVERSION) before it reads any option.
 */
export function withOptionsParsed<O, C extends Converter<O>>(
  converter: C & Converter<O>,
): WithOptionsParsed<C> {
  return {
    ...converter,
    async convert(ctx) {
      const declared = converter.edges.some((edge) => edge.from === ctx.from && edge.to === ctx.to);
      const options = declared
        ? parseConversionOptions(converter, ctx.to, ctx.options)
        : // Undeclared: refused by the converter before it looks at its options.
          (ctx.options as O);
      return converter.convert({ ...ctx, options });
    },
  };
}
