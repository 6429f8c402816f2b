/**
 * The JSON bodies the HTTP API answers, written once as zod schemas. Everything else follows
 * from them: the API description (openapi.ts) turns them into JSON Schema; the service's views
 * and routes return their inferred types, so a view that builds a field the schema lacks, or
 * misses one, does not compile; fileconv/client and the web page import those types type-only
 * (no zod in either bundle), so neither can drift from the server; and the tests parse real
 * answers with them (test/http/openapi-responses.test.ts, test/client/wire-contract.test.ts).
 *
 * Plain z.object (not strict): the document must not forbid additive fields (DESIGN.md section 5,
 * clients have to tolerate new fields); the tests catch undocumented ones by comparing the
 * parsed (unknown keys stripped) value with the raw body.
 *
 * This file imports only zod and core's pure tables: the web page's browser tsconfig checks it.
 */
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../core/errors.js';
import { JOB_STATUSES, WEBHOOK_STATUSES } from '../../core/jobs/statuses.js';

const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

export const errorCode = z.enum(ERROR_CODE_NAMES).meta({ description: 'Stable error code.' });
const timestamp = z.iso.datetime().meta({ description: 'ISO 8601 UTC timestamp.' });
const byteCount = z.int().nonnegative().meta({ description: 'Bytes.' });

/** `{ error: { code, message, details? } }`, every failure (http-errors.ts). */
export const errorResponse = z.object({
  error: z.object({
    code: errorCode,
    message: z.string().min(1).meta({ description: 'A human-readable sentence.' }),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'Machine-readable context, e.g. `issues` of a validation failure.' }),
  }),
});

/** POST /api/files/get-upload-url. */
export const uploadGrantResponse = z.object({
  uploadUrl: z.url().meta({ description: 'Pre-signed URL: PUT the bytes to it with the same Content-Type.' }),
  fileKey: z.string().min(1).meta({ description: 'Passed to POST /api/jobs/create.' }),
  fileId: z.string().min(1),
  expiresIn: z.literal(600).meta({ description: 'Lifetime of uploadUrl, seconds.' }),
});

/** POST /api/files/multipart. */
export const multipartGrantResponse = z.object({
  fileId: z.string().min(1),
  fileKey: z
    .string()
    .min(1)
    .meta({ description: 'Passed to POST /api/jobs/create once the upload is complete.' }),
  uploadId: z.string().min(1).meta({ description: 'Send it back to complete or abort the upload.' }),
  partSize: z.int().positive().meta({
    description: 'Part n holds the file bytes [(n-1)*partSize, n*partSize); the last part holds the rest.',
  }),
  parts: z
    .array(
      z.object({
        partNumber: z.int().min(1),
        url: z.url().meta({ description: "Pre-signed URL: PUT exactly this part's bytes to it." }),
      }),
    )
    .min(1),
  expiresIn: z.int().positive().meta({ description: 'Lifetime of the part URLs and of the grant, seconds.' }),
  completeUrl: z.url().meta({ description: 'POST the parts ETags here once every part is stored.' }),
});

/** POST /api/files/{fileId}/complete. */
export const completedUploadResponse = z.object({
  fileId: z.string().min(1),
  fileKey: z.string().min(1).meta({ description: 'Passed to POST /api/jobs/create.' }),
  fileName: z.string().min(1),
  size: byteCount,
});

/** POST /api/jobs/create. */
export const createJobResponse = z.object({ jobId: z.string().min(1) });

/** POST /api/jobs/batch: the jobs in request order. */
export const batchResponse = z.object({ jobIds: z.array(z.string().min(1)).min(1) });

