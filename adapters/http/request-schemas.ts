/**
 * The request bodies of the specification's endpoints, as strict zod schemas. They validate
 * requests and can describe them (z.toJSONSchema) for an API description.
 */
import { z } from 'zod';
import { checkWebhookUrl, MAX_WEBHOOK_URL_LENGTH } from '../../src/job-webhook.js';
import { literalAddressProblem } from '../webhooks/addresses.js';

/** Longest fileName accepted; longer is a client bug or an attack, not a name. */
export const MAX_FILE_NAME_LENGTH = 1024;

const fileName = z.string().min(1).max(MAX_FILE_NAME_LENGTH);
const formatName = z.string().min(1).max(32);
const byteSize = z.int().positive().max(Number.MAX_SAFE_INTEGER);
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

export const uploadUrlRequest = z.object({ fileName, fileSize: byteSize, contentType: mimeType });

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

/** A job body of either kind: a conversion (the specification's) or a document operation. */
export const jobRequest = z.union([createJobRequest, operationJobRequest]);

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

/** POST /api/convert's body of either kind. */
export const convertOrOperationRequest = z.union([convertRequest, operationConvertRequest]);
