/**
 * Options checked against their zod schema, the one way everywhere: a conversion's options (by
 * the schema its converter declares for the target, once, when the conversion is planned), an
 * operation's, and a converter's own settings (createSharpConverter(options)). A failure is
 * INVALID_OPTIONS with one message shape, "Invalid options for <what>: <path>: <problem>; ...",
 * and each problem in `details.issues`, so a client reads every refusal the same way.
 */
import type { ZodType } from 'zod';
import { FileconvError } from './errors.js';

/** One problem with the options: where (dotted path, '' for the whole object) and what. */
export interface OptionIssue {
  path: string;
  message: string;
}

/**
 * `value` parsed by `schema` (its output: defaults filled in); INVALID_OPTIONS naming every
 * problem otherwise. `what` names whose options they are ('jpg', 'the merge operation',
 * 'createSharpConverter').
 */
export function parseOptions<T>(schema: ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues: OptionIssue[] = parsed.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const summary = issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  throw new FileconvError('INVALID_OPTIONS', `Invalid options for ${what}: ${summary.join('; ')}.`, {
    details: { issues },
    cause: parsed.error,
  });
}

/**
 * What declares the options of its conversions: a converter, or its registration. (`to` is a
 * FormatName; named as a string here, since core/formats builds on this folder and not back.)
 */
export interface OptionsDeclaration<O> {
  optionsSchema?(to: string): ZodType<O>;
}

/**
 * The options of a conversion to `to` made by `declaration` (the converter of its last step),
 * parsed by the schema it declares for `to`. One without a schema takes no options: anything
 * given is INVALID_OPTIONS, and its converter is handed `{}`.
 */
export function parseConversionOptions<O>(
  declaration: OptionsDeclaration<O> | undefined,
  to: string,
  given: Record<string, unknown> | undefined,
): O {
  const options = given ?? {};
  const schema = declaration?.optionsSchema?.(to);
  if (schema) return parseOptions(schema, options, to);
  if (Object.keys(options).length > 0) {
    throw new FileconvError('INVALID_OPTIONS', `Conversions to ${to} take no options.`, {
      details: { given: Object.keys(options) },
    });
  }
  // No schema: the converter's option type is the port's default, an object of nothing here.
  return {} as O;
}
