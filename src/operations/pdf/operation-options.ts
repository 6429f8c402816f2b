/**
 * Checking an operation's own options against its schema. The options object a function takes
 * also carries what every operation takes (signal, maxInputBytes, tempDir), so only the schema's
 * own keys are checked; a bad value is INVALID_OPTIONS naming the option (core/options.ts).
 */
import type { z } from 'zod';
import { parseOptions } from '../../core/options.js';

export function parseOperationOptions<Shape extends z.ZodRawShape>(
  operation: string,
  schema: z.ZodObject<Shape>,
  options: object,
): z.output<z.ZodObject<Shape>> {
  const own = Object.fromEntries(
    Object.entries(options).filter(([key, value]) => key in schema.shape && value !== undefined),
  );
  return parseOptions(schema, own, `the ${operation} operation`);
}
