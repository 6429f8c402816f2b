/**
 * The OpenAPI 3.1 description of the HTTP API, built from the operations table
 * (openapi-operations.ts) and the zod schemas that validate requests and describe answers:
 * z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' }) is OpenAPI 3.1's own schema
 * dialect, so the JSON Schemas go into components.schemas as they are.
 */
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../core/errors.js';
import { RATE_LIMITS } from '../core/policy/limits.js';
import { OPERATIONS } from './openapi-operations.js';
import {
  type ApiOperation,
  type ContentSpec,
  type JsonObject,
  SCHEMAS,
  type SchemaName,
} from './openapi-types.js';

export { OPERATIONS } from './openapi-operations.js';
export type { ApiOperation } from './openapi-types.js';

export interface OpenApiOptions {
  /** servers[0].url: the router's public base URL. Default: no servers (relative to the document). */
  serverUrl?: string;
  /** info.version, the description's own version. Default '0.1.0'. */
  version?: string;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers?: { url: string }[];
  tags: { name: string; description: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, JsonObject>>;
  components: {
    schemas: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
    headers: Record<string, JsonObject>;
  };
}

/** What any request can meet, whatever its route: the access middleware's refusals and a crash. */
const COMMON_ERRORS: readonly ErrorCode[] = [
  'UNAUTHORIZED',
  'RATE_LIMITED',
  'QUOTA_EXCEEDED',
  'INTERNAL',
  // Any route touches the job store, counters or storage, any of which may be out of reach.
  'UNAVAILABLE',
  // ...or on a full disk (the embedded database and file storage write to the data dir).
  'NO_SPACE',
];

/** Sent on every answer when the host configured counters (access.ts). */
const LIMIT_HEADERS = [
  'RateLimit-Policy',
  'RateLimit',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];

const HEADERS: Record<string, JsonObject> = {
  'RateLimit-Policy': header('The policies applied (IETF httpapi draft), e.g. `"upload";q=20;w=60`.'),
  RateLimit: header('State of each policy (IETF httpapi draft), e.g. `"upload";r=19;t=42`.'),
  'X-RateLimit-Limit': header('Limit of the tightest policy.', 'integer'),
  'X-RateLimit-Remaining': header('Units left in the tightest policy.', 'integer'),
  'X-RateLimit-Reset': header('When the tightest policy resets, epoch seconds.', 'integer'),
  'Retry-After': header('Seconds to wait before retrying.', 'integer'),
  'WWW-Authenticate': header('The Bearer challenge of a refused API key.'),
  'Content-Disposition': header('`attachment` with the download name.'),
  ETag: header('A strong validator of the body (per content coding); send it back in If-None-Match.'),
  'Idempotent-Replayed': header(
    '`true` on the replay of an earlier answer to the same Idempotency-Key (nothing was run or charged again).',
  ),
  'Tus-Resumable': header('The tus protocol version: `1.0.0`.'),
  'Tus-Version': header('The tus versions offered: `1.0.0`.'),
  'Tus-Extension': header(
    'The tus extensions offered: `creation,creation-with-upload,termination,expiration,checksum`.',
  ),
  'Tus-Max-Size': header("The caller's plan's largest upload, bytes.", 'integer'),
  'Tus-Checksum-Algorithm': header('The Upload-Checksum algorithms offered: `sha1,sha256,md5`.'),
  Location: header('The upload URL: `<base>/api/tus/<fileId>`.'),
  'Upload-Offset': header('Bytes of the upload stored so far.', 'integer'),
  'Upload-Length': header("The upload's whole size, bytes.", 'integer'),
  'Upload-Expires': header('When the unfinished upload expires (RFC 7231 date).'),
};

/** The optional header of the routes that create something (idempotency.ts). */
const IDEMPOTENCY_KEY: JsonObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry: 1-255 visible ASCII characters (a UUID is fine), unique per request, per caller. A retry with the same key and the same request (method, path, query, body; a multipart form by its parts) within 24 h gets the first answer again, with `Idempotent-Replayed: true`, and nothing is run, stored or charged twice. The same key on another request is 422 IDEMPOTENCY_KEY_REUSED; while the first is still running a retry waits for it, then 409 IDEMPOTENCY_KEY_IN_USE with Retry-After. 2xx and 4xx answers are kept (not 401, 403, 429); a 5xx is not, so its retry runs again.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};
const IDEMPOTENCY_ERRORS: readonly ErrorCode[] = ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE'];

function header(description: string, type: 'string' | 'integer' = 'string'): JsonObject {
  return { description, schema: { type } };
}

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });

/**
 * A zod schema as a component. 'input' describes what a client sends (defaults make fields
 * optional); the response schemas have no defaults or transforms, so it is their output too.
 * `$schema` goes: 2020-12 is already the dialect of an OpenAPI 3.1 document.
 */
function jsonSchemaOf(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' });
  return rest;
}

