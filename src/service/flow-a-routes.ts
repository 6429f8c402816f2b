/**
 * Flow A of the specification: upload grant, the signed PUT (the local stand-in for a presigned
 * storage URL), job creation (one or a batch), polling, cancel, and the signed result GET.
 */
import { z } from 'zod';
import { FileconvError } from '../core/errors.js';
import { isTerminal } from '../core/jobs/state.js';
import type { FileRecord, Job } from '../core/jobs/types.js';
import {
  assertBatchAllowed,
  assertFileSize,
  uploadRetentionMsOf,
  workLimitsOf,
} from '../core/policy/plans.js';
import type { CreateJobInput } from '../engine/job-operations.js';
import type { CreateOperationJobInput } from '../engine/operation-jobs.js';
import { fileIdFromKey } from '../engine/upload-operations.js';
import { type Call, chargeSignedRequest } from './access.js';
import { emptyAnswer, jsonAnswer, singleQueryValue } from './exchange.js';
import { readJsonBody } from './json-body.js';
import { downloadUrlFor, uploadUrlFor, verifyDownloadUrl, verifyUploadUrl } from './links.js';
import {
  assertQueueHasRoom,
  assertWorkerRunning,
  jobIdParam,
  mediaType,
  parse,
  type RouteContext,
  resultAnswer,
  UPLOAD_URL_EXPIRES_IN,
} from './route-context.js';
import type { Route } from './routes.js';
import { shieldedBody } from './shielded-body.js';
import { namesUrl, storeUrlSource } from './url-source.js';
import { jobView } from './views.js';
import type { BatchResult, CreateJobResult, UploadGrant } from './wire/index.js';
import {
  type CreateJobBody,
  createJobRequest,
  jobWaitQuery,
  namesOperation,
  type OperationJobBody,
  operationJobRequest,
  type UrlJobBody,
  uploadUrlRequest,
  urlJobRequest,
} from './wire/index.js';

type JobBody = CreateJobBody | OperationJobBody | UrlJobBody;

/** A job body by its kind: a document operation, a web page by URL, or the specification's conversion. */
function parseJobBody(value: unknown, what?: string): JobBody {
  if (namesOperation(value)) return parse(operationJobRequest, value, what);
  if (namesUrl(value)) return parse(urlJobRequest, value, what);
  return parse(createJobRequest, value, what);
}

/** The batch's list, each job then read by its kind (parseJobBody), so a problem names its own fields. */
const batchEnvelope = z.object({ jobs: z.array(z.unknown()).min(1).max(1000) });

/** The job once it settles, or as it is when `seconds` pass or the client leaves. */
async function waitAtMost(ctx: RouteContext, job: Job, seconds: number, signal: AbortSignal): Promise<Job> {
  const settled = await ctx.engine
    .waitForJob(job.id, { timeoutMs: seconds * 1000, signal, pollMs: JOB_WAIT_POLL_MS })
    .catch(() => null);
  // Not settled in time (or the store away for a moment): the job as it is now, as a plain GET.
  return settled ?? ctx.engine.getJob(job.id, job.owner);
}

/**
 * How often a long poll re-reads the store for a job another process runs (its worker's events
 * reach this process only through the store); jobs run here are seen at once.
 */
const JOB_WAIT_POLL_MS = 250;

/** What POST /api/jobs/batch reads: 1000 jobs of up to ~1 KB each. */
const BATCH_BODY_LIMIT = 1024 * 1024;

