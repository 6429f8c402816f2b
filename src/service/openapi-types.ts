/**
 * The vocabulary of the API description's operations table (openapi-operations.ts): the named
 * zod schemas of request and response bodies (the wire module's: the same objects that validate
 * requests and type the answers, so nothing restates a shape zod already knows) and the shape of
 * one operation.
 */
import type { z } from 'zod';
import type { ErrorCode } from '../core/errors.js';
import type { RateLimitClass } from '../core/policy/limits.js';
import {
  batchRequest,
  batchResponse,
  completedUploadResponse,
  completeMultipartRequest,
  convertOrOperationRequest,
  convertRequest,
  convertResponse,
  createJobRequest,
  createJobResponse,
  errorResponse,
  formatsResponse,
  healthResponse,
  jobRequest,
  jobResponse,
  multipartGrantResponse,
  operationConvertRequest,
  operationJobRequest,
  operationsResponse,
  readinessResponse,
  uploadedFileResponse,
  uploadGrantResponse,
  uploadUrlRequest,
  urlConvertRequest,
  urlJobRequest,
  usageResponse,
} from './wire/index.js';

/** The document's components.schemas: name -> zod schema. */
export const SCHEMAS = {
  UploadUrlRequest: uploadUrlRequest,
  CompleteMultipartRequest: completeMultipartRequest,
  CreateJobRequest: createJobRequest,
  OperationJobRequest: operationJobRequest,
  UrlJobRequest: urlJobRequest,
  JobRequest: jobRequest,
  BatchRequest: batchRequest,
  ConvertRequest: convertRequest,
  OperationConvertRequest: operationConvertRequest,
  UrlConvertRequest: urlConvertRequest,
  ConvertOrOperationRequest: convertOrOperationRequest,
  UploadGrant: uploadGrantResponse,
  MultipartGrant: multipartGrantResponse,
  CompletedUpload: completedUploadResponse,
  CreateJobResult: createJobResponse,
  BatchResult: batchResponse,
  Job: jobResponse,
  UploadedFile: uploadedFileResponse,
  ConvertResult: convertResponse,
  Usage: usageResponse,
  Formats: formatsResponse,
  Operations: operationsResponse,
  Health: healthResponse,
  Readiness: readinessResponse,
  Error: errorResponse,
} as const satisfies Record<string, z.ZodType>;

export type SchemaName = keyof typeof SCHEMAS;
export type JsonObject = Record<string, unknown>;
export type HttpMethod = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete' | 'options';

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  description: string;
  schema: JsonObject;
  /** Default true: every parameter the routes read is required unless it says otherwise. */
  required?: boolean;
}

/** A body or answer: a named JSON schema, or another media type with an optional raw schema. */
export type ContentSpec = { schema: SchemaName } | { mediaType: string; schema?: JsonObject };

export interface ApiOperation {
  method: HttpMethod;
  /** OpenAPI path template, relative to the router: `/api/jobs/{jobId}` for Express's `:jobId`. */
  path: string;
  operationId: string;
  tag: 'Flow A' | 'Flow B' | 'Service' | 'tus';
  summary: string;
  description?: string;
  parameters?: readonly ParameterSpec[];
  /** The request body; required unless `required` is false. */
  body?: ContentSpec & { description?: string; required?: boolean };
  /** The success answer (200 unless `status` says otherwise); no content means an empty body. */
  ok: { description: string; status?: number; content?: ContentSpec; headers?: readonly string[] };
  /**
   * The route is flagged `idempotent` (routes.ts): the document adds the optional Idempotency-Key
   * header, the Idempotent-Replayed answer header and the key's error codes.
   */
  idempotent?: true;
  /** Codes beyond the ones every request can meet (COMMON_ERRORS in openapi.ts). */
  errors: readonly ErrorCode[];
  /** The per-IP limit it counts against; null for a public route (no key, no limit, no errors). */
  rateLimit: RateLimitClass | null;
  /** Answers other than 200 and the error envelope (GET /api/ready's 503 with its checks). */
  otherAnswers?: readonly {
    status: number;
    description: string;
    content: ContentSpec;
    headers?: readonly string[];
  }[];
}