/** GET /api/jobs/{jobId} and DELETE /api/jobs/{jobId} (views.ts jobView). */
export const jobResponse = z.object({
  jobId: z.string().min(1),
  status: z.enum(JOB_STATUSES),
  downloadUrl: z
    .url()
    .nullable()
    .meta({ description: 'Signed, expiring URL of the result when status is "completed", else null.' }),
  error: z
    .object({ code: errorCode, message: z.string() })
    .nullable()
    .meta({ description: 'Why the job failed, or null.' }),
  sourceFormat: z.string(),
  targetFormat: z.string(),
  fileName: z.string(),
  cpuMinutes: z.number().nonnegative().meta({ description: 'Measured CPU time, minutes; 0 until run.' }),
  createdAt: timestamp,
  completedAt: timestamp.nullable(),
  outputName: z.string().meta({ description: 'Name the result downloads under.' }),
  progress: z.number().min(0).max(1),
  outputSize: byteCount.nullable(),
  expiresAt: timestamp.nullable().meta({ description: 'When a completed result is deleted.' }),
  webhook: z
    .object({
      url: z.url(),
      status: z.enum(WEBHOOK_STATUSES).meta({
        description: "'pending' until the settled job's event was delivered or given up on ('failed').",
      }),
      attempts: z.int().nonnegative().meta({ description: 'Delivery attempts made so far.' }),
      lastError: z
        .string()
        .nullable()
        .meta({ description: 'Why the last attempt failed; null once delivered.' }),
      deliveredAt: timestamp.nullable(),
    })
    .optional()
    .meta({
      description:
        'Only on jobs created with a webhookUrl: how the delivery of its completed / failed / canceled event went.',
    }),
  operation: z
    .string()
    .optional()
    .meta({ description: "Only on document operation jobs: the operation ('merge', 'split'...)." }),
  inputFiles: z
    .array(z.string())
    .optional()
    .meta({ description: 'Only on document operation jobs: the names of its input files, in order.' }),
});

/** POST /api/upload (views.ts uploadedFileView). */
export const uploadedFileResponse = z.object({
  fileId: z.string().min(1),
  fileName: z.string().min(1),
  size: byteCount,
});

/** POST /api/convert. */
export const convertResponse = z.object({
  downloadId: z.string().min(1).meta({ description: 'Pass as `id` to GET /api/download.' }),
  outputName: z.string().min(1),
});

const quotaStatus = z.object({
  limit: z.int().nullable().meta({ description: 'null: unlimited, or no counters configured.' }),
  used: z.int().nullable(),
  remaining: z.int().nullable(),
  resetAt: timestamp.nullable(),
});

/** GET /api/usage (usage-view.ts). */
export const usageResponse = z.object({
  account: z.string().nullable().meta({ description: 'null for the anonymous Free tier.' }),
  plan: z.object({
    name: z.string(),
    label: z.string(),
    conversionsPerDay: z.int().nullable(),
    maxFileBytes: byteCount,
    filesPerHour: z.int().nullable(),
    uploadBytesPerHour: z
      .int()
      .nullable()
      .meta({ description: 'Bytes uploaded per UTC hour; null: no limit.' }),
    uploadRetentionSeconds: z
      .int()
      .nullable()
      .meta({ description: "How long an unconverted upload is kept; null: the server's default (an hour)." }),
    maxWorkPixels: z.number().int().nullable().meta({
      description: 'Pixels one conversion may decode (frames x frame size); null: the server limits only.',
    }),
    maxMediaSeconds: z
      .int()
      .nullable()
      .meta({ description: 'Longest audio or video input, seconds; null: the server limits only.' }),
    maxDocumentPages: z.int().nullable().meta({
      description: 'Most pages of a PDF one conversion reads or writes; null: the server limits only.',
    }),
    apiCallsPerMonth: z.int().nullable(),
    priority: z.int(),
    batch: z.boolean(),
    maxBatchJobs: z.int().nonnegative(),
    uploadRequestsPerMinute: z.int().positive().nullable().meta({
      description: 'Requests a minute to the upload and convert endpoints; null: no rate limit.',
    }),
    requestsPerMinute: z
      .int()
      .positive()
      .nullable()
      .meta({ description: 'Requests a minute to every other endpoint; null: no rate limit.' }),
  }),
  quotas: z.object({
    conversions: quotaStatus,
    files: quotaStatus,
    uploadBytes: quotaStatus.meta({ description: 'Bytes uploaded this UTC hour.' }),
    apiCalls: quotaStatus.optional().meta({ description: 'Keyed (paid) clients only.' }),
  }),
  rateLimits: z
    .array(
      z.object({
        name: z.string().meta({ description: "The RateLimit-Policy name: 'upload', 'default-account', ..." }),
        limit: z.int().positive(),
        windowSeconds: z.number().positive(),
        scope: z.enum(['ip', 'account']).meta({
          description: "Counted per client IP (anonymous callers) or per account (a key's plan rates).",
        }),
      }),
    )
    .meta({
      description: "The caller's request rate limits; empty when the service runs without limits.",
    }),
});