export function flowARoutes(ctx: RouteContext): Route[] {
  /**
   * The engine's input for one job body. A page to capture becomes a URL file first
   * (url-source.ts), listed in `urlFiles` so that a refused request removes it again.
   */
  async function inputOf(call: Call, body: JobBody, where: string, urlFiles: FileRecord[]) {
    const fileIdOf = (fileKey: string) => {
      const fileId = fileIdFromKey(fileKey);
      if (fileId) return fileId;
      throw new FileconvError('NOT_FOUND', `${where}No such file.`, { details: { fileKey } });
    };
    const common = {
      owner: call.client.owner,
      options: body.options,
      priority: call.client.plan.priority,
      limits: workLimitsOf(call.client.plan),
      ...(body.webhookUrl === undefined ? {} : { webhookUrl: body.webhookUrl }),
    };
    if ('operation' in body) {
      return { ...common, operation: body.operation, fileIds: body.fileKeys.map(fileIdOf) };
    }
    if ('url' in body) {
      const file = await storeUrlSource(ctx, call, body.url);
      urlFiles.push(file);
      return { ...common, fileId: file.id, sourceFormat: 'url', targetFormat: body.targetFormat };
    }
    return {
      ...common,
      fileId: fileIdOf(body.fileKey),
      sourceFormat: body.sourceFormat,
      targetFormat: body.targetFormat,
      fileSize: body.fileSize,
    };
  }

  /** Creates Flow A jobs all-or-nothing, charged to the daily quota; a refusal charges nothing. */
  async function createCharged(call: Call, requests: readonly JobBody[]) {
    const urlFiles: FileRecord[] = [];
    try {
      const inputs: (CreateJobInput | CreateOperationJobInput)[] = [];
      for (const [index, body] of requests.entries()) {
        inputs.push(await inputOf(call, body, requests.length > 1 ? `jobs[${index}]: ` : '', urlFiles));
      }
      const jobs = await call.meter.chargeJobs(inputs.length, (charge) =>
        ctx.engine.createJobs(inputs.map((input) => ({ ...input, charge }))),
      );
      call.jobIds = jobs.map((job) => job.id);
      return jobs;
    } catch (error) {
      await Promise.all(urlFiles.map((file) => ctx.engine.deleteFile(file.id).catch(() => {})));
      throw error;
    }
  }

  return [
    {
      method: 'POST',
      path: '/api/files/get-upload-url',
      idempotent: true,
      async handle(call) {
        const { client, exchange } = call;
        const body = parse(uploadUrlRequest, await readJsonBody(exchange));
        assertFileSize(client.plan, body.fileSize);
        await call.meter.charge('files');
        // The size is declared and signed into the upload URL: it is what the grant may store.
        await call.meter.charge('uploadBytes', body.fileSize);
        const file = await ctx.engine.createUploadGrant({
          owner: client.owner,
          fileName: body.fileName,
          size: body.fileSize,
          contentType: body.contentType,
          expiresInSeconds: UPLOAD_URL_EXPIRES_IN,
          retentionMs: uploadRetentionMsOf(client.plan),
        });
        const uploadUrl = await uploadUrlFor(ctx.links, call.baseUrl, file, UPLOAD_URL_EXPIRES_IN);
        return jsonAnswer(200, {
          uploadUrl,
          fileKey: file.key,
          fileId: file.id,
          expiresIn: UPLOAD_URL_EXPIRES_IN,
        } satisfies UploadGrant);
      },
    },
    {
      // The local stand-in for a presigned storage PUT: the signature is the credential.
      method: 'PUT',
      path: '/api/files/:fileId/content',
      signed: true,
      async handle(call, params) {
        const { exchange } = call;
        // Checked before the body is read; a failure spends the IP's rate like any anonymous call.
        let file: FileRecord;
        try {
          file = await ctx.engine.getFile(params.fileId!).catch(() => {
            throw new FileconvError('SIGNATURE_INVALID', 'The URL signature is not valid for this request.');
          });
          verifyUploadUrl(ctx.links, file, exchange.query);
        } catch (error) {
          await chargeSignedRequest(ctx.access, call, null);
          throw error;
        }
        await chargeSignedRequest(ctx.access, call, file.owner);
        const sent = exchange.header('content-type');
        if (mediaType(sent) !== mediaType(file.contentType)) {
          throw new FileconvError(
            'SIGNATURE_INVALID',
            `The URL was signed for Content-Type ${file.contentType}.`,
            {
              details: { expected: file.contentType, received: sent ?? null },
            },
          );
        }
        const length = exchange.header('content-length');
        const stored = await ctx.engine.receiveUpload({
          fileId: file.id,
          // Storage that fails mid-body must leave the request to answer on (507, 409).
          body: shieldedBody(exchange),
          contentLength: length === undefined ? undefined : Number(length),
        });
        call.uploadedBytes = stored.size;
        return emptyAnswer(200);
      },
    },
    {
      method: 'POST',
      path: '/api/jobs/create',
      idempotent: true,
      async handle(call) {
        assertWorkerRunning(ctx.engine);
        await assertQueueHasRoom(ctx, 1);
        const [job] = await createCharged(call, [parseJobBody(await readJsonBody(call.exchange))]);
        return jsonAnswer(200, { jobId: job!.id } satisfies CreateJobResult);
      },
    },
    {
      method: 'POST',
      path: '/api/jobs/batch',
      idempotent: true,
      async handle(call) {
        assertWorkerRunning(ctx.engine);
        // Room for the largest batch a plan allows (1000 jobs of a few hundred bytes), so a batch
        // of too many jobs is told so (INVALID_REQUEST), not that its body is too large.
        const body = parse(batchEnvelope, await readJsonBody(call.exchange, BATCH_BODY_LIMIT));
        assertBatchAllowed(call.client.plan, body.jobs.length);
        await assertQueueHasRoom(ctx, body.jobs.length);
        const jobs = await createCharged(
          call,
          body.jobs.map((job, index) => parseJobBody(job, `jobs[${index}]`)),
        );
        return jsonAnswer(200, { jobIds: jobs.map((job) => job.id) } satisfies BatchResult);
      },
    },
    {
      method: 'GET',
      path: '/api/jobs/:jobId',
      async handle(call, params) {
        const { client, baseUrl, exchange } = call;
        const waitSeconds = parse(jobWaitQuery, singleQueryValue(exchange.query, 'wait') ?? '0', 'wait');
        let job = await ctx.engine.getJob(parse(jobIdParam, params.jobId, 'job id'), client.owner);
        call.jobIds = [job.id];
        if (waitSeconds > 0 && !isTerminal(job.status))
          job = await waitAtMost(ctx, job, waitSeconds, exchange.signal);
        return jsonAnswer(200, jobView(job, await downloadUrlFor(ctx.links, baseUrl, job)), {
          'cache-control': 'no-store',
        });
      },
    },
    {
      method: 'DELETE',
      path: '/api/jobs/:jobId',
      async handle(call, params) {
        const job = await ctx.engine.discardJob(parse(jobIdParam, params.jobId, 'job id'), call.client.owner);
        call.jobIds = [job.id];
        return jsonAnswer(200, jobView(job, null));
      },
    },
    {
      // The local stand-in for a presigned storage GET.
      method: 'GET',
      path: '/api/jobs/:jobId/result',
      signed: true,
      async handle(call, params) {
        try {
          verifyDownloadUrl(ctx.links, params.jobId!, call.exchange.query);
        } catch (error) {
          await chargeSignedRequest(ctx.access, call, null);
          throw error;
        }
        // The signature names this job: its owner decides whose rate the download spends.
        const job = await ctx.engine.getJob(params.jobId!).catch(() => null);
        await chargeSignedRequest(ctx.access, call, job?.owner ?? null);
        call.jobIds = [params.jobId!];
        return resultAnswer(ctx.engine, params.jobId!);
      },
    },
  ];
}
