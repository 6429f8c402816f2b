/**
 * The request bodies of the specification's endpoints, as strict zod schemas. They validate
 * requests (the routes parse with them), describe them in the API description (z.toJSONSchema),
 * and type what fileconv/client sends (the z.input types at the end, imported type-only).
 */
import { z } from 'zod';
import { MAX_URL_LENGTH } from '../../core/formats/url-file.js';
import { checkWebhookUrl, MAX_WEBHOOK_URL_LENGTH } from '../../engine/job-webhook.js';
import { literalAddressProblem } from '../../kit/net/addresses.js';

/** Longest fileName accepted; longer is a client bug or an attack, not a name. */
export const MAX_FILE_NAME_LENGTH = 1024;

const fileName = z.string().min(1).max(MAX_FILE_NAME_LENGTH);
const formatName = z.string().min(1).max(32);
const byteSize = z.int().positive().max(Number.MAX_SAFE_INTEGER);
/**
 * The size of a file about to be uploaded: 0 is a well-formed request for an empty file, which the
 * engine refuses as it refuses an empty upload (CORRUPT_INPUT), not a malformed one.
 */
const uploadSize = z.int().nonnegative().max(Number.MAX_SAFE_INTEGER);
// type/subtype with optional parameters: enough to refuse garbage and header injection.
const mimeType = z
  .string()
  .max(255)
  .regex(
    /^[A-Za-z0-9][\w!#$&^.+-]*\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("[^"\r\n]*"|[\w!#$&^.+-]+))*$/,
    'not a MIME type',
  );
const options = z.record(z.string(), z.unknown());
// An http(s) URL; a literal non-public IP is refused here already (names are checked after DNS,
// at delivery), so a client learns at once that 169.254.169.254 will never be called.
const webhookUrl = z
  .string()
  .min(1)
  .max(MAX_WEBHOOK_URL_LENGTH)
  .superRefine((value, ctx) => {
    try {
      const problem = literalAddressProblem(checkWebhookUrl(value));
      if (problem)
        ctx.addIssue({
          code: 'custom',
          message: `not allowed: ${problem} (webhooks go to public addresses only)`,
        });
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
    }
  });

export const uploadUrlRequest = z.object({ fileName, fileSize: uploadSize, contentType: mimeType });

/** S3's limit on the parts of one upload. */
const MAX_PARTS = 10_000;

/** POST /api/files/{fileId}/complete: the ETag each part PUT answered, by part number. */
export const completeMultipartRequest = z.object({
  uploadId: z.string().min(1).max(1024).meta({ description: 'The `uploadId` of the multipart grant.' }),
  parts: z
    .array(
      z.object({
        partNumber: z.int().min(1).max(MAX_PARTS),
        etag: z.string().min(1).max(1024).meta({ description: 'The ETag header the part PUT answered.' }),
      }),
    )
    .min(1)
    .max(MAX_PARTS)
    .meta({ description: 'Every part, in ascending partNumber order.' }),
});

export const createJobRequest = z.object({
  fileKey: z.string().min(1).max(255),
  sourceFormat: formatName,
  targetFormat: formatName,
  fileSize: byteSize,
  options: options.optional(),
  /** Additive: where the job's completed / failed / canceled event is POSTed. */
  webhookUrl: webhookUrl.optional(),
});

export type CreateJobBody = z.infer<typeof createJobRequest>;

/** Most files one operation job names (merge's maximum). */
/**
 * GET /api/jobs/{id}?wait=N: hold the answer up to N seconds until the job settles (a long poll,
 * as CloudConvert's sync endpoint), so a client learns of the result when it happens, not a poll
 * interval later, with one request instead of many. 60 s at most: the idle timeout of most
 * proxies and load balancers.
 */
export const MAX_JOB_WAIT_SECONDS = 60;
export const jobWaitQuery = z.coerce.number().int().min(0).max(MAX_JOB_WAIT_SECONDS);

export const MAX_OPERATION_FILES = 50;
const operationName = z.string().min(1).max(32).meta({
  description:
    "The document operation to run: 'merge', 'split', 'rotate'... (GET /api/operations lists them).",
});

/** Additive: a job that runs a document operation over uploaded files, in order, instead of a conversion. */
export const operationJobRequest = z.object({
  operation: operationName,
  fileKeys: z
    .array(z.string().min(1).max(255))
    .min(1)
    .max(MAX_OPERATION_FILES)
    .meta({ description: 'The uploaded files (their fileKey), in order.' }),
  options: options.optional(),
  webhookUrl: webhookUrl.optional(),
});

export type OperationJobBody = z.infer<typeof operationJobRequest>;

/** A web page to capture: http(s) only (the address itself is judged after DNS, on the worker). */
const pageUrl = z
  .string()
  .min(1)
  .max(MAX_URL_LENGTH)
  .superRefine((value, ctx) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not an absolute URL' });
      return;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      ctx.addIssue({
        code: 'custom',
        message: `only http and https pages are captured, not ${parsed.protocol}`,
      });
    }
  })
  .meta({
    description:
      'The web page to capture (http or https). Private, loopback and link-local addresses are refused after DNS resolution, and so is every request the page makes to them.',
  });

