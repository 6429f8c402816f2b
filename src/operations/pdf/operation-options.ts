/**
 * Checking an operation's own options against its schema. The options object a function takes
 * also carries what every operation takes (signal, maxInputBytes, tempDir), so only the schema's
 * own keys are checked; a bad value is INVALID_OPTIONS naming the option.
 */
import { z } from 'zod';
import { FileconvError } from '../../core/errors.js';

export function parseOperationOptions<Shape extends z.ZodRawShape>(
  operation: string,
  schema: z.ZodObject<Shape>,
  options: object,
): z.output<z.ZodObject<Shape>> {
  const own = Object.fromEntries(
    Object.entries(options).filter(([key, value]) => key in schema.shape && value !== undefined),
  );
  const parsed = schema.safeParse(own);
  if (!parsed.success) {
    throw new FileconvError('INVALID_OPTIONS', `${operation}: ${z.prettifyError(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}
