/**
 * Flow B of the specification: a streamed multipart upload, a conversion that answers once the
 * result is ready, and the download by id.
 */

import { FileconvError, isFileconvError } from '../core/errors.js';
import type { FileRecord } from '../core/jobs/types.js';
import { sanitizeFileName } from '../core/names.js';
import { assertFileSize, planFileTooLarge, uploadRetentionMsOf, workLimitsOf } from '../core/policy/plans.js';
import type { CreateJobInput } from '../engine/job-operations.js';
import type { CreateOperationJobInput } from '../engine/operation-jobs.js';
import { jsonAnswer, singleQueryValue } from './exchange.js';
import { readJsonBody } from './json-body.js';

import { receiveSingleFile } from './multipart.js';
import {
  assertQueueHasRoom,
  assertWorkerRunning,
  jobIdParam,
  parse,
  type RouteContext,
  resultAnswer,
} from './route-context.js';

import type { Route } from './routes.js';
import { namesUrl, storeUrlSource } from './url-source.js';
import { uploadedFileView } from './views.js';
import type { ConversionResult } from './wire/index.js';
import { convertRequest, namesOperation, operationConvertRequest, urlConvertRequest } from './wire/index.js';

/** For a file sent straight to /api/convert as a form (readJsonBody): the two steps it takes. */
const CONVERT_FORM_HINT =
  'Upload the file first with POST /api/upload (multipart/form-data, field "file"), then POST /api/convert with {"fileId", "fileName", "targetFormat"} from its answer.';

export function flowBRoutes(ctx: RouteContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/upload',
      idempotent: true,
      async handle(call) {
        const { client, exchange } = call;
        const maxBytes = client.plan.maxFileBytes;
        const declared = Number(exchange.header('content-length'));
        // Multipart framing is small: a body far over the limit cannot hold a file under it, so it is refused unread.
        if (Number.isFinite(declared) && declared > maxBytes + 64 * 1024)
          assertFileSize(client.plan, declared);
        await call.meter.charge('files');
        // The most this body can store, charged before a byte is read (a budget spent is refused
        // at once); what it did not store is given back below. Nothing is kept of a refused
        // upload: the request's meter gives back the file and the bytes.
        const most = Number.isFinite(declared) ? Math.min(declared, maxBytes) : maxBytes;
        const bytes = await call.meter.charge('uploadBytes', most);
        const file = await receiveSingleFile(exchange, {
          maxBytes,
          onFile: (incoming) =>
            ctx.engine.uploadFile({
              owner: client.owner,
              fileName: incoming.fileName,
              body: incoming.stream,
              maxBytes,
              contentType: incoming.mimeType,
              retentionMs: uploadRetentionMsOf(client.plan),
            }),
          discard: (stored) => ctx.engine.deleteFile(stored.id),
        }).catch((error: unknown) => {
          // Cut off at the limit by the multipart reader or by storage, whichever counted first:
          // either way the plan's limit, refused as a declared size over it is.
          if (isFileconvError(error, 'FILE_TOO_LARGE')) throw planFileTooLarge(client.plan, undefined, error);
          throw error;
        });
        await call.meter.settle(bytes, file.size);
        call.uploadedBytes = file.size;
        return jsonAnswer(200, uploadedFileView(file));
      },
    },
    {
      method: 'POST',
      path: '/api/convert',
      idempotent: true,
      async handle(call) {
        assertWorkerRunning(ctx.engine);
        await assertQueueHasRoom(ctx, 1);
        const { client, exchange } = call;
        const raw = await readJsonBody(exchange, undefined, CONVERT_FORM_HINT);
        const common = {
          owner: client.owner,
          priority: client.plan.priority,
          limits: workLimitsOf(client.plan),
        };
        let input: CreateJobInput | CreateOperationJobInput;
        let urlFile: FileRecord | undefined;
        if (namesOperation(raw)) {
          const body = parse(operationConvertRequest, raw);
          input = { ...common, operation: body.operation, fileIds: body.fileIds, options: body.options };
        } else if (namesUrl(raw)) {
          const body = parse(urlConvertRequest, raw);
          urlFile = await storeUrlSource(ctx, call, body.url);
          const fileId = urlFile.id;
          input = {
            ...common,
            fileId,
            sourceFormat: 'url',
            targetFormat: body.targetFormat,
            options: body.options,
          };
        } else {
          const body = parse(convertRequest, raw);
          const file = await ctx.engine.getFile(body.fileId, client.owner);
          // The name the client uploaded is as good as the cleaned one the upload returned.
          if (body.fileName !== file.fileName && sanitizeFileName(body.fileName) !== file.fileName) {
            throw new FileconvError('INVALID_REQUEST', 'fileName must be the name the upload returned.', {
              details: { expected: file.fileName },
            });
          }
          input = { ...common, fileId: file.id, targetFormat: body.targetFormat, options: body.options };
        }
        const job = await call.meter
          .chargeJobs(1, (charge) => ctx.engine.createJob({ ...input, charge }))
          .catch(async (error: unknown) => {
            // A refused capture leaves no URL file behind.
            if (urlFile) await ctx.engine.deleteFile(urlFile.id).catch(() => {});
            throw error;
          });
        call.jobIds = [job.id];
        // The conversion goes on if the client leaves; only the waiting stops.
        const done = await ctx.engine
          .waitForJob(job.id, { timeoutMs: ctx.convertTimeoutMs, signal: exchange.signal })
          .catch((error: unknown) => {
            // The job exists and goes on (waiting failed: Redis away, a timeout): name it, so a
            // client polls GET /api/jobs/{jobId} instead of converting, and paying, twice (found by
            // the soak: a retried convert after a 503 charged a second job).
            if (!(error instanceof FileconvError) || error.details?.jobId !== undefined) throw error;
            throw new FileconvError(error.code, error.message, {
              details: { ...error.details, jobId: job.id },
              cause: error,
            });
          });
        if (done.status !== 'completed') {
          const error = done.error ?? {
            code: 'CONVERSION_FAILED' as const,
            message: 'The conversion did not complete.',
          };
          throw new FileconvError(error.code, error.message, { details: { jobId: done.id } });
        }
        return jsonAnswer(200, {
          downloadId: done.id,
          outputName: done.outputName,
        } satisfies ConversionResult);
      },
    },
    {
      method: 'GET',
      path: '/api/download',
      async handle(call) {
        const { client, exchange } = call;
        const id = parse(jobIdParam, singleQueryValue(exchange.query, 'id'), 'download id');
        call.jobIds = [id];
        await ctx.engine.getJob(id, client.owner);
        return resultAnswer(ctx.engine, id);
      },
    },
  ];
}