/** GET /api/formats (formats-view.ts). */
export const formatsResponse = z.object({
  formats: z.array(
    z.object({
      name: z.string(),
      family: z.string(),
      label: z.string(),
      aliases: z.array(z.string()),
      extensions: z.array(z.string()),
      mimeTypes: z.array(z.string()),
      targets: z.array(
        z.object({
          format: z.string(),
          lossy: z.boolean().nullable(),
          path: z.array(z.string()).nullable().meta({ description: 'Formats passed through, source first.' }),
          converters: z
            .array(z.string())
            .nullable()
            .meta({ description: "The converter of each step ('chromium', 'libreoffice', ...), in order." }),
          options: z
            .record(z.string(), z.unknown())
            .nullable()
            .meta({ description: 'JSON Schema of the conversion options, or null when it takes none.' }),
        }),
      ),
    }),
  ),
});

/** GET /api/operations. */
export const operationsResponse = z.object({
  operations: z.array(
    z.object({
      name: z.string().meta({ description: "What a job names in `operation`: 'merge', 'split'..." }),
      description: z.string(),
      input: z.string().meta({ description: 'The format every input file must have.' }),
      minInputs: z.int().positive(),
      maxInputs: z.int().positive(),
      options: z.record(z.string(), z.unknown()).meta({ description: 'JSON Schema of the options.' }),
    }),
  ),
});

/** GET /api/ready: 200 when every check passed, else 503 with the same body. */
export const readinessResponse = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.array(
    z.object({
      name: z.string().meta({
        description: "'accepting', 'storage', 'jobs', 'queue', 'worker', 'disk' or 'converter:<name>'.",
      }),
      ok: z.boolean(),
      ms: z.number().meta({ description: 'How long the check took (its deadline when it did not answer).' }),
      error: z.object({ code: z.string(), message: z.string() }).optional(),
    }),
  ),
});

/** GET /api/health. */
export const healthResponse = z.object({
  status: z.literal('ok'),
  engines: z
    .array(
      z.object({
        name: z.string(),
        ok: z.boolean(),
        version: z.string().nullable(),
        reason: z.string().nullable().meta({ description: 'Why the engine is unavailable, or null.' }),
      }),
    )
    .meta({
      description:
        "This process's engines, each checked once. Empty on an API node that runs no worker (`fileconv serve --no-worker`): its workers check their own.",
    }),
});

// The answers' types, inferred: what the views and routes return and what the client reads.
export type ErrorEnvelope = z.infer<typeof errorResponse>;
export type UploadGrant = z.infer<typeof uploadGrantResponse>;
export type MultipartGrant = z.infer<typeof multipartGrantResponse>;
export type CompletedUpload = z.infer<typeof completedUploadResponse>;
export type CreateJobResult = z.infer<typeof createJobResponse>;
export type BatchResult = z.infer<typeof batchResponse>;
export type JobView = z.infer<typeof jobResponse>;
export type UploadedFile = z.infer<typeof uploadedFileResponse>;
export type ConversionResult = z.infer<typeof convertResponse>;
export type QuotaUsage = z.infer<typeof quotaStatus>;
export type UsageResponse = z.infer<typeof usageResponse>;
export type FormatsResponse = z.infer<typeof formatsResponse>;
export type OperationsResponse = z.infer<typeof operationsResponse>;
export type ReadinessResponse = z.infer<typeof readinessResponse>;
export type HealthResponse = z.infer<typeof healthResponse>;
export type { ErrorCode };
