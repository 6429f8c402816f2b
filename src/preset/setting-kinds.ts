/**
 * The kinds of value a setting holds (a port, a whole number, a yes/no, a list of names...):
 * for each, the one schema every source is checked with (the config file, a flag, a variable,
 * and the file's JSON Schema, which is generated from it) and how a flag's or a variable's text
 * becomes that value. A setting written three ways is therefore checked one way, and a bad value
 * is refused naming where it came from and what is expected.
 */
import { z } from 'zod';
import { BOOLEAN_SPELLINGS, booleanWordOf, parseBooleanText } from '../core/boolean-text.js';
import { FileconvError } from '../core/errors.js';

/** What a schema may depend on: the engines `engines.*` can name (`fileconv doctor`'s names). */
export interface SchemaContext {
  engineNames: readonly string[];
}

export interface SettingKind<T> {
  /** The schema of the value, whatever its source; also the config file's JSON Schema. */
  schema(context: SchemaContext): z.ZodType<T>;
  /** A flag's or a variable's text as the value the schema checks (`name` for messages). */
  fromText(text: string, name: string): unknown;
  /** What a valid value is, for messages and --help: 'a port number 0-65535'. */
  expected: string;
  /** commander's argument ('<port>'); undefined for a switch (a boolean). */
  argument: string | undefined;
}

const nonEmpty = z.string().min(1);

/** The text as a number when it is one, else as it is (the schema then refuses it). */
function numberOf(text: string): unknown {
  const trimmed = text.trim();
  return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : text;
}

/** 'sharp, libreoffice' -> ['sharp', 'libreoffice']. */
export function namesOf(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

function kind<T>(
  schema: (context: SchemaContext) => z.ZodType<T>,
  expected: string,
  argument: string | undefined,
  fromText: (text: string, name: string) => unknown = (text) => text,
): SettingKind<T> {
  return { schema, expected, argument, fromText };
}

export const port = kind(() => z.int().min(0).max(65_535), 'a port number 0-65535', '<port>', numberOf);

export const positiveInteger = (argument: string) =>
  kind(() => z.int().positive(), 'a whole number above 0', argument, numberOf);

export const nonNegativeInteger = (argument: string) =>
  kind(() => z.int().nonnegative(), 'a whole number, 0 or more', argument, numberOf);

export const positiveNumber = (argument: string) =>
  kind(() => z.number().positive(), 'a number above 0', argument, numberOf);

export const text = (argument: string) => kind(() => nonEmpty, 'a non-empty text', argument);

/** Text that may be empty (a key prefix). */
export const optionalText = (argument: string) => kind(() => z.string(), 'a text', argument);

export const url = (protocols: readonly string[], argument = '<url>') =>
  kind(
    () => z.url({ protocol: new RegExp(`^(${protocols.join('|')})$`) }),
    `a ${protocols.map((protocol) => `${protocol}://`).join(' or ')} URL`,
    argument,
  );

/** A yes/no: the one boolean syntax of core/boolean-text. */
export const boolean = kind(
  () => z.boolean(),
  BOOLEAN_SPELLINGS,
  undefined,
  (value, name) => parseBooleanText(value, name),
);

export const oneOf = <const V extends readonly [string, ...string[]]>(values: V, argument: string) =>
  kind(() => z.enum(values), values.join(' or '), argument);

/** A list, written comma-separated in a flag or a variable; `min` entries at least. */
export const list = <T>(item: (context: SchemaContext) => z.ZodType<T>, argument: string, min = 0) =>
  kind((context) => z.array(item(context)).min(min), 'a comma-separated list', argument, namesOf);

/** An engine's name, as `fileconv doctor` lists them. */
export function engineName({ engineNames }: SchemaContext): z.ZodType<string> {
  return z.enum(engineNames as [string, ...string[]], {
    error: (issue) =>
      `unknown engine ${JSON.stringify(issue.input)}: expected one of ${engineNames.join(', ')}`,
  });
}

export const headerName = () => z.string().regex(/^[\w-]+$/);

/** CORS origins: '*' (any), or origins; comma-separated in a flag or a variable. */
export const origins = kind(
  (): z.ZodType<'*' | string[]> => z.union([z.literal('*'), z.array(nonEmpty)]),
  '"*" or a comma-separated list of origins',
  '<origins>',
  (value) => (value.trim() === '*' ? '*' : namesOf(value)),
);

export type TrustProxySetting = boolean | number | string | readonly string[];

/**
 * `--trust-proxy` as typed: a yes/no, a hop count ('1'), or addresses/subnets/names
 * ('loopback, 10.0.0.0/8', which the service splits).
 */
function parseTrustProxy(value: string): TrustProxySetting {
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  return booleanWordOf(value) ?? value;
}

export const trustProxy = kind(
  (): z.ZodType<TrustProxySetting> =>
    z.union([z.boolean(), z.int().nonnegative(), nonEmpty, z.array(nonEmpty).min(1)]),
  "true, a hop count, 'loopback', addresses or subnets",
  '<proxies>',
  parseTrustProxy,
);

/** Plan overrides: a JSON file's path in a flag or a variable, the object itself in the config file. */
export const plans = kind(
  (): z.ZodType<string | Record<string, unknown>> => z.union([nonEmpty, z.record(z.string(), z.unknown())]),
  'a JSON plans file',
  '<file>',
);

/** `plans` in the config file: the object only (a path goes in a flag or a variable). */
export const plansInFile = (): z.ZodType<Record<string, unknown>> => z.record(z.string(), z.unknown());

/**
 * `value` from a flag or a variable (`name`: '--port', 'PORT') checked against `kind`: the text
 * read as the kind reads it, then the schema. INVALID_OPTIONS naming it and what is expected.
 */
export function checkSettingValue<T>(
  settingKind: SettingKind<T>,
  value: unknown,
  name: string,
  context: SchemaContext,
): T {
  const raw = typeof value === 'string' ? settingKind.fromText(value, name) : value;
  const parsed = settingKind.schema(context).safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  // An issue inside a list names its entry ('unknown engine "imagemagik"...').
  const detail = issue && issue.path.length > 0 ? ` (${issue.message})` : '';
  throw new FileconvError(
    'INVALID_OPTIONS',
    `${name} must be ${settingKind.expected}, got ${JSON.stringify(value)}${detail}.`,
    { details: { setting: name, given: value } },
  );
}