/** Additive: a job that captures a web page (pdf, png, jpg, webp in Chromium) instead of converting an upload. */
export const urlJobRequest = z.object({
  url: pageUrl,
  targetFormat: formatName,
  options: options.optional(),
  webhookUrl: webhookUrl.optional(),
});

export type UrlJobBody = z.infer<typeof urlJobRequest>;

/** A job body of any kind: a conversion (the specification's), a document operation, or a web page capture. */
export const jobRequest = z.union([createJobRequest, operationJobRequest, urlJobRequest]);

/** Whether a request body asks for a document operation (it names one), not a conversion. */
export function namesOperation(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'operation' in body;
}

/** POST /api/jobs/batch: up to the plan's maxBatchJobs job bodies (checked against the plan). */
export const batchRequest = z.object({ jobs: z.array(jobRequest).min(1).max(1000) });

export const convertRequest = z.object({
  fileId: z.string().min(1).max(255),
  fileName,
  targetFormat: formatName,
  options: options.optional(),
});

/** Additive: POST /api/convert running a document operation over uploaded files (their fileId), in order. */
export const operationConvertRequest = z.object({
  operation: operationName,
  fileIds: z
    .array(z.string().min(1).max(255))
    .min(1)
    .max(MAX_OPERATION_FILES)
    .meta({ description: 'The uploaded files (their fileId from POST /api/upload), in order.' }),
  options: options.optional(),
});

/** Additive: POST /api/convert capturing a web page. */
export const urlConvertRequest = z.object({
  url: pageUrl,
  targetFormat: formatName,
  options: options.optional(),
});

/** POST /api/convert's body of any kind. */
export const convertOrOperationRequest = z.union([
  convertRequest,
  operationConvertRequest,
  urlConvertRequest,
]);

// What a client may send (z.input: before any default or transform the server applies).
export type UploadUrlRequest = z.input<typeof uploadUrlRequest>;
export type CompleteMultipartRequest = z.input<typeof completeMultipartRequest>;
export type CreateJobRequest = z.input<typeof createJobRequest>;
export type OperationJobRequest = z.input<typeof operationJobRequest>;
export type UrlJobRequest = z.input<typeof urlJobRequest>;
export type JobRequest = z.input<typeof jobRequest>;
export type BatchRequest = z.input<typeof batchRequest>;
export type ConvertRequest = z.input<typeof convertRequest>;
export type OperationConvertRequest = z.input<typeof operationConvertRequest>;
export type UrlConvertRequest = z.input<typeof urlConvertRequest>;
export type ConvertOrOperationRequest = z.input<typeof convertOrOperationRequest>;