function contentOf(spec: ContentSpec): JsonObject {
  if ('mediaType' in spec) return { [spec.mediaType]: spec.schema ? { schema: spec.schema } : {} };
  return { 'application/json': { schema: ref(spec.schema) } };
}

function headerRefs(names: readonly string[]): JsonObject {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** One response per status, its body the error envelope narrowed to the codes it can carry. */
function errorResponses(operation: ApiOperation): Record<string, JsonObject> {
  const byStatus = new Map<number, Set<ErrorCode>>();
  const idempotency = operation.idempotent ? IDEMPOTENCY_ERRORS : [];
  for (const code of [...operation.errors, ...idempotency, ...COMMON_ERRORS]) {
    const status = ERROR_CODES[code];
    byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  }
  const responses: Record<string, JsonObject> = {};
  for (const [status, codeSet] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = [...codeSet].sort();
    const retryLater =
      status === 429 || status === 503 || codeSet.has('IDEMPOTENCY_KEY_IN_USE') || codeSet.has('NO_SPACE');
    const extra = retryLater ? ['Retry-After'] : status === 401 ? ['WWW-Authenticate'] : [];
    responses[String(status)] = {
      description: codes.join(', '),
      headers: headerRefs([...LIMIT_HEADERS, ...extra]),
      content: {
        'application/json': {
          schema: {
            allOf: [
              ref('Error'),
              {
                type: 'object',
                properties: { error: { type: 'object', properties: { code: { enum: codes } } } },
              },
            ],
          },
        },
      },
    };
  }
  return responses;
}

function operationObject(operation: ApiOperation): JsonObject {
  const rule = operation.rateLimit === null ? null : RATE_LIMITS[operation.rateLimit];
  const { ok, body } = operation;
  // A public route is answered before access control: no limit headers, no common errors.
  const limitHeaders = rule ? LIMIT_HEADERS : [];
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(operation.parameters?.length || operation.idempotent
      ? {
          parameters: [
            // Every parameter the routes read is required (a missing one is a 400 or 403).
            ...(operation.parameters ?? []).map((parameter) => ({
              ...parameter,
              required: parameter.required ?? true,
            })),
            ...(operation.idempotent ? [IDEMPOTENCY_KEY] : []),
          ],
        }
      : {}),
    ...(body
      ? {
          requestBody: {
            required: body.required ?? true,
            ...(body.description ? { description: body.description } : {}),
            content: contentOf(body),
          },
        }
      : {}),
    responses: {
      [String(ok.status ?? 200)]: {
        description: ok.description,
        headers: headerRefs([
          ...limitHeaders,
          ...(ok.headers ?? []),
          ...(operation.idempotent ? ['Idempotent-Replayed'] : []),
        ]),
        ...(ok.content ? { content: contentOf(ok.content) } : {}),
      },
      ...(rule ? errorResponses(operation) : {}),
      ...Object.fromEntries(
        (operation.otherAnswers ?? []).map((answer) => [
          String(answer.status),
          {
            description: answer.description,
            headers: headerRefs([...limitHeaders, ...(answer.headers ?? [])]),
            content: contentOf(answer.content),
          },
        ]),
      ),
    },
    // Which per-IP rate limit an anonymous request counts against (policy/limits.ts); a keyed
    // one counts against its account at its plan's rates, shown by GET /api/usage.
    ...(rule
      ? { 'x-rate-limit': { policy: rule.name, limit: rule.limit, windowSeconds: rule.windowMs / 1000 } }
      : {}),
  };
}

export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const operation of OPERATIONS) {
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method] = operationObject(operation);
  }
  const schemas = Object.fromEntries(
    Object.entries(SCHEMAS).map(([name, schema]) => [name, jsonSchemaOf(schema)]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'fileconv conversion API',
      version: options.version ?? '0.1.0',
      description:
        'Converts files between formats. Flow A: upload grant, PUT, job, polling. Flow B: multipart upload, convert, download. Every failure answers `{ "error": { "code", "message", "details"? } }` with the status of its code.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [
      { name: 'Flow A', description: 'Upload grant, signed PUT, asynchronous job, polling.' },
      { name: 'Flow B', description: 'Multipart upload, synchronous convert, download by id.' },
      { name: 'Service', description: 'Additive endpoints: usage, formats, health, this description.' },
      {
        name: 'tus',
        description:
          'Resumable uploads over the tus 1.0 protocol (creation, creation-with-upload, termination, expiration, checksum): use a tus client (tus-js-client, Uppy) with endpoint `<base>/api/tus`. A finished upload is an uploaded file: its fileKey is `uploads/<id>` (Flow A), its fileId the last segment of the upload URL (Flow B). Every answer carries `Tus-Resumable: 1.0.0`.',
      },
    ],
    // Optional authentication: anonymous callers are on the Free plan, limited per IP.
    security: [{}, { apiKey: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: "A paid plan's API key: `Authorization: Bearer <API_KEY>`. Without it: the Free plan.",
        },
      },
      headers: HEADERS,
    },
  };
}
