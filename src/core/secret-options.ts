/**
 * Option values that authenticate (a URL capture's cookies and header values, a PDF's
 * password): their schema marks them `writeOnly` (`.meta({ writeOnly: true })`, the OpenAPI
 * word for what a request sends and no answer returns). A job needs them until it has run, as
 * its worker may be another process reading the record; once it is over, the engine keeps the
 * record with them replaced by REDACTED (engine/job-secrets.ts), so a stored, exported or
 * logged finished job holds none.
 */
import { type ZodType, z } from 'zod';

/** What a writeOnly value reads once its job is over. */
export const REDACTED = '[redacted]';

type JsonSchema = {
  writeOnly?: boolean;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

const described = new WeakMap<ZodType, JsonSchema>();

function jsonSchemaOf(schema: ZodType): JsonSchema {
  let json = described.get(schema);
  if (json === undefined) {
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    described.set(schema, json);
  }
  return json;
}

function redact(schema: JsonSchema | boolean | undefined, value: unknown): unknown {
  if (schema === undefined || typeof schema === 'boolean' || value === undefined) return value;
  if (schema.writeOnly === true) return REDACTED;
  let result: unknown = value;
  // A branch that marks the value decides, whichever branch the value matched: never too little.
  for (const branch of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    result = redact(branch, result);
  }
  if (Array.isArray(result)) return result.map((item) => redact(schema.items, item));
  if (result !== null && typeof result === 'object') {
    return Object.fromEntries(
      Object.entries(result).map(([key, item]) => [
        key,
        redact(schema.properties?.[key] ?? schema.additionalProperties, item),
      ]),
    );
  }
  return result;
}

/** `options` with every value `schema` marks writeOnly replaced by REDACTED (a copy; the input is left as it is). */
export function withoutWriteOnly(schema: ZodType, options: Record<string, unknown>): Record<string, unknown> {
  return redact(jsonSchemaOf(schema), options) as Record<string, unknown>;
}
